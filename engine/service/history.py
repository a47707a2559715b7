"""The change log and going back: log (and its prune, and following it), a belief's
history, diff, releases, rollback, revert, the changes since a seq."""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from engine import defaults
from engine.change_records import LogEntry, LogQuery, Touch
from engine.errors import InvalidInput
from engine.memory import changelog, history
from engine.memory.changelog import DiffRow
from engine.memory.history import Diff, Release, Restored
from engine.model import check_id
from engine.service.context import Context

DEFAULT_LOG_LIMIT = defaults.LOG_LIMIT
FOLLOW_INTERVAL = 0.2  # seconds between two looks at the log


@dataclass(frozen=True)
class LogOptions:
    """Which entries: since a time or a seq, after a seq, touching any of `ids`, of an
    operation, by an actor; at most `limit`, newest first."""

    since: str | None = None
    after: int | None = None
    ids: tuple[str, ...] = ()
    op: str | None = None
    actor: str | None = None
    limit: int | None = DEFAULT_LOG_LIMIT


@dataclass(frozen=True)
class Entries:
    entries: tuple[LogEntry, ...]

    def as_dict(self) -> dict[str, object]:
        return {"entries": [e.as_dict() for e in self.entries]}


def log(ctx: Context, options: LogOptions = LogOptions()) -> Entries:
    """The change log, newest first: who changed what, why, and the cascade."""
    for bid in options.ids:
        check_id(bid)
    at, seq = changelog.since_to_query(options.since)
    if options.after is not None and seq is not None:
        raise InvalidInput("give --since or --after, not both", field="after")
    query = LogQuery(since=at, after=options.after if options.after is not None else seq,
                     belief_id=options.ids[0] if options.ids else None, op=options.op,
                     actor=options.actor, limit=options.limit)
    if len(options.ids) <= 1:
        return Entries(tuple(changelog.log(ctx.store, query)))
    found: dict[int, LogEntry] = {}
    for bid in options.ids:  # any of several beliefs: one query each, merged
        for e in changelog.log(ctx.store, LogQuery(**{**query.__dict__, "belief_id": bid})):
            found[e.seq] = e
    ordered = sorted(found.values(), key=lambda e: e.seq, reverse=True)
    return Entries(tuple(ordered[:query.limit] if query.limit else ordered))


@dataclass(frozen=True)
class Pruned:
    pruned: int

    def as_dict(self) -> dict[str, object]:
        return {"pruned": self.pruned}


def prune(ctx: Context, before: str, *, force: bool = False) -> Pruned:
    """Delete the entries older than `before` (one transaction); refused below a release
    (history could not reach it) unless `force`."""
    cut, lowest = ctx.store.read(lambda tx: tx.prune_reach(changelog.check_time(
        before, what="--before")))
    if lowest is not None and cut is not None and cut > lowest[1] and not force:
        raise InvalidInput(
            f"log --prune --before {before} would cut entries up to seq {cut}, below release "
            f"{lowest[0]!r} (seq {lowest[1]}), which could then no longer be read back;"
            " add --force to prune anyway", field="before", value=before)
    return Pruned(changelog.prune(ctx.store, before))


def follow(ctx: Context, ids: Sequence[str] = (), *, interval: float = FOLLOW_INTERVAL,
           looks: int | None = None, ready: Callable[[int], None] | None = None
           ) -> Iterator[LogEntry]:
    """Each entry as it commits, from any writer, from now on (only those touching one of
    `ids` when given); `looks`: how many looks at the log (None: until the caller stops);
    `ready` is told the seq the following starts after, once it has read it."""
    for bid in ids:
        check_id(bid)
    wanted = set(ids)
    last = history.last_seq(ctx.store)
    if ready is not None:
        ready(last)
    looked = 0
    while looks is None or looked < looks:
        looked += 1
        found = history.changes_after(ctx.store, last)
        for e, touched in found:
            last = e.seq
            if not wanted or wanted & touched:
                yield e
        if not found:
            time.sleep(interval)


@dataclass(frozen=True)
class Since:
    """The entries after a seq, oldest first, and the seq to remember for next time."""

    entries: tuple[LogEntry, ...]
    last_seq: int

    def as_dict(self) -> dict[str, object]:
        return {"entries": [e.as_dict() for e in self.entries], "last_seq": self.last_seq}


def changes_since(ctx: Context, seq: int = 0, limit: int = 1000) -> Since:
    entries = changelog.changes_since(ctx.store, seq, limit)
    return Since(tuple(entries), entries[-1].seq if entries else seq)


@dataclass(frozen=True)
class BeliefHistory:
    """The change-log entries that touched a belief, oldest first, and what each did to it."""

    id: str
    items: tuple[tuple[LogEntry, Touch], ...]

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, "changes": [{**e.as_dict(ids=False), "did": list(t.did)}
                                           for e, t in self.items]}


def belief_history(ctx: Context, belief_id: str) -> BeliefHistory:
    if ctx.visible_to is not None:
        raise InvalidInput("--history reads the change log, which --visible-to cannot filter",
                           field="visible_to")
    return BeliefHistory(belief_id, tuple(changelog.history(ctx.store, belief_id)))


# --- diff -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DiffSince:
    """The older diff: beliefs whose label, text or justifications differ since then."""

    since: str
    rows: tuple[DiffRow, ...]

    def as_dict(self) -> dict[str, object]:
        return {"since": self.since, "beliefs": [r.as_dict() for r in self.rows]}


def diff_since(ctx: Context, since: str) -> DiffSince:
    return DiffSince(since, tuple(changelog.diff(ctx.store, since)))


def diff(ctx: Context, points: Sequence[str]) -> Diff:
    """What differs from the first point to the second (default now)."""
    if not points:
        raise InvalidInput("diff needs POINT [POINT] (or --since TIME|SEQ)", field="points")
    if len(points) > 2:
        raise InvalidInput("diff takes at most two points", field="points")
    return history.diff_points(ctx.store, points[0], points[1] if len(points) > 1 else None)


# --- releases, rollback, revert ------------------------------------------------------------------
def release(ctx: Context, name: str, at: str | None = None, note: str = "") -> Release:
    """Name a point of the log (log --prune will not cut below it)."""
    return history.make_release(ctx.store, name, at, note)


@dataclass(frozen=True)
class Releases:
    releases: tuple[Release, ...]

    def as_dict(self) -> dict[str, object]:
        return {"releases": [r.as_dict() for r in self.releases]}


def releases(ctx: Context) -> Releases:
    return Releases(tuple(history.releases(ctx.store)))


def rollback(ctx: Context, point: str, reason: str = "", *, dry_run: bool = False
             ) -> Restored:
    """ONE write setting every definition back to what it was at `point` (what it would
    change, nothing written, with `dry_run`)."""
    if not point:
        raise InvalidInput("rollback needs --to POINT", field="to")
    return history.rollback(ctx.store, point, reason, dry_run=dry_run)


def revert(ctx: Context, seq: int, reason: str = "") -> Restored:
    """Invert one change, when no later change touched what it changed."""
    return history.revert(ctx.store, seq, reason)
