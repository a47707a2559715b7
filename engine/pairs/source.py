"""Where dedup's clusters and contradictions' pairs come from: the neighbour pairs among the
IN beliefs (by meaning, or by id tokens), found once per run and filtered on every call by
what the store says now; and whether beliefs judged with some text hashes are still what
was judged."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from engine.embedding.cache import Embedder, VectorCache, text_sha256
from engine.embedding.records import NEAR_DUPLICATE_COSINE, NEAR_DUPLICATE_JACCARD, VectorTx
from engine.errors import InvalidInput
from engine.model import Truth
from engine.pairs.candidates import (
    SEARCHES,
    Pair,
    current_verdicts,
    embedding_pairs,
    id_token_pairs,
    unjudged,
)
from engine.pairs.records import PairRecords
from engine.store import Store
from engine.tms.records import TmsTx

DEFAULT_ID_THRESHOLD = NEAR_DUPLICATE_JACCARD  # id-token Jaccard, for --by-id
DEFAULT_K = 10  # nearest neighbours looked at per belief


class Nearness(Protocol):
    """How near two beliefs must be to pair: `cutoff` (cosine, or id-token Jaccard with
    `by_id`), each belief's `k` best, and how the vectors are searched."""

    @property
    def by_id(self) -> bool: ...

    @property
    def k(self) -> int: ...

    @property
    def search(self) -> str: ...

    @property
    def cutoff(self) -> float: ...


@dataclass(frozen=True)
class Near:
    """A Nearness of its own (contradictions'); `threshold` None: `by_meaning` (cosine), or
    DEFAULT_ID_THRESHOLD with `by_id`."""

    threshold: float | None = None
    k: int = DEFAULT_K
    by_id: bool = False
    search: str = "auto"
    by_meaning: float = NEAR_DUPLICATE_COSINE

    @property
    def cutoff(self) -> float:
        if self.threshold is not None:
            return self.threshold
        return DEFAULT_ID_THRESHOLD if self.by_id else self.by_meaning

    def check(self) -> Near:
        check_nearness(self)
        return self


def check_nearness(near: Nearness) -> None:
    """InvalidInput naming the flag of a value out of range."""
    low = 0.0 if near.by_id else -1.0
    if not low < near.cutoff <= 1.0:
        raise InvalidInput(f"--threshold must be in ({low:g}, 1], not {near.cutoff:g}",
                           field="threshold", value=near.cutoff)
    if near.search not in SEARCHES:
        raise InvalidInput(f"--search is one of {', '.join(SEARCHES)}, not {near.search!r}",
                           field="search", value=near.search)
    if near.k < 1:
        raise InvalidInput(f"--k must be at least 1, not {near.k}", field="k", value=near.k)


class CandidateTx(PairRecords, VectorTx, Protocol):
    """What candidate pairs are read through: the IN beliefs' texts and the verdicts given
    (PairRecords), their embeddings (VectorTx)."""


@dataclass
class CandidateSource:
    """Neighbour pairs among the IN beliefs, computed once per run (the expensive part) and
    filtered by what the store says now on every call; `stage`: whose verdicts count as
    judged."""

    options: Nearness
    embedder: Embedder | None = None
    cache: VectorCache | None = None
    progress: Callable[[int, int], None] | None = None
    stage: str = "dedup"
    _pairs: list[Pair] | None = field(default=None, init=False)

    def pairs(self, store: Store[VectorTx], pool: Sequence[tuple[str, str]]) -> list[Pair]:
        if self._pairs is None:
            if self.options.by_id:
                self._pairs = id_token_pairs([i for i, _ in pool], threshold=self.options.cutoff,
                                             k=self.options.k)
            else:
                if self.embedder is None:
                    raise InvalidInput("candidates by meaning need an embedder; use --by-id "
                                       "for a network without embeddings", field="by_id")
                self._pairs = embedding_pairs(store, self.embedder, pool,
                                              threshold=self.options.cutoff, k=self.options.k,
                                              search=self.options.search, cache=self.cache,
                                              progress=self.progress)
        return self._pairs

    def open_pairs(self, store: Store[CandidateTx]) -> tuple[list[Pair], dict[str, str]]:
        """The pairs of IN beliefs not judged on their current texts, and every IN belief's
        text sha256."""
        pool = store.read(lambda tx: tx.in_belief_texts())
        shas = {i: text_sha256(t) for i, t in pool}
        pairs = self.pairs(store, pool)
        judged = current_verdicts(store.read(lambda tx: tx.pair_verdicts(self.stage)), shas)
        live = [p for p in unjudged(pairs, judged) if p.a in shas and p.b in shas]
        return live, shas


def stale_member(tx: TmsTx, members: Sequence[str], shas: Sequence[str]) -> str:
    """Why beliefs judged with these text hashes are no longer what was judged ("" if none)."""
    beliefs = tx.get_beliefs(members)
    for i, sha in zip(members, shas):
        b = beliefs.get(i)
        if b is None:
            return f"`{i}` no longer exists"
        if b.truth != Truth.IN:
            return f"`{i}` is no longer IN"
        if text_sha256(b.text) != sha:
            return f"the text of `{i}` changed since it was judged"
    return ""
