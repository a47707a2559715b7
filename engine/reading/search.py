"""Search: beliefs ranked for some words by the ranking every reader shares
(engine/reading/ranking.py): the full-text index on text and id and, when an embedder is
given, the vector index over stored embeddings, merged by reciprocal rank fusion, then
re-ordered by how near each is, in the justification graph, to the best matches.

Each hit carries its label, depth and how many beliefs rest on it directly, read in the same
transaction as the ranking. OUT beliefs are left out unless asked for: an agent usually
wants what currently holds. By meaning, the memory's embeddings must be current
(engine/embedding/upkeep.py): otherwise MissingEmbeddings, never a ranking by words that
says it ranked by meaning.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine import defaults
from engine.errors import InvalidInput
from engine.model import Truth
from engine.reading.ranking import POOL, RRF_K, Meaning, RankingTx, meaning_of, rank_in
from engine.reading.records import BeliefHit, SearchTx
from engine.store import Store

__all__ = ["RRF_K", "HybridSearchTx", "Neighbour", "SearchHit", "check_depth", "check_limit",
           "neighbours", "search", "search_in", "search_words"]

DEFAULT_LIMIT = defaults.SEARCH_LIMIT
MAX_LIMIT = defaults.SEARCH_MAX_LIMIT
MAX_DEPTH = defaults.SEARCH_MAX_DEPTH  # search --depth: justification steps from the hits

HybridSearchTx = RankingTx  # what a search reads (the name the repair stage knows it by)


@dataclass(frozen=True)
class SearchHit:
    belief: BeliefHit
    score: float  # the ranking's score: fused reciprocal ranks, graph proximity, label
    text_rank: int | None = None  # 1-based place in the full-text ranking, if there
    semantic_rank: int | None = None  # 1-based place in the meaning ranking, if there

    def as_dict(self) -> dict:
        b = self.belief
        return {"id": b.id, "text": b.text, "truth": b.truth.value, "depth": b.depth,
                "dependents": b.dependents, "score": round(self.score, 6),
                "text_rank": self.text_rank, "semantic_rank": self.semantic_rank}


@dataclass(frozen=True)
class Neighbour:
    """A belief within `--depth` justification steps of a hit (not a hit itself)."""

    belief: BeliefHit
    distance: int

    def as_dict(self) -> dict:
        b = self.belief
        return {"id": b.id, "text": b.text, "truth": b.truth.value, "depth": b.depth,
                "dependents": b.dependents, "distance": self.distance}


def search_words(text: str | Sequence[str]) -> list[str]:
    """The words of a query, checked: at least one that is not blank."""
    parts = text.split() if isinstance(text, str) else [w for t in text for w in t.split()]
    if not parts:
        raise InvalidInput("search needs at least one word", field="words")
    return parts


def check_limit(limit: int) -> int:
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"--limit takes a number from 1 to {MAX_LIMIT}, not {limit}",
                           field="limit", value=limit)
    return limit


def check_depth(depth: int) -> int:
    if not 0 <= depth <= MAX_DEPTH:
        raise InvalidInput(f"--depth takes a number from 0 to {MAX_DEPTH}, not {depth}",
                           field="depth", value=depth)
    return depth


def search(store: Store[RankingTx], words: str | Sequence[str], *, limit: int = DEFAULT_LIMIT,
           include_out: bool = False, embedder=None) -> list[SearchHit]:
    """The `limit` best beliefs for `words`; by meaning as well when `embedder` (the
    one-method embedder of engine.embedding.cache.Embedder) is given, which needs the
    memory's embeddings current (MissingEmbeddings otherwise)."""
    parts = search_words(words)
    check_limit(limit)
    meaning = meaning_of(embedder, " ".join(parts))  # before the transaction: it is slow
    return store.read(lambda tx: search_in(tx, parts, limit=limit, include_out=include_out,
                                           meaning=meaning))


def neighbours(store: Store[SearchTx], ids: Sequence[str], depth: int, include_out: bool = False
               ) -> list[Neighbour]:
    """The beliefs within `depth` justification steps of `ids` (search's hits; up: what they
    rest on and their outlists; down: what rests on them), nearest first, then by id; OUT
    ones only with `include_out`."""
    check_depth(depth)
    return store.read(lambda tx: neighbours_in(tx, ids, depth, include_out))


def neighbours_in(tx: SearchTx, ids: Sequence[str], depth: int, include_out: bool
                  ) -> list[Neighbour]:
    if not depth or not ids:
        return []
    distances = tx.neighbours(ids, depth)
    found = tx.belief_hits(distances)
    near = [Neighbour(found[i], d) for i, d in distances.items() if i in found
            and (include_out or found[i].truth == Truth.IN)]
    return sorted(near, key=lambda n: (n.distance, n.belief.id))[:MAX_LIMIT]


def search_in(tx: RankingTx, words: Sequence[str], *, limit: int, include_out: bool = False,
              meaning: Meaning | None = None, vector: Sequence[float] | None = None
              ) -> list[SearchHit]:
    """The same ranking inside a transaction the caller holds, with the query's meaning
    already embedded (or None: by words only). `vector` alone ranks by the embeddings
    stored, current or not (the repair stage's bridges); every reader a person or an agent
    calls passes `meaning`, which is checked."""
    if meaning is None and vector is not None:
        meaning = Meaning(vector, "", checked=False)
    ranking = rank_in(tx, words, meaning=meaning, include_out=include_out,
                      pool=max(POOL, limit))
    return [SearchHit(r.belief, r.score, r.text_rank, r.semantic_rank)
            for r in ranking.ranked[:limit]]
