"""The change log's records: what a write says about itself, entries read back, and the
ChangeLog protocol (the log seen from a transaction), shared by the kernel, engine/store.py
and engine/memory/changelog.py (the reads over the log). adapters/neo4j/change_tx.py
implements it in Cypher.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

from engine.model import Truth

# What a change did to one belief, kept on its TOUCHED edge.
CREATED, DEFINED, PINNED = "created", "defined", "pinned"
WENT_IN, WENT_OUT, BY_NOGOOD = "went_in", "went_out", "retracted_by_nogood"


@dataclass(frozen=True)
class ChangeEntry:
    """What a write is, said by its caller: the operation, its arguments, the reason; the
    actor when the write is not the entry point's (a stage round: its run id)."""

    op: str
    args: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    reason: str = ""
    actor: str = ""
    # the write empties the network (reset): the one writer an import in parts' mark lets
    # through, the way out of an import that stopped part-way; it clears the mark
    empties: bool = False


@dataclass(frozen=True)
class LogEntry:
    """One (:Change) as read back, with the ids of its cascade."""

    seq: int
    at: str
    actor: str
    op: str
    args: Mapping[str, Any]
    reason: str
    went_in: tuple[str, ...] = ()
    went_out: tuple[str, ...] = ()
    retracted_by_nogood: tuple[str, ...] = ()
    created: tuple[str, ...] = ()
    defined: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()

    def as_dict(self, ids: bool = True) -> dict[str, object]:
        out: dict[str, Any] = {"seq": self.seq, "at": self.at, "actor": self.actor,
                               "op": self.op, "args": dict(self.args), "reason": self.reason}
        for name in ("went_in", "went_out", "retracted_by_nogood", "created", "defined",
                     "removed"):
            values = getattr(self, name)
            out[name] = list(values) if ids else len(values)
        return out


@dataclass(frozen=True)
class Touch:
    """What change `seq` did to one belief; `was` is the definition sha before a redefinition."""

    seq: int
    did: tuple[str, ...]
    was: str = ""


@dataclass(frozen=True)
class LogQuery:
    """Which entries `change_entries` returns; all None: every entry, newest first."""

    since: str | None = None  # entries at or after this UTC time
    after: int | None = None  # entries with seq > after
    belief_id: str | None = None  # entries that touched this belief
    op: str | None = None
    actor: str | None = None
    limit: int | None = None
    oldest_first: bool = False


class ChangeLog(Protocol):
    """The change log seen from a transaction (engine/memory/changelog.py). The store appends
    the entry of each write itself, after `work`; these are what the engine adds and reads."""

    def actor(self) -> str:
        """Who this write is by (the entry point's actor, or the entry's)."""

    def note_retracted_by_nogood(self, ids: Sequence[str]) -> None:
        """Say, for this write's entry, that nogood resolution retracted these beliefs."""

    def change_entries(self, query: LogQuery) -> list[LogEntry]: ...

    def belief_history(self, belief_id: str) -> list[tuple[LogEntry, Touch]]:
        """The entries that touched the belief, oldest first, with what each did to it."""

    def seq_before(self, at: str | None) -> int:
        """The seq of the last entry before time `at` (0: none)."""

    def touches_after(self, seq: int) -> tuple[dict[str, list[Touch]], dict[str, bool]]:
        """Every touch of a belief by an entry after `seq`, by belief id; and the ids the
        entries after `seq` removed, each with whether one of them had created it."""

    def prune_changes(self, before: str) -> int:
        """Delete the entries older than `before`; how many."""

    def truths(self, ids: Iterable[str]) -> dict[str, Truth]:
        """The current label of each named belief that exists (a light read for diff)."""
