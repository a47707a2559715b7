"""What changed in the sources since they were forged, and what that does to their beliefs.

- `source_states`: every known source hashed again: unchanged, changed or missing; with
  paths given, the files there not forged yet are `new`.
- `pinned_states`: each pinned belief on its own pin, whatever happened to the rest of its
  file or to other beliefs' pins: unchanged (the file hashes as it did when this belief was
  pinned), still (the file changed, but its quote is still inside its lines, or without a
  quote its lines hash as pinned), moved (they stand elsewhere), gone, or the file missing
  or unreadable. `stale_beliefs` are those moved, gone, missing or unreadable.
- `retract_stale` / `bring_up_to_date_in`: ONE transaction: re-pin what still stands (new
  hash, lines), retract what is gone (reason `source changed: <path>`), restore what a
  source change had taken down and stands again; the beliefs of a missing file are
  retracted (`source missing: <path>`) only when asked. What rested on them follows by
  propagation, nogoods included.
- `reconcile_in`: the same for one changed source when forge forges it again; chunks whose
  text did not change stay forged.
"""
from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from engine.change_records import ChangeEntry
from engine.errors import InvalidInput
from engine.model import Belief, Change
from engine.sources.grounding import find_quote
from engine.sources.reader import Fingerprint, SkippedFile, SourceReader, SourceText
from engine.sources.records import SourcePin, SourceRecord, SourceRecords
from engine.sources.revisions import CLEAN, COMMIT, FileChange, Revisions, follow
from engine.store import Store
from engine.tms.kernel import enforce_nogoods
from engine.tms.records import ResolutionTx

NEW, CHANGED, UNCHANGED, MISSING = "new", "changed", "unchanged", "missing"
# a pinned belief against its file: its words where they were, elsewhere, nowhere; or no file
STILL, MOVED, GONE, FILE_MISSING, UNREADABLE = "still", "moved", "gone", "missing", "unreadable"
CHANGED_REASON, MISSING_REASON = "source changed: ", "source missing: "
LINES_SHA256 = "lines_sha256"  # metadata: the pinned lines' hash, for a pin without a quote


class StalenessTx(ResolutionTx, SourceRecords, Protocol):
    """What the sources' writes go through (pinning a belief, taking down a changed
    source's beliefs): pins, labels, nogoods, sources."""


@dataclass(frozen=True)
class SourceState:
    path: str
    status: str
    stored_sha256: str = ""
    sha256: str = ""
    size: int | None = None

    def as_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class StaleBelief:
    id: str
    text: str
    path: str
    source_status: str  # changed | missing
    truth: str
    quote: str
    old_lines: tuple[int, ...]
    now: str  # "lines unchanged ...", "quote moved to lines a-b", "quote gone", ...
    new_lines: tuple[int, int] | None = None
    state: str = ""  # unchanged | still | moved | gone | missing | unreadable
    retract_reason: str = ""
    new_path: str = ""  # where git followed a renamed file to ("" not renamed)
    uncommitted: bool = False  # pinned in a work tree to text no commit holds
    by_git: bool = False  # followed through the diff from the pin's commit, not by its text

    @property
    def path_now(self) -> str:
        return self.new_path or self.path

    @property
    def stale(self) -> bool:
        """Its own lines or quote no longer read as pinned, or its file cannot be read."""
        return self.state not in (UNCHANGED, STILL)

    def as_dict(self) -> dict[str, object]:
        d = dataclasses.asdict(self)
        d["old_lines"], d["new_lines"] = list(self.old_lines), (
            list(self.new_lines) if self.new_lines else None)
        return d


@dataclass
class Reconciled:
    path: str
    kept: list[tuple[str, tuple[int, int]]] = field(default_factory=list)
    restored: list[str] = field(default_factory=list)  # kept, and put back IN
    retracted: list[str] = field(default_factory=list)
    change: Change = field(default_factory=Change)

    def as_dict(self) -> dict[str, object]:
        return {"path": self.path, "kept": [{"id": i, "lines": list(ln)} for i, ln in self.kept],
                "restored": self.restored, "retracted": self.retracted,
                "change": self.change.as_dict()}


def source_states(store: Store[StalenessTx], reader: SourceReader,
                  paths: Sequence[str] = ()) -> list[SourceState]:
    known = {s.path: s for s in store.read(lambda tx: tx.sources())}
    states = []
    for path, stored in sorted(known.items()):
        fp = reader.fingerprint(path)
        if fp is None:
            states.append(SourceState(path, MISSING, stored.sha256))
        else:
            status = UNCHANGED if fp.sha256 == stored.sha256 else CHANGED
            states.append(SourceState(path, status, stored.sha256, fp.sha256, fp.size))
    if paths:
        for path in reader.walk(paths):
            if path not in known:
                fp = reader.fingerprint(path)
                states.append(SourceState(path, NEW, "", fp.sha256 if fp else "",
                                          fp.size if fp else None))
    return sorted(states, key=lambda s: s.path)


def _quote_and_lines(b: Belief) -> tuple[str, tuple[int, ...]]:
    lines = b.metadata.get("lines") or ()
    return str(b.metadata.get("quote") or ""), tuple(int(x) for x in lines)


def _rows(text: str) -> list[str]:
    rows = text.split("\n")
    if rows and rows[-1] == "":
        rows.pop()
    return rows


def lines_sha256(text: str, lines: tuple[int, int]) -> str:
    """The sha256 of lines a-b of `text` as they read (joined by newlines): what a pin
    without a quote is checked against, so a change elsewhere in the file does not touch it."""
    rows = _rows(text)
    return hashlib.sha256("\n".join(rows[lines[0] - 1:lines[1]]).encode()).hexdigest()


def locate_pin(b: Belief, text: str) -> tuple[str, tuple[int, int] | None]:
    """Where a pinned belief's own words stand in the new `text`: (STILL, lines) when its quote
    is still inside its pinned lines (or, without a quote, those lines hash as pinned);
    (MOVED, lines) when they stand elsewhere; (GONE, None) when they are nowhere, or when
    there is neither a quote nor a lines hash to look for."""
    quote, old = _quote_and_lines(b)
    rows = _rows(text)
    if quote:
        if old and old[-1] <= len(rows):
            inside = find_quote(quote, "\n".join(rows[old[0] - 1:old[-1]]), first_line=old[0])
            if inside is not None:
                return STILL, inside
        span = find_quote(quote, text)
        return (MOVED, span) if span else (GONE, None)
    pinned = str(b.metadata.get(LINES_SHA256) or "")
    if not pinned or not old:
        return GONE, None
    first, last = old[0], old[-1]
    if last <= len(rows) and lines_sha256(text, (first, last)) == pinned:
        return STILL, (first, last)
    width = last - first + 1
    for at in range(1, len(rows) - width + 2):
        if lines_sha256(text, (at, at + width - 1)) == pinned:
            return MOVED, (at, at + width - 1)
    return GONE, None


AGENT_KEYS = ("namespace", "agent")  # metadata naming the agent a belief was imported from


def agent_of(b: Belief) -> str:
    """The imported agent a belief is of ("" for one of ours): its files are under the repo
    named after it."""
    for key in AGENT_KEYS:
        value = b.metadata.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def pin_commit(b: Belief) -> str:
    """The commit a clean pin was read at ("" for a pin on uncommitted text, or made
    outside a work tree)."""
    commit = b.metadata.get(COMMIT)
    return commit if isinstance(commit, str) and commit and b.metadata.get(CLEAN) is True else ""


def uncommitted(b: Belief) -> bool:
    """A pin made in a work tree on text no commit holds."""
    return b.metadata.get(CLEAN) is False


def followed_by_git(b: Belief, old: tuple[int, ...], change: FileChange | None, truth: str,
                    quote: str) -> StaleBelief | None:
    """A clean pin against the work tree through the diff from its commit: moved or still
    by the diff's arithmetic (to a renamed file's new path too), gone when the diff changes
    its lines, missing when the file was deleted; None when git saw no change although the
    file's hash is not the pin's (then its text decides)."""
    if change is None or len(old) < 2:
        return None
    if change.new_path is None:
        return StaleBelief(b.id, b.text, b.source, MISSING, truth, quote, old,
                           "file deleted (git diff)", None, FILE_MISSING, b.retract_reason,
                           by_git=True)
    span = follow((old[0], old[-1]), change.hunks)
    renamed = f"renamed to {change.new_path}, " if change.renamed else ""
    new_path = change.new_path if change.renamed else ""
    if span is None:
        return StaleBelief(b.id, b.text, b.source, CHANGED, truth, quote, old,
                           f"{renamed}lines changed (git diff)", None, GONE, b.retract_reason,
                           new_path, by_git=True)
    state = STILL if span == (old[0], old[-1]) and not change.renamed else MOVED
    now = (f"{renamed}lines {span[0]}-{span[1]} (git diff)" if state == MOVED
           else "lines unchanged (git diff: the file changed elsewhere)")
    return StaleBelief(b.id, b.text, b.source, CHANGED, truth, quote, old, now, span, state,
                       b.retract_reason, new_path, by_git=True)


def pinned_states(store: Store[StalenessTx], reader: SourceReader,
                  revisions: Revisions | None = None
                  ) -> list[StaleBelief]:
    """Every belief with a FROM edge, against its file as it is now, by id: each on its own
    pin (its hash, lines and quote), whatever the Source node or other beliefs say. With
    `revisions` (the root is a git work tree), a clean pin whose file changed is followed
    through the diff from its commit instead of by its text."""
    beliefs = sorted(store.read(lambda tx: tx.beliefs_from_sources([s.path for s in
                                                                    tx.sources()])),
                     key=lambda x: x.id)
    fingerprints: dict[str, Fingerprint | None] = {}
    for b in beliefs:
        if b.source not in fingerprints:
            fingerprints[b.source] = reader.fingerprint(b.source)
    diffs = _diffs(revisions, [b for b in beliefs if (fp := fingerprints[b.source]) is None
                               or fp.sha256 != b.source_hash])
    texts: dict[str, SourceText | SkippedFile | None] = {}
    out = []
    for b in beliefs:
        quote, old = _quote_and_lines(b)
        fp = fingerprints[b.source]
        truth = b.truth.value if b.truth else "?"
        flag = uncommitted(b)
        if fp is not None and fp.sha256 == b.source_hash:
            out.append(StaleBelief(b.id, b.text, b.source, UNCHANGED, truth, quote, old,
                                   "unchanged", None, UNCHANGED, b.retract_reason,
                                   uncommitted=flag))
            continue
        commit = pin_commit(b)
        if commit and commit in diffs:
            followed = followed_by_git(b, old, diffs[commit].get(b.source), truth, quote)
            if followed is not None:
                out.append(followed)
                continue
        if fp is None:
            out.append(StaleBelief(b.id, b.text, b.source, MISSING, truth, quote, old,
                                   "source missing", None, FILE_MISSING, b.retract_reason,
                                   uncommitted=flag))
            continue
        if b.source not in texts:
            texts[b.source] = reader.read(b.source)
        got = texts[b.source]
        if not isinstance(got, SourceText):
            why = got.reason if isinstance(got, SkippedFile) else "gone while reading"
            out.append(StaleBelief(b.id, b.text, b.source, CHANGED, truth, quote, old,
                                   f"unreadable: {why}", None, UNREADABLE, b.retract_reason,
                                   uncommitted=flag))
            continue
        state, span = locate_pin(b, got.text)
        now = {STILL: "lines unchanged (the file changed elsewhere)",
               MOVED: f"quote moved to lines {span[0]}-{span[1]}" if span else "",
               GONE: "quote gone" if quote else "lines changed"}[state]
        if state == MOVED and not quote:
            now = f"lines moved to {span[0]}-{span[1]}" if span else now
        out.append(StaleBelief(b.id, b.text, b.source, CHANGED, truth, quote, old, now, span,
                               state, b.retract_reason, uncommitted=flag))
    return out


def _diffs(revisions: Revisions | None, changed: Sequence[Belief]
           ) -> dict[str, dict[str, FileChange]]:
    """For each commit clean pins of changed files were read at, how those files changed
    from it to the work tree (one diff per commit)."""
    if revisions is None:
        return {}
    by_commit: dict[str, set[str]] = {}
    for b in changed:
        commit = pin_commit(b)
        if commit:
            by_commit.setdefault(commit, set()).add(b.source)
    out: dict[str, dict[str, FileChange]] = {}
    for commit, paths in sorted(by_commit.items()):
        try:
            out[commit] = revisions.changes(commit, sorted(paths))
        except InvalidInput:  # a commit the work tree no longer has: checked by text
            continue
    return out


def stale_beliefs(store: Store[StalenessTx], reader: SourceReader) -> list[StaleBelief]:
    """The pinned beliefs whose own lines or quote no longer read as pinned (moved, gone),
    or whose file is missing or unreadable, by id."""
    return [s for s in pinned_states(store, reader) if s.stale]


@dataclass
class Retraction:
    """What bringing the pins up to date did: re-pinned (new hash and lines), retracted,
    restored (retracted for a source change, and standing again), and missing files' beliefs
    left alone without `missing`."""

    repinned: list[str] = field(default_factory=list)
    retracted: list[str] = field(default_factory=list)
    restored: list[str] = field(default_factory=list)
    left_missing: list[str] = field(default_factory=list)
    change: Change = field(default_factory=Change)

    def as_dict(self) -> dict[str, object]:
        return {"repinned": self.repinned, "retracted": self.retracted,
                "restored": self.restored, "left_missing": self.left_missing,
                "change": self.change.as_dict()}


def _was_taken_down_by_its_source(b: Belief) -> bool:
    return b.retracted and b.retract_reason.startswith((CHANGED_REASON, MISSING_REASON))


def bring_up_to_date_in(tx: StalenessTx, states: Sequence[StaleBelief],
                        texts: Mapping[str, SourceText], *, at: str, missing: bool,
                        forging: bool = False, take_down: bool = True,
                        stamps: Mapping[str, Mapping[str, object]] | None = None) -> Retraction:
    """Inside a write transaction: re-pin what still stands (new hash, lines and lines hash;
    a renamed file's pins to its new path), retract what is gone (`source changed: PATH`; a
    missing or unreadable file's beliefs `source missing: PATH` only with `missing`),
    restore what a source change had taken down and stands again; the Source nodes of the
    files read take their new hash (`forging`: the file is being forged again, and only the
    chunks still in it stay done). Without `take_down`, only the re-pins. A re-pin takes the
    commit and cleanliness `stamps` gives its file (a work tree's), else it loses the ones
    it had: they were of the text it was pinned to before."""
    out = Retraction()
    current = tx.get_beliefs([s.id for s in states])
    pins: list[SourcePin] = []
    retract: dict[str, list[str]] = {}
    for s in states:
        b = current.get(s.id)
        if b is None:
            continue
        path = s.path_now
        if s.state in (STILL, MOVED) and path in texts and s.new_lines:
            source = texts[path]
            metadata = {k: v for k, v in b.metadata.items() if k not in (COMMIT, CLEAN)}
            metadata["lines"] = list(s.new_lines)
            metadata.update((stamps or {}).get(path, {}))
            if LINES_SHA256 in metadata:
                metadata[LINES_SHA256] = lines_sha256(source.text, s.new_lines)
            pins.append(SourcePin(b.id, path, source.sha256, s.new_lines, metadata, at))
            out.repinned.append(b.id)
        if not take_down:
            continue
        if s.state in (UNCHANGED, STILL, MOVED):
            if _was_taken_down_by_its_source(b):
                out.restored.append(b.id)
        elif s.state == GONE:
            if not b.retracted:
                retract.setdefault(CHANGED_REASON + s.path, []).append(b.id)
        elif not missing:
            out.left_missing.append(b.id)
        elif not b.retracted:
            retract.setdefault(MISSING_REASON + s.path, []).append(b.id)
    stored = {r.path: r for r in tx.sources()}
    pinned_to = {p.source for p in pins}
    tx.save_sources([SourceRecord(path, t.sha256, t.size, at, _chunks_done(
        stored[path].chunks, t, forging) if path in stored else ())
        for path, t in sorted(texts.items()) if path in stored or path in pinned_to])
    tx.pin_to_sources(pins)
    for reason, ids in sorted(retract.items()):
        tx.set_pins(ids, retracted=True, asserted=False, reason=reason, at=at)
        out.retracted += ids
    if out.restored:
        tx.set_pins(out.restored, retracted=False, asserted=False, reason="", at=at)
    seeds = out.retracted + out.restored
    if seeds:
        out.change = enforce_nogoods(tx, tx.relabel(seeds))
    out.retracted.sort()
    return out


def _chunks_done(done: Sequence[str], text: SourceText, forging: bool) -> tuple[str, ...]:
    """Outside a forge run the chunks forged before stay done, so a file put back as it was
    forged is not sent to the model again (its premises are restored instead)."""
    return tuple(sorted(set(done) & {c.sha256 for c in text.chunks})) if forging else tuple(done)


def texts_of(reader: SourceReader, states: Sequence[StaleBelief]) -> dict[str, SourceText]:
    """The changed files of pinned beliefs, read once each (their Source nodes take the new
    hash, the pins that still stand their new lines)."""
    out: dict[str, SourceText] = {}
    for path in sorted({s.path_now for s in states
                        if s.state in (STILL, MOVED) or (s.state == GONE and s.old_lines)}):
        got = reader.read(path)
        if isinstance(got, SourceText):
            out[path] = got
    return out


def retract_stale(store: Store[StalenessTx], reader: SourceReader, *, at: str, missing: bool = False
                  ) -> tuple[list[StaleBelief], Retraction]:
    """`forge stale --retract`: bring every pin up to date in one transaction (re-pin what
    moved, retract what is gone, restore what stands again; missing files only with
    `missing`)."""
    states = pinned_states(store, reader)
    stale = [s for s in states if s.stale]
    texts = texts_of(reader, states)
    done = store.write(lambda tx: bring_up_to_date_in(tx, states, texts, at=at,
                                                      missing=missing),
                       ChangeEntry("forge-stale-retract", {"beliefs": len(stale),
                                                           "missing": missing}))
    return stale, done


def reconcile_in(tx: StalenessTx, source: SourceText, *, at: str) -> Reconciled:
    """Inside a write transaction: bring the premises of a changed source up to its new text
    (forge, when it forges the file again): each on its own pin, as `retract_stale` does."""
    states = []
    for b in tx.beliefs_from_sources([source.path]):
        quote, old = _quote_and_lines(b)
        state, span = ((UNCHANGED, None) if b.source_hash == source.sha256
                       else locate_pin(b, source.text))
        states.append(StaleBelief(b.id, b.text, b.source, CHANGED, "", quote, old, "", span,
                                  state, b.retract_reason))
    done = bring_up_to_date_in(tx, states, {source.path: source}, at=at, missing=False,
                               forging=True)
    lines = {s.id: s.new_lines for s in states if s.new_lines}
    out = Reconciled(source.path, [(i, lines[i]) for i in done.repinned], done.restored,
                     done.retracted, done.change)
    return out
