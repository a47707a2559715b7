"""The change log: one (:Change) entry per committed write transaction, who and why.

The store appends the entry itself, inside the write transaction it describes, numbered by
the write lock (so `seq` has no gaps and no repeats); callers say what the write is with a
`ChangeEntry`. The log is outside the network: labels, verify and export never read it.
This module holds the records and the reads over the log (log, history, diff, prune).
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Generic, TypeVar

from engine.change_records import (
    BY_NOGOOD,
    CREATED,
    DEFINED,
    PINNED,
    WENT_IN,
    WENT_OUT,
    ChangeEntry,
    ChangeLog,
    LogEntry,
    LogQuery,
    Touch,
)
from engine.clock import now_iso_ms
from engine.errors import InvalidInput
from engine.model import Belief, Truth, check_id
from engine.store import Store
from engine.tms.records import ResolutionTx

T = TypeVar("T")
TxT = TypeVar("TxT")

__all__ = ["BY_NOGOOD", "CREATED", "DEFINED", "PINNED", "WENT_IN", "WENT_OUT", "ChangeEntry",
           "LogEntry", "LogQuery", "Touch"]

@dataclass(frozen=True)
class DiffRow:
    """A belief that differs between then and now: its truth then and now (None: absent) and
    whether its definition (text and justifications) changed."""

    id: str
    then: Truth | None
    now: Truth | None
    definition: str  # "added" | "removed" | "changed" | ""

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, "then": self.then.value if self.then else None,
                "now": self.now.value if self.now else None, "definition": self.definition}


def definition_sha(b: Belief) -> str:
    """The sha256 of what a belief says: its text and its justifications in order."""
    shape = [b.text, [[j.kind.value, list(j.antecedents), list(j.outlist), j.gate]
                      for j in b.justifications]]
    return hashlib.sha256(json.dumps(shape, ensure_ascii=False).encode("utf-8")).hexdigest()


now_utc = now_iso_ms  # the engine's clock (engine/clock.py), to the millisecond


def check_time(text: str, *, what: str = "time") -> str:
    """An ISO 8601 time (a date alone is midnight UTC), normalised to UTC for comparison."""
    try:
        value = datetime.fromisoformat(text.strip())
    except (ValueError, AttributeError):
        raise InvalidInput(f"{what} {text!r} is not an ISO 8601 time (2026-12-03 or "
                           "2026-12-03T14:00:00+00:00)", field=what, value=text) from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat(timespec="milliseconds")


def since_to_query(since: str | None) -> tuple[str | None, int | None]:
    """`--since TIME|SEQ`: a whole number is a seq (entries after it), else a time."""
    if since is None:
        return None, None
    if re.fullmatch(r"\d+", since.strip()):
        return None, int(since)
    return check_time(since, what="--since"), None


# --- reads ---------------------------------------------------------------------------
def log(store: Store[ChangeLog], query: LogQuery) -> list[LogEntry]:
    """Entries newest first, filtered by `query`."""
    if query.belief_id:
        check_id(query.belief_id)
    if query.limit is not None and query.limit < 1:
        raise InvalidInput("--limit must be at least 1", field="limit", value=query.limit)
    return store.read(lambda tx: tx.change_entries(query))


def changes_since(store: Store[ChangeLog], seq: int, limit: int = 1000) -> list[LogEntry]:
    """Entries after `seq`, oldest first: what an agent missed since its last session."""
    if seq < 0:
        raise InvalidInput("seq must be 0 or more", field="seq", value=seq)
    entries = store.read(lambda tx: tx.change_entries(LogQuery(after=seq, limit=limit,
                                                               oldest_first=True)))
    return entries


def history(store: Store[ChangeLog], belief_id: str) -> list[tuple[LogEntry, Touch]]:
    """The changes that touched a belief, oldest first, each with what it did to it."""
    check_id(belief_id)
    return store.read(lambda tx: tx.belief_history(belief_id))


def diff(store: Store[ResolutionTx], since: str) -> list[DiffRow]:
    """Beliefs whose label, text or justifications differ between `since` (a time, or a seq:
    the state after that change) and now, computed from the log's first touch of each."""
    at, after = since_to_query(since)

    def work(tx) -> list[DiffRow]:
        start = after if after is not None else tx.seq_before(at)
        touches, removed = tx.touches_after(start)
        redefined = {i for i, ts in touches.items() if any(DEFINED in t.did for t in ts)}
        full = tx.get_beliefs(redefined)
        # the others need only their label now: a light read, not their justifications
        now = {i: full.get(i) or Belief(i, "", truth=t)
               for i, t in tx.truths(set(touches) | set(removed)).items()}
        return _diff_rows(touches, removed, now)

    return store.read(work)


def _diff_rows(touches: Mapping[str, Sequence[Touch]], removed: Mapping[str, bool],
               now: Mapping[str, Belief]) -> list[DiffRow]:
    rows: list[DiffRow] = []
    for bid in sorted(set(touches) | set(removed)):
        seen = sorted(touches.get(bid, ()), key=lambda t: t.seq)
        current = now.get(bid)
        created_after = (removed.get(bid, False) if not seen
                         else CREATED in seen[0].did)
        now_truth = current.truth if current else None
        if created_after:
            if current is not None:
                rows.append(DiffRow(bid, None, now_truth, "added"))
            continue
        then_in = _then_in(seen, current)
        then = Truth.IN if then_in else Truth.OUT
        if current is None:
            rows.append(DiffRow(bid, then, None, "removed"))
            continue
        was = next((t.was for t in seen if DEFINED in t.did), None)
        changed = was is not None and was != definition_sha(current)
        if changed or then_in != (now_truth == Truth.IN):
            rows.append(DiffRow(bid, then, now_truth, "changed" if changed else ""))
    return rows


def _then_in(seen: Sequence[Touch], current: Belief | None) -> bool:
    for t in seen:
        if WENT_IN in t.did:
            return False
        if WENT_OUT in t.did:
            return True
    return current is not None and current.truth == Truth.IN


def prune(store: Store[ChangeLog], before: str) -> int:
    """Drop the entries older than `before`, in one write transaction; how many went."""
    cutoff = check_time(before, what="--before")
    return store.write(lambda tx: tx.prune_changes(cutoff),
                       ChangeEntry("log-prune", {"before": cutoff}))


# --- who a server's call is by ---------------------------------------------------------
class ActingStore(Generic[TxT]):
    """A store whose writes are by `actor` when the entry names no actor of its own (a
    server's per-call actor: the MCP client's name and token label)."""

    def __init__(self, store: Store[TxT], actor: str) -> None:
        self._store = store
        self._actor = actor

    def init_schema(self) -> dict[str, int]:
        return self._store.init_schema()

    def read(self, work: Callable[[TxT], T]) -> T:
        return self._store.read(work)

    def write(self, work: Callable[[TxT], T], entry: ChangeEntry | None = None) -> T:
        said = entry or ChangeEntry("write")
        return self._store.write(work, said if said.actor else
                                 dataclasses.replace(said, actor=self._actor))

    def dry_run(self, work: Callable[[TxT], T]) -> T:
        return self._store.dry_run(work)

    def close(self) -> None:
        self._store.close()
