"""What changed in the sources since they were forged, and what that does to their beliefs.

- `source_states`: every known source hashed again: unchanged, changed or missing; with
  paths given, the files there not forged yet are `new`.
- `stale_beliefs`: the beliefs drawn from changed or missing sources, each with what
  happened to its quote (still at lines a-b of the new text, gone, or the file is gone).
- `retract_stale`: retracts them all in ONE transaction, reason `source changed: <path>`
  (`source missing: <path>` for a file that is gone); what rested on them goes OUT by
  propagation, nogoods included.
- `reconcile_in`: when a changed source is forged again, inside that transaction: each old
  premise whose quote still occurs in the new text is kept and re-pinned (new hash, new
  lines; put back IN if it was retracted only because its source changed); the others are
  retracted as above. Chunks whose text did not change stay forged.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.change_records import ChangeEntry
from engine.model import Belief, Change
from engine.sources.grounding import find_quote
from engine.sources.reader import SkippedFile, SourceReader, SourceText
from engine.store import SourcePin, SourceRecord, SourceRecords, Store
from engine.tms.kernel import enforce_nogoods
from engine.tms.nogoods import ResolutionTx

NEW, CHANGED, UNCHANGED, MISSING = "new", "changed", "unchanged", "missing"
CHANGED_REASON, MISSING_REASON = "source changed: ", "source missing: "


class StalenessTx(ResolutionTx, SourceRecords, Protocol):
    """What taking down a changed source's beliefs writes: pins, labels, nogoods, sources."""


@dataclass(frozen=True)
class SourceState:
    path: str
    status: str
    stored_sha256: str = ""
    sha256: str = ""
    size: int | None = None

    def as_dict(self) -> dict[str, Any]:
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
    now: str  # "quote still at lines a-b", "quote gone", "source missing", "unreadable: ..."
    new_lines: tuple[int, int] | None = None

    def as_dict(self) -> dict[str, Any]:
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

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "kept": [{"id": i, "lines": list(ln)} for i, ln in self.kept],
                "restored": self.restored, "retracted": self.retracted,
                "change": self.change.as_dict()}


def source_states(store: Store, reader: SourceReader,
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


def stale_beliefs(store: Store, reader: SourceReader) -> list[StaleBelief]:
    states = [s for s in source_states(store, reader) if s.status in (CHANGED, MISSING)]
    if not states:
        return []
    status = {s.path: s.status for s in states}
    beliefs = store.read(lambda tx: tx.beliefs_from_sources(status))
    texts: dict[str, SourceText | SkippedFile | None] = {}
    out = []
    for b in beliefs:
        quote, old = _quote_and_lines(b)
        if b.source not in texts:
            texts[b.source] = reader.read(b.source) if status[b.source] == CHANGED else None
        got = texts[b.source]
        span = None
        if got is None:
            now = "source missing"
        elif isinstance(got, SkippedFile):
            now = f"unreadable: {got.reason}"
        else:
            span = find_quote(quote, got.text)
            now = f"quote still at lines {span[0]}-{span[1]}" if span else "quote gone"
        out.append(StaleBelief(b.id, b.text, b.source, status[b.source],
                               (b.truth.value if b.truth else "?"), quote, old, now, span))
    return out


def retract_stale(store: Store, reader: SourceReader, *, at: str
                  ) -> tuple[list[StaleBelief], Change]:
    """Retract every stale belief not yet retracted, in one transaction."""

    stale = stale_beliefs(store, reader)

    def work(tx: StalenessTx) -> Change:
        current = tx.get_beliefs([s.id for s in stale])
        seeds: list[str] = []
        for path in sorted({s.path for s in stale}):
            group = [s for s in stale if s.path == path and s.id in current
                     and not current[s.id].retracted]
            if not group:
                continue
            reason = (MISSING_REASON if group[0].source_status == MISSING else CHANGED_REASON)
            tx.set_pins([s.id for s in group], retracted=True, asserted=False,
                        reason=reason + path, at=at)
            seeds += [s.id for s in group]
        return enforce_nogoods(tx, tx.relabel(seeds)) if seeds else Change()

    return stale, (store.write(work, ChangeEntry("forge-stale-retract", {"beliefs": len(stale)}))
                   if stale else Change())


def reconcile_in(tx: StalenessTx, source: SourceText, *, at: str) -> Reconciled:
    """Inside a write transaction: bring the premises of a changed source up to its new text."""

    out = Reconciled(source.path)
    stored = {s.path: s for s in tx.sources()}.get(source.path)
    pins, restore, retract = [], [], []
    for b in tx.beliefs_from_sources([source.path]):
        quote, _ = _quote_and_lines(b)
        span = find_quote(quote, source.text) if quote else None
        if span is None:
            if not b.retracted:
                retract.append(b.id)
            continue
        metadata = {**dict(b.metadata), "lines": list(span)}
        pins.append(SourcePin(b.id, source.path, source.sha256, span, metadata, at))
        out.kept.append((b.id, span))
        if b.retracted and b.retract_reason.startswith(CHANGED_REASON):
            restore.append(b.id)
    current = {c.sha256 for c in source.chunks}
    chunks = tuple(sorted(set(stored.chunks) & current)) if stored else ()
    tx.save_sources([SourceRecord(source.path, source.sha256, source.size, at, chunks)])
    tx.pin_to_sources(pins)
    if retract:
        tx.set_pins(retract, retracted=True, asserted=False,
                    reason=CHANGED_REASON + source.path, at=at)
    if restore:
        tx.set_pins(restore, retracted=False, asserted=False, reason="", at=at)
    out.retracted, out.restored = retract, restore
    seeds = retract + restore
    if seeds:
        out.change = enforce_nogoods(tx, tx.relabel(seeds))
    return out
