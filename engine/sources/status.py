"""`python -m engine sources status|stale [--retract]`: forge's staleness
(engine/sources/staleness.py) for every belief with a FROM edge to a source file, whoever
added it (forge, `add --source`, `sources hash`).

Per belief: its file unchanged; changed with the quote still at lines a-b; changed with the
quote moved to lines c-d; changed with the quote gone (or no quote to look for); the file
missing or unreadable. `--retract` brings them up to date in ONE transaction: the sources
that changed are reconciled as forge reconciles them (engine/sources/staleness.reconcile_in: a
quote still in the file is re-pinned, new hash and lines; the others are retracted, reason
`source changed: <path>`), the beliefs of a missing or unreadable file are retracted, and what
rested on them goes OUT by propagation, nogoods included.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from engine.change_records import ChangeEntry
from engine.model import Belief, Change
from engine.sources.reader import SourceReader, SourceText
from engine.sources.staleness import (
    CHANGED_REASON,
    MISSING,
    MISSING_REASON,
    StaleBelief,
    reconcile_in,
    stale_beliefs,
)
from engine.store import GraphTx, SourceRecords, Store
from engine.tms.kernel import enforce_nogoods

UNCHANGED, STILL, MOVED, GONE, FILE_MISSING, UNREADABLE = (
    "unchanged", "still", "moved", "gone", "missing", "unreadable")


def _span(lines: tuple[int, ...] | None) -> str:
    return f"{lines[0]}-{lines[-1]}" if lines else "?"


@dataclass(frozen=True)
class SourcedRow:
    id: str
    text: str
    path: str
    truth: str
    quote: str
    lines: tuple[int, ...]
    state: str  # unchanged | still | moved | gone | missing | unreadable
    new_lines: tuple[int, int] | None = None
    detail: str = ""  # why a file is unreadable
    repinned: bool = False

    @property
    def now(self) -> str:
        if self.state == UNCHANGED:
            return f"unchanged, lines {_span(self.lines)}"
        if self.state in (STILL, MOVED):
            where = (f"quote still at lines {_span(self.new_lines)}" if self.state == STILL
                     else f"quote moved to lines {_span(self.new_lines)}")
            return where + (" (re-pinned)" if self.repinned else "")
        if self.state == GONE:
            return "quote gone" if self.quote else "file changed, no quote to look for"
        if self.state == FILE_MISSING:
            return "file missing"
        return f"unreadable: {self.detail}"

    @property
    def stale(self) -> bool:
        return self.state != UNCHANGED

    def as_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["lines"] = list(self.lines)
        d["new_lines"] = list(self.new_lines) if self.new_lines else None
        d["now"] = self.now
        return d


def _from_stale(s: StaleBelief) -> SourcedRow:
    if s.source_status == MISSING:
        state, detail = FILE_MISSING, ""
    elif s.now.startswith("unreadable"):
        state, detail = UNREADABLE, s.now.removeprefix("unreadable: ")
    elif s.new_lines is None:
        state, detail = GONE, ""
    else:
        state, detail = (STILL if tuple(s.new_lines) == tuple(s.old_lines) else MOVED), ""
    return SourcedRow(s.id, s.text, s.path, s.truth, s.quote, s.old_lines, state,
                      s.new_lines, detail)


def _unchanged(b: Belief) -> SourcedRow:
    lines = tuple(int(x) for x in (b.metadata.get("lines") or ()))
    return SourcedRow(b.id, b.text, b.source, b.truth.value if b.truth else "?",
                      str(b.metadata.get("quote") or ""), lines, UNCHANGED)


def sourced_status(store: Store, reader: SourceReader) -> list[SourcedRow]:
    """Every belief drawn from a source file, against the file as it is now, by id."""
    stale = {s.id: _from_stale(s) for s in stale_beliefs(store, reader)}

    def read(tx: SourceRecords) -> list[Belief]:
        return tx.beliefs_from_sources([s.path for s in tx.sources()])

    rows = [stale.get(b.id) or _unchanged(b) for b in store.read(read)]
    return sorted(rows, key=lambda r: r.id)


def stale_sourced(store: Store, reader: SourceReader) -> list[SourcedRow]:
    """The beliefs whose file changed or is gone, by id."""
    return sorted((_from_stale(s) for s in stale_beliefs(store, reader)), key=lambda r: r.id)


@dataclass
class Retracted:
    rows: list[SourcedRow] = field(default_factory=list)
    repinned: list[str] = field(default_factory=list)
    retracted: list[str] = field(default_factory=list)
    change: Change = field(default_factory=Change)

    def as_dict(self) -> dict[str, Any]:
        return {"stale": [r.as_dict() for r in self.rows], "repinned": self.repinned,
                "retracted": self.retracted, "change": self.change.as_dict()}


def retract_stale_sourced(store: Store, reader: SourceReader, *, at: str) -> Retracted:
    """Re-pin what still stands in its changed file, retract the rest, in one transaction."""

    rows = stale_sourced(store, reader)
    if not rows:
        return Retracted()
    texts: dict[str, SourceText] = {}
    for path in sorted({r.path for r in rows if r.state in (STILL, MOVED, GONE)}):
        got = reader.read(path)
        if isinstance(got, SourceText):
            texts[path] = got
    lost = {r.path: (MISSING_REASON if r.state == FILE_MISSING else CHANGED_REASON)
            for r in rows if r.path not in texts}

    def work(tx: GraphTx) -> Retracted:
        out = Retracted()
        for path in sorted(texts):
            done = reconcile_in(tx, texts[path], at=at)
            out.repinned += [i for i, _ in done.kept]
            out.retracted += done.retracted
            out.change = out.change.merge(done.change)
        seeds: list[str] = []
        for path, reason in sorted(lost.items()):
            ids = [r.id for r in rows if r.path == path]
            todo = [i for i, b in sorted(tx.get_beliefs(ids).items()) if not b.retracted]
            if todo:
                tx.set_pins(todo, retracted=True, asserted=False, reason=reason + path, at=at)
                seeds += todo
        if seeds:
            out.change = out.change.merge(enforce_nogoods(tx, tx.relabel(seeds)))
            out.retracted += seeds
        return out

    done = store.write(work, ChangeEntry(
        "sources-stale-retract", {"changed": sorted(texts), "lost": sorted(lost)},
        "source files changed or gone since their beliefs were pinned"))
    kept = set(done.repinned)
    done.rows = [dataclasses.replace(r, repinned=r.id in kept) for r in rows]
    done.retracted = sorted(done.retracted)
    done.repinned = sorted(done.repinned)
    return done
