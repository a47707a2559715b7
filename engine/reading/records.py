"""The store verbs that reading the memory needs (`compact`, `ask`, `summarize`, impact):
a protocol of their own, beside engine/store.py's, so the TMS core stays small.

adapters/neo4j/reading_tx.py implements it in Cypher (cypher/reading/compact.cypher): every
section is ordered and cut in the database, so `compact` reads a few hundred rows whatever
the size of the network.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol


class Section(StrEnum):
    """The sections of `compact`, in the order they are printed (and fill the budget)."""

    NOGOODS = "nogoods"
    CHANGES = "changes"
    GATED = "gated"
    PREMISES = "premises"
    DEEPEST = "deepest"
    DEFEATED = "defeated"


@dataclass(frozen=True)
class Row:
    """One belief (or nogood) as a section lists it; `note` says why it is there."""

    id: str
    text: str
    truth: str  # IN, OUT, UNDETERMINED; for a nogood: holds, resolved, open
    depth: int | None
    note: str = ""


@dataclass(frozen=True)
class SectionRows:
    """The first rows of a section, and how many the whole section has."""

    total: int
    rows: tuple[Row, ...] = ()
    source: str = ""  # for CHANGES: "change log" or "retractions"


@dataclass(frozen=True)
class SummaryCover:
    """An IN summary belief and the beliefs it stands for."""

    id: str
    text: str
    depth: int | None
    covered: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class NetworkCounts:
    beliefs: int
    in_: int
    out: int
    nogoods: int


@dataclass(frozen=True)
class VisibleNetwork:
    """What a client with a visibility set sees of the whole network (engine/agents/visibility.py):
    the ids of its beliefs, how many of them are IN, and the nogoods with only such members."""

    ids: frozenset[str]
    in_count: int
    nogoods: int


class ReadingTx(Protocol):
    def section_rows(self, section: Section, scope: Sequence[str] | None, limit: int
                     ) -> SectionRows:
        """The first `limit` rows of `section` in its order (scope None: the network)."""

    def summary_covers(self, scope: Sequence[str] | None) -> list[SummaryCover]:
        """Every IN summary belief whose cover meets the scope, by id."""

    def impacts(self, ids: Iterable[str], visible_to: frozenset[str] | None = None
                ) -> dict[str, int]:
        """For each id that exists: how many beliefs rest on it transitively (with
        `visible_to`: how many of those a client with that visibility set sees)."""

    def topic_ids(self, words: Sequence[str], limit: int) -> list[str]:
        """Up to `limit` belief ids (any label) matching any of `words`, best first."""

    def around_ids(self, belief_id: str, steps: int) -> list[str] | None:
        """The belief and every belief within `steps` justification steps of it, up and
        down; None when it does not exist."""

    def network_counts(self) -> NetworkCounts: ...

    def visible_network(self, visible_to: frozenset[str]) -> VisibleNetwork: ...

    def mark_summary(self, belief_id: str) -> bool:
        """Label the belief a summary (:Summary); False when it does not exist."""


def cover_index(covers: Sequence[SummaryCover]) -> dict[str, SummaryCover]:
    """Covered id -> the summary standing for it (the smallest summary id when several)."""
    index: dict[str, SummaryCover] = {}
    for cover in sorted(covers, key=lambda c: c.id, reverse=True):
        for covered in cover.covered:
            index[covered] = cover
    return index
