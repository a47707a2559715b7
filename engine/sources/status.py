"""`python -m engine sources status|stale [--retract]`: every sourced belief against its
file as it is now, each on its own pin (engine/sources/staleness.py).

Two kinds of sourced beliefs are checked:
- pinned ones (a FROM edge: forge, `add --source`, `sources hash`): unchanged; `still` (the
  file changed elsewhere: its quote, or without one its lines, still read as pinned);
  `moved`; `gone`; the file `missing` or `unreadable`;
- hash-only ones (a `source` and a `source_hash` and no FROM edge: what ftl-reasons and
  reasonsforge record, the sha256 of the whole file, checked as their `check-stale` does):
  unchanged, or `changed` (their `content_changed`), or `missing` (their `source_deleted`).

`--retract` brings them up to date in ONE transaction: re-pin what still stands, retract
what is gone or changed (`source changed: <path>`), restore what a source change had taken
down and stands again; the beliefs of a missing file are listed apart and retracted only
with `missing` (`source missing: <path>`). A retraction that would take more than
OUT_LIMIT beliefs OUT is shown as a what-if (nothing written) unless `yes`.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from engine import defaults
from engine.change_records import ChangeEntry
from engine.model import Belief, Change, Truth
from engine.sources.reader import SourceReader, WholeFileHashes
from engine.sources.staleness import (
    CHANGED,
    FILE_MISSING,
    GONE,
    MISSING,
    MOVED,
    STILL,
    UNCHANGED,
    UNREADABLE,
    StaleBelief,
    bring_up_to_date_in,
    pinned_states,
    texts_of,
)
from engine.store import GraphTx, Store

OUT_LIMIT = defaults.SOURCES_OUT_LIMIT
PINNED, HASH = "pinned", "hash"
CONTENT_CHANGED, SOURCE_DELETED = "content_changed", "source_deleted"
SHORT_HASH = 16  # their older releases kept the first 16 hex digits


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
    state: str  # unchanged | still | moved | gone | changed | missing | unreadable
    new_lines: tuple[int, int] | None = None
    detail: str = ""  # why a file is unreadable
    repinned: bool = False  # by `stale --retract`
    retracted: bool = False  # by `stale --retract`
    kind: str = PINNED  # pinned (FROM edge, lines) | hash (the whole file's sha256 only)

    @property
    def reason(self) -> str:
        """Their word for it: content_changed or source_deleted ("" while it stands)."""
        if self.state == FILE_MISSING:
            return SOURCE_DELETED
        return CONTENT_CHANGED if self.state in (MOVED, GONE, CHANGED) else ""

    @property
    def now(self) -> str:
        done = " (re-pinned)" if self.repinned else " (retracted)" if self.retracted else ""
        return self._found() + done

    def _found(self) -> str:
        if self.state == UNCHANGED:
            return (f"unchanged, lines {_span(self.lines)}" if self.kind == PINNED
                    else "unchanged (whole file)")
        if self.state == STILL:
            return "lines unchanged (the file changed elsewhere)"
        if self.state == MOVED:
            what = "quote" if self.quote else "lines"
            return f"{what} moved to lines {_span(self.new_lines)}"
        if self.state == GONE:
            return "quote gone" if self.quote else "lines changed"
        if self.state == CHANGED:
            return "content_changed: the file's sha256 is not the one recorded"
        if self.state == FILE_MISSING:
            return "source_deleted: no file there" if self.kind == HASH else "file missing"
        return f"unreadable: {self.detail}"

    @property
    def stale(self) -> bool:
        return self.state not in (UNCHANGED, STILL)

    def as_dict(self) -> dict[str, object]:
        d = dataclasses.asdict(self)
        d["lines"] = list(self.lines)
        d["new_lines"] = list(self.new_lines) if self.new_lines else None
        d["now"], d["reason"], d["stale"] = self.now, self.reason, self.stale
        return d


def _pinned_row(s: StaleBelief) -> SourcedRow:
    detail = s.now.removeprefix("unreadable: ") if s.state == UNREADABLE else ""
    return SourcedRow(s.id, s.text, s.path, s.truth, s.quote, s.old_lines, s.state,
                      s.new_lines, detail)


def _hash_state(b: Belief, hashes: WholeFileHashes) -> str:
    now = hashes.sha256(b.source)
    if now is None:
        return FILE_MISSING
    same = now == b.source_hash or (len(b.source_hash) == SHORT_HASH
                                    and now.startswith(b.source_hash))
    return UNCHANGED if same else CHANGED


def _hash_only(store: Store, hashes: WholeFileHashes | None) -> list[tuple[Belief, str]]:
    if hashes is None:
        return []
    beliefs = store.read(lambda tx: tx.get_beliefs(tx.hashed_unpinned_ids()))
    return [(b, _hash_state(b, hashes)) for _, b in sorted(beliefs.items())]


def _hash_row(b: Belief, state: str) -> SourcedRow:
    return SourcedRow(b.id, b.text, b.source, b.truth.value if b.truth else "?", "", (),
                      state, kind=HASH)


@dataclass
class Checked:
    """Every sourced belief's state, and what the transaction needs of them."""

    rows: list[SourcedRow]
    states: list[StaleBelief]  # in the form bring_up_to_date_in takes


def check_sources(store: Store, reader: SourceReader, hashes: WholeFileHashes | None = None
                  ) -> Checked:
    pinned = pinned_states(store, reader)
    rows = [_pinned_row(s) for s in pinned]
    states = list(pinned)
    for b, state in _hash_only(store, hashes):
        rows.append(_hash_row(b, state))
        as_pin = {CHANGED: GONE}.get(state, state)  # a changed whole file: nothing stands
        states.append(StaleBelief(b.id, b.text, b.source,
                                  MISSING if state == FILE_MISSING else CHANGED,
                                  rows[-1].truth, "", (), rows[-1].now, None, as_pin,
                                  b.retract_reason))
    return Checked(sorted(rows, key=lambda r: r.id), states)


def sourced_status(store: Store, reader: SourceReader,
                   hashes: WholeFileHashes | None = None) -> list[SourcedRow]:
    """Every belief drawn from a source file, against the file as it is now, by id."""
    return check_sources(store, reader, hashes).rows


def stale_sourced(store: Store, reader: SourceReader,
                  hashes: WholeFileHashes | None = None) -> list[SourcedRow]:
    """The beliefs whose own lines or quote no longer read as pinned, whose whole file
    changed, or whose file is gone, by id."""
    return [r for r in sourced_status(store, reader, hashes) if r.stale]


@dataclass
class Retracted:
    rows: list[SourcedRow] = field(default_factory=list)
    repinned: list[str] = field(default_factory=list)
    retracted: list[str] = field(default_factory=list)
    restored: list[str] = field(default_factory=list)
    left_missing: list[str] = field(default_factory=list)  # a missing file's, without --missing
    change: Change = field(default_factory=Change)
    written: bool = True  # False: a what-if over OUT_LIMIT that needs confirming

    def as_dict(self) -> dict[str, object]:
        return {"stale": [r.as_dict() for r in self.rows], "repinned": self.repinned,
                "retracted": self.retracted, "restored": self.restored,
                "left_missing": self.left_missing, "change": self.change.as_dict(),
                "written": self.written}


def retract_stale_sourced(store: Store, reader: SourceReader,
                          hashes: WholeFileHashes | None = None, *, at: str,
                          missing: bool = False, yes: bool = False) -> Retracted:
    """Re-pin what still stands, retract what is gone, restore what stands again, in one
    transaction; a missing file's beliefs only with `missing`. Over OUT_LIMIT beliefs going
    OUT without `yes`: the what-if, nothing written."""
    checked = check_sources(store, reader, hashes)
    texts = texts_of(reader, checked.states)

    def work(tx: GraphTx) -> Retracted:
        done = bring_up_to_date_in(tx, checked.states, texts, at=at, missing=missing)
        return Retracted([r for r in checked.rows if r.stale], sorted(done.repinned),
                         done.retracted, sorted(done.restored), sorted(done.left_missing),
                         done.change)

    if not yes:
        preview = store.dry_run(work)
        if len(preview.change.went_out) > OUT_LIMIT:
            preview.written = False
            return preview
    done = store.write(work, ChangeEntry(
        "sources-stale-retract", {"missing": missing, "stale": sum(r.stale for r in checked.rows)},
        "source files changed or gone since their beliefs were pinned"))
    kept, gone = set(done.repinned), set(done.retracted)
    went_in, went_out = set(done.change.went_in), set(done.change.went_out)
    done.rows = [dataclasses.replace(r, repinned=r.id in kept, retracted=r.id in gone,
                                     truth=_truth_after(r.truth, r.id, went_in, went_out))
                 for r in done.rows]
    return done


def _truth_after(truth: str, bid: str, went_in: set[str], went_out: set[str]) -> str:
    if bid in went_out:
        return Truth.OUT.value
    return Truth.IN.value if bid in went_in else truth
