"""The change log's records: what a write says about itself, and entries read back.

Plain frozen dataclasses shared by engine/store.py (the ChangeLog protocol) and
engine/memory/changelog.py (the reads over the log).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

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

    def as_dict(self, ids: bool = True) -> dict[str, Any]:
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
