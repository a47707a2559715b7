"""Search: beliefs ranked by their words (the full-text index on text and id) and, when an
embedder is given, by meaning (the vector index over stored embeddings), the two rankings
merged by reciprocal rank fusion.

Reciprocal rank fusion scores a belief 1/(k + rank) in each ranking it appears in and adds
the scores up: a belief both rankings place high wins, and neither ranking's raw scores (BM25
against cosine, on different scales) need to be made comparable. Each hit carries its label,
depth and how many beliefs rest on it directly, read in the same transaction as the ranking.
OUT beliefs are left out unless asked for: an agent usually wants what currently holds.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from engine import defaults
from engine.embedding.records import VectorTx
from engine.errors import InvalidInput
from engine.model import Truth
from engine.reading.records import BeliefHit, SearchTx
from engine.store import Store

RRF_K = 60  # the usual constant: damps the weight of the very first ranks
DEFAULT_LIMIT = defaults.SEARCH_LIMIT
MAX_LIMIT = defaults.SEARCH_MAX_LIMIT
SEMANTIC_FETCH = 4  # the vector index is asked for this many times `limit` (OUT ones drop out)
MAX_DEPTH = defaults.SEARCH_MAX_DEPTH  # search --depth: justification steps from the hits


class HybridSearchTx(SearchTx, VectorTx, Protocol):
    """What the search reads: full-text hits (SearchTx) and nearest vectors (VectorTx)."""


@dataclass(frozen=True)
class SearchHit:
    belief: BeliefHit
    score: float  # the fused score: the sum of 1/(RRF_K + rank) over the rankings
    text_rank: int | None = None  # 1-based place in the full-text ranking, if there
    semantic_rank: int | None = None  # 1-based place in the meaning ranking, if there

    def as_dict(self) -> dict:
        b = self.belief
        return {"id": b.id, "text": b.text, "truth": b.truth.value, "depth": b.depth,
                "dependents": b.dependents, "score": round(self.score, 6),
                "text_rank": self.text_rank, "semantic_rank": self.semantic_rank}


@dataclass
class _Fused:
    belief: BeliefHit
    score: float = 0.0
    ranks: dict[str, int] = field(default_factory=dict)


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


def search(store: Store, words: str | Sequence[str], *, limit: int = DEFAULT_LIMIT,
           include_out: bool = False, embedder=None) -> list[SearchHit]:
    """The `limit` best beliefs for `words`; by meaning as well when `embedder` (the
    one-method embedder of engine.embedding.cache.Embedder) is given."""
    parts = search_words(words)
    check_limit(limit)
    vector = None
    if embedder is not None:
        vector = embedder.embed([" ".join(parts)])[0]  # before the transaction: it is slow

    return store.read(lambda tx: search_in(tx, parts, limit=limit, include_out=include_out,
                                           vector=vector))


def neighbours(store: Store, ids: Sequence[str], depth: int, include_out: bool = False
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


def search_in(tx: HybridSearchTx, words: Sequence[str], *, limit: int, include_out: bool = False,
              vector: Sequence[float] | None = None) -> list[SearchHit]:
    """The same ranking inside a transaction the caller holds, with the query's vector
    already embedded (or None: by words only)."""
    rankings = {"text": tx.search_text(words, limit, include_out)}
    if vector is not None:
        rankings["semantic"] = _by_meaning(tx, vector, limit, include_out)
    return fuse(rankings, limit)


def _by_meaning(tx: HybridSearchTx, vector, limit: int, include_out: bool) -> list[BeliefHit]:
    nearest = [i for i, _ in tx.similar_beliefs(vector, limit * SEMANTIC_FETCH)]
    found = tx.belief_hits(nearest)
    hits = [found[i] for i in nearest if i in found]
    if not include_out:
        hits = [h for h in hits if h.truth == Truth.IN]
    return hits[:limit]


def fuse(rankings: dict[str, list[BeliefHit]], limit: int) -> list[SearchHit]:
    """Reciprocal rank fusion of named rankings (best first each); ties by id."""
    fused: dict[str, _Fused] = {}
    for name, hits in rankings.items():
        for rank, hit in enumerate(hits, start=1):
            entry = fused.setdefault(hit.id, _Fused(hit))
            entry.score += 1.0 / (RRF_K + rank)
            entry.ranks[name] = rank
    ordered = sorted(fused.values(), key=lambda e: (-e.score, e.belief.id))[:limit]
    return [SearchHit(e.belief, e.score, e.ranks.get("text"), e.ranks.get("semantic"))
            for e in ordered]
