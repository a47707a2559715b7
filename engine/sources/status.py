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
from collections.abc import Iterable
from dataclasses import dataclass, field

from engine import defaults
from engine.change_records import ChangeEntry
from engine.model import Belief, Change, Truth
from engine.sources.reader import SourceReader, WholeFileHashes
from engine.sources.revisions import CLEAN, COMMIT, FileChange, Revisions, follow
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
    StalenessTx,
    agent_of,
    bring_up_to_date_in,
    pin_commit,
    pinned_states,
    texts_of,
)
from engine.store import Store

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
    new_path: str = ""  # a renamed file's path now, as git followed it
    uncommitted: bool = False  # pinned in a git work tree to text no commit holds
    by_git: bool = False  # followed through the diff from the pin's commit

    @property
    def reason(self) -> str:
        """Their word for it: content_changed or source_deleted ("" while it stands)."""
        if self.state == FILE_MISSING:
            return SOURCE_DELETED
        return CONTENT_CHANGED if self.state in (MOVED, GONE, CHANGED) else ""

    @property
    def now(self) -> str:
        done = " (re-pinned)" if self.repinned else " (retracted)" if self.retracted else ""
        said = "; pinned to uncommitted text" if self.uncommitted else ""
        return self._found() + said + done

    def _found(self) -> str:
        if self.by_git:
            return self._followed()
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

    def _followed(self) -> str:
        renamed = f"renamed to {self.new_path}, " if self.new_path else ""
        if self.state == STILL:
            return "lines unchanged (git diff: the file changed elsewhere)"
        if self.state == MOVED:
            return f"{renamed}lines moved to {_span(self.new_lines)} (git diff)"
        if self.state == GONE:
            return f"{renamed}lines changed (git diff)"
        return "file deleted (git diff)"

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
                      s.new_lines, detail, new_path=s.new_path, uncommitted=s.uncommitted,
                      by_git=s.by_git)


def _hash_state(b: Belief, hashes: WholeFileHashes) -> str:
    now = hashes.sha256(b.source, agent_of(b))
    if now is None:
        return FILE_MISSING
    same = now == b.source_hash or (len(b.source_hash) == SHORT_HASH
                                    and now.startswith(b.source_hash))
    return UNCHANGED if same else CHANGED


def _hash_only(store: Store[StalenessTx],
               hashes: WholeFileHashes | None) -> list[tuple[Belief, str]]:
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


def check_sources(store: Store[StalenessTx], reader: SourceReader,
                  hashes: WholeFileHashes | None = None,
                  revisions: Revisions | None = None) -> Checked:
    pinned = pinned_states(store, reader, revisions)
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


def sourced_status(store: Store[StalenessTx], reader: SourceReader,
                   hashes: WholeFileHashes | None = None,
                   revisions: Revisions | None = None) -> list[SourcedRow]:
    """Every belief drawn from a source file, against the file as it is now, by id."""
    return check_sources(store, reader, hashes, revisions).rows


def stale_sourced(store: Store[StalenessTx], reader: SourceReader,
                  hashes: WholeFileHashes | None = None,
                  revisions: Revisions | None = None) -> list[SourcedRow]:
    """The beliefs whose own lines or quote no longer read as pinned, whose whole file
    changed, or whose file is gone, by id, IN or OUT."""
    return [r for r in sourced_status(store, reader, hashes, revisions) if r.stale]


def stale_since(store: Store[StalenessTx], reader: SourceReader, hashes: WholeFileHashes | None,
                revisions: Revisions, since: str) -> list[SourcedRow]:
    """What the commits after `since` (a commit) made stale, up to the work tree: the
    beliefs stale now that were not stale at `since`. A clean pin read at `since` or before
    it is followed to `since` through the diff; one read later (on the way from `since`)
    counts as the range's. A pin without a commit, or a whole-file hash, counts when its
    file changed after `since`."""
    rows = stale_sourced(store, reader, hashes, revisions)
    if not rows:
        return []
    beliefs = store.read(lambda tx: tx.get_beliefs([r.id for r in rows]))
    changed_paths = set(revisions.changes(since, sorted({r.path for r in rows})))
    by_commit: dict[str, set[str]] = {}
    for r in rows:
        commit = pin_commit(beliefs[r.id]) if r.kind == PINNED and r.id in beliefs else ""
        if commit and revisions.is_ancestor(commit, since):
            by_commit.setdefault(commit, set()).add(r.path)
    then = {commit: revisions.changes(commit, sorted(paths), until=since)
            for commit, paths in sorted(by_commit.items())}
    out = []
    for r in rows:
        b = beliefs.get(r.id)
        commit = pin_commit(b) if b is not None and r.kind == PINNED else ""
        if commit in then:
            if not _stale_at(r, then[commit].get(r.path)):
                out.append(r)
        elif commit or r.path in changed_paths:
            out.append(r)
    return out


def _stale_at(r: SourcedRow, change: FileChange | None) -> bool:
    """Whether a clean pin's lines no longer read as pinned at the later point of `change`
    (None: its file did not change on the way)."""
    if change is None:
        return False
    if change.new_path is None or len(r.lines) < 2:
        return True
    return follow((r.lines[0], r.lines[-1]), change.hunks) is None


def stamps_for(revisions: Revisions | None, paths: Iterable[str]) -> dict[str, dict[str, object]]:
    """The commit and cleanliness a re-pin of each file records in a work tree."""
    head = revisions.head() if revisions is not None else ""
    if revisions is None or not head:
        return {}
    return {p: {COMMIT: head, CLEAN: revisions.is_clean(p)} for p in sorted(set(paths))}


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


def retract_stale_sourced(store: Store[StalenessTx], reader: SourceReader,
                          hashes: WholeFileHashes | None = None, *, at: str,
                          missing: bool = False, yes: bool = False,
                          revisions: Revisions | None = None,
                          take_down: bool = True) -> Retracted:
    """Re-pin what still stands, retract what is gone, restore what stands again, in one
    transaction; a missing file's beliefs only with `missing`. Over OUT_LIMIT beliefs going
    OUT without `yes`: the what-if, nothing written. Without `take_down`: the re-pins only
    (what a git hook does unless told to retract)."""
    checked = check_sources(store, reader, hashes, revisions)
    texts = texts_of(reader, checked.states)
    stamps = stamps_for(revisions, texts)

    def work(tx: StalenessTx) -> Retracted:
        done = bring_up_to_date_in(tx, checked.states, texts, at=at, missing=missing,
                                   take_down=take_down, stamps=stamps)
        return Retracted([r for r in checked.rows if r.stale], sorted(done.repinned),
                         done.retracted, sorted(done.restored), sorted(done.left_missing),
                         done.change)

    if take_down and not yes:
        preview = store.dry_run(work)
        if len(preview.change.went_out) > OUT_LIMIT:
            preview.written = False
            return preview
    if not take_down and not any(s.state in (STILL, MOVED) and s.path_now in texts
                                 and s.new_lines for s in checked.states):
        return Retracted([r for r in checked.rows if r.stale])
    op = "sources-stale-retract" if take_down else "sources-repin"
    done = store.write(work, ChangeEntry(
        op, {"missing": missing, "stale": sum(r.stale for r in checked.rows)},
        "source files changed or gone since their beliefs were pinned" if take_down
        else "source files moved the lines their beliefs are pinned to"))
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
