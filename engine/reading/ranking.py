"""The one ranking every reader of the memory shares: `search` (CLI and MCP), the bundle of
`ask` and the MCP `context_for` (engine/ask/retrieval.py), and the scope of `compact --topic`.

A belief's relevance is its own: where the full-text index (BM25 over text and id, with
stemming) places it for the words of the question (its stop words left out:
engine/reading/query_words.py), and where the vector index places it for the question's
meaning (a belief whose embedding points away from the question's, cosine 0 or less, is no
match), fused by reciprocal rank fusion: 1/(RRF_K + rank) summed over the rankings, so BM25
and cosine, on different scales, need not be made comparable; a place in the meaning
ranking counts in proportion to its cosine over the best one's, so a weak second (0.3
against 0.7) is not taken for nearly as good as the first. Then the justification graph
speaks: a candidate one justification step from some of the SEEDS best matches (what such a
match rests on, what it gates, what rests on it) has its relevance multiplied by 1 +
PROXIMITY times theirs over the best one's, so the conclusion two matching beliefs join
rises, and so does the premise a matching conclusion rests on, as far as it matches itself.
Only beliefs with a relevance of their own are ranked: the graph re-orders them, it does not
bring in what the question does not ask about. An OUT belief counts OUT_WEIGHT of what it
would count IN: it is shown when it bears on the question, after what holds. Ties go by id,
so the same graph and question always give the same order.

Ranking by meaning is refused (MissingEmbeddings) while a belief the ranking could reach has
no current embedding of the query's model (engine/embedding/upkeep.py): the faces compute
them or say what does, never a silent ranking by words alone.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from engine.embedding.cache import Embedder
from engine.embedding.records import VectorTx
from engine.embedding.upkeep import MissingEmbeddings
from engine.model import Truth
from engine.reading.query_words import content_words
from engine.reading.records import BeliefHit, SearchTx

# Smaller than the usual 60, so the first ranks stay apart (1/11 against 1/17 for the first
# and the seventh): the graph's lift then reorders close calls, not a belief the words
# single out (scripts/bench/retrieval_bench.py measured both).
RRF_K = 10
POOL = 100  # matches read from each index: the beliefs a ranking can place
SEEDS = 5  # the best matches whose neighbours in the graph gain from them
PROXIMITY = 0.5  # a belief one step from the best match gains half its own relevance
OUT_WEIGHT = 0.5  # an OUT belief's score, against the same belief IN


class RankingTx(SearchTx, VectorTx, Protocol):
    """What a ranking reads: full-text hits and the candidates' justification links
    (SearchTx), nearest vectors and the embedding backlog (VectorTx)."""


@dataclass(frozen=True)
class Meaning:
    """The question's embedding, computed before the read transaction (it is slow), and the
    model that made it; `checked`: refuse to rank while embeddings of that model are missing
    (every reader a person or an agent calls; the repair stage's bridges rank by what is
    stored, unchecked)."""

    vector: Sequence[float]
    model: str
    checked: bool = True


def meaning_of(embedder: Embedder | None, text: str) -> Meaning | None:
    """The Meaning of `text` by `embedder` (the one-method embedder), None without one."""
    if embedder is None:
        return None
    return Meaning(embedder.embed([text])[0], embedder.model_name)


@dataclass(frozen=True)
class Ranked:
    """One ranked belief: `relevance` its own (the fused ranks), `score` with the graph's
    proximity and its label weighed in; `near`: the seeds one justification step away."""

    belief: BeliefHit
    score: float
    relevance: float
    text_rank: int | None = None
    semantic_rank: int | None = None
    near: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return self.belief.id


@dataclass
class Ranking:
    """The ranked beliefs, best first, and the ids each one's justifications name (read to
    rank them; the bundle's provenance starts from them)."""

    ranked: list[Ranked] = field(default_factory=list)
    links: dict[str, frozenset[str]] = field(default_factory=dict)


def rank_in(tx: RankingTx, words: Sequence[str], *, meaning: Meaning | None = None,
            include_out: bool = False, pool: int = POOL) -> Ranking:
    """The beliefs that bear on `words` (and on `meaning`), best first; OUT ones only with
    `include_out`. At most `pool` from each index; fewer when fewer match."""
    if meaning is not None and meaning.checked:
        backlog = tx.embedding_backlog(meaning.model)
        if backlog.missing:
            raise MissingEmbeddings(backlog)
    looked_up = content_words(words)
    rankings: dict[str, list[BeliefHit]] = {"text": tx.search_text(looked_up, pool,
                                                                   include_out)}
    cosines: dict[str, float] = {}
    if meaning is not None:
        rankings["semantic"], cosines = _by_meaning(tx, meaning.vector, pool, include_out)
    best = max(cosines.values(), default=1.0)
    fused = fuse(rankings, {"semantic": {i: c / best for i, c in cosines.items()}})
    links = tx.justification_links(fused)
    return Ranking(_with_proximity(fused, links), links)


def _by_meaning(tx: RankingTx, vector: Sequence[float], pool: int, include_out: bool
                ) -> tuple[list[BeliefHit], dict[str, float]]:
    nearest = [(h, c) for h, c in tx.search_meaning(vector, pool, include_out)
               if c > 0.0]  # pointing the question's way
    return [h for h, _ in nearest], {h.id: c for h, c in nearest}


@dataclass
class Fused:
    """A belief's share of the fused rankings, and its place in each."""

    belief: BeliefHit
    relevance: float = 0.0
    ranks: dict[str, int] = field(default_factory=dict)


def fuse(rankings: Mapping[str, Sequence[BeliefHit]],
         weights: Mapping[str, Mapping[str, float]] | None = None) -> dict[str, Fused]:
    """Reciprocal rank fusion of named rankings (best first each), by belief id; a hit's
    share is weighed by `weights[name][id]` where given."""
    fused: dict[str, Fused] = {}
    for name, hits in rankings.items():
        weight = (weights or {}).get(name, {})
        for rank, hit in enumerate(hits, start=1):
            entry = fused.setdefault(hit.id, Fused(hit))
            entry.relevance += weight.get(hit.id, 1.0) / (RRF_K + rank)
            entry.ranks[name] = rank
    return fused


def _with_proximity(fused: Mapping[str, Fused], links: Mapping[str, frozenset[str]]
                    ) -> list[Ranked]:
    by_relevance = sorted(fused.values(), key=lambda e: (-e.relevance, e.belief.id))
    seeds = [e.belief.id for e in by_relevance[:SEEDS]]
    named = {i: links.get(i, frozenset()) for i in fused}
    ranked = []
    top = by_relevance[0].relevance if by_relevance else 1.0
    for e in by_relevance:
        bid = e.belief.id
        near = tuple(s for s in seeds if s != bid and (bid in named[s] or s in named[bid]))
        lift = PROXIMITY * sum(fused[s].relevance for s in near) / top
        weight = 1.0 if e.belief.truth == Truth.IN else OUT_WEIGHT
        ranked.append(Ranked(e.belief, weight * e.relevance * (1 + lift), e.relevance,
                             e.ranks.get("text"), e.ranks.get("semantic"), near))
    return sorted(ranked, key=lambda r: (-r.score, r.id))
