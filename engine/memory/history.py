"""A memory you can go back in: points, the network as of a point, diff, rollback, revert.

Every write keeps, in its change-log entry, the before-image of each unit of the network's
definitions it changed (engine/memory/images.py). So the definitions as of a point P are
today's, with each unit a later write changed replaced by its image in the first entry after
P that touched it; walking back costs the entries after P, not the size of the network.
Labels are never stored per point: they are the kernel's whole-network labelling of the
reconstructed definitions (engine/tms/labelling.py).

A POINT is a seq (the state right after that change), an ISO time (the last change at or
before it), or a release name. History begins after the last entry that kept no images (a
write that predates before-images, or a reset) and after the entries `log --prune` cut.
"""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from engine.change_records import ChangeEntry, ChangeLog, LogEntry, LogQuery
from engine.clock import now_iso_ms
from engine.errors import EngineError, InvalidInput, NotFound
from engine.memory.changelog import check_time
from engine.memory.images import (
    NETWORK_KEY,
    belief_of,
    justifications_of,
    network_info_of,
    nogood_of,
    pins_of,
    source_of,
    supersession_of,
    text_of,
)
from engine.memory.records import HistoryRecords, Image, LoggedWrite, Release
from engine.model import Belief, Change, Nogood, Status, Truth, check_id
from engine.store import Store
from engine.tms.access import effective_tags
from engine.tms.labelling import labels_from_scratch
from engine.tms.records import Network, TmsTx

RELEASE_RE = re.compile(r"[a-z][a-z0-9._-]{0,99}")
_Unit = TypeVar("_Unit")


class HistoryTx(HistoryRecords, TmsTx, ChangeLog, Protocol):
    """What history needs of a transaction: its own records, the network and its labels
    (TmsTx), the labels now (ChangeLog.truths)."""


class RevertConflict(EngineError):
    """A change cannot be reverted alone: later changes touched the same definitions."""

    exit_code = 1

    def __init__(self, message: str, *, seq: int, later: Sequence[int]):
        super().__init__(message)
        self.seq = seq
        self.later = tuple(later)


# --- points ------------------------------------------------------------------------------
def resolve_point(tx: HistoryTx, point: str) -> int:
    """The seq a POINT names; an unknown one or one before history begins is bad input."""
    text = (point or "").strip()
    last = tx.last_seq()
    if re.fullmatch(r"\d+", text):
        seq = int(text)
        if seq > last:
            raise InvalidInput(f"point {text}: no change has seq {seq} (the last is {last})",
                               field="point", value=text)
    elif text[:1].isdigit():
        seq = tx.seq_at_or_before(check_time(text, what="point"))
    elif RELEASE_RE.fullmatch(text):
        found = tx.release(text)
        if found is None:
            raise InvalidInput(f"point {text!r} is not a seq, an ISO time or a release name"
                               " (`releases` lists them)", field="point", value=text)
        seq = found.seq
    else:
        raise InvalidInput(f"point {text!r} is not a seq, an ISO time or a release name",
                           field="point", value=text)
    start = tx.history_start()
    if seq < start:
        raise InvalidInput(
            f"point {text} is seq {seq}, before history begins (seq {start}: earlier changes"
            " were logged without before-images, cut by `log --prune`, or a reset)",
            field="point", value=text)
    return seq


# --- reconstruction (pure) -------------------------------------------------------------
def images_at(writes: Sequence[LoggedWrite], point: int) -> dict[str, dict[str, Image | None]]:
    """The definitions as of `point` of every unit a write after it changed: each unit's
    image in the first such write (`writes` oldest first, all after history began)."""
    out: dict[str, dict[str, Image | None]] = {}
    for w in writes:
        if w.seq <= point or not w.images:
            continue
        for kind, units in w.images.items():
            bucket = out.setdefault(kind, {})
            for key, image in units.items():
                if key not in bucket:
                    bucket[key] = image
    return out


def _imaged(units: dict[str, _Unit], images: Mapping[str, Image | None],
            unit_of: Callable[[str, Image], _Unit]) -> dict[str, _Unit]:
    """`units` with each key an image names set to what the image describes, or removed
    (an image None: the unit did not exist then)."""
    for key, image in images.items():
        if image is None:
            units.pop(key, None)
        else:
            units[key] = unit_of(key, image)
    return units


def nogoods_at(now: Iterable[Nogood], images: Mapping[str, Mapping[str, Image | None]]
               ) -> dict[str, Nogood]:
    """Today's nogoods with the images' set back: the nogoods of the point, by id."""
    return _imaged({n.id: n for n in now}, images.get("nogood", {}), nogood_of)


def network_at(now: Network, images: Mapping[str, Mapping[str, Image | None]]) -> Network:
    """Today's network with the given units set to their images, labelled from scratch."""
    beliefs: dict[str, Belief] = _imaged(dict(now.beliefs), images.get("belief", {}), belief_of)
    nogoods = nogoods_at(now.nogoods, images)
    supersessions = _imaged({r.old: r for r in now.supersessions},
                            images.get("supersession", {}), supersession_of)
    sources = _imaged({s.path: s for s in now.sources}, images.get("source", {}), source_of)
    meta, repos = dict(now.meta), dict(now.repos)
    if NETWORK_KEY in images.get("network", {}):
        meta, repos = network_info_of(images["network"][NETWORK_KEY])
    return Network(labelled_then(beliefs), [nogoods[k] for k in sorted(nogoods)], repos, meta,
                   [supersessions[k] for k in sorted(supersessions)],
                   [sources[k] for k in sorted(sources)])


def labelled_then(beliefs: Mapping[str, Belief]) -> dict[str, Belief]:
    """Beliefs as defined at a point with what is computed from the definitions: labels and
    depths from scratch, and the effective access tags of their support then (a belief's
    image carries none, and today's would be wrong where a tag or the support moved since).
    `beliefs` holds everything their labels and tags depend on (a whole network, or an
    upstream)."""
    labels = labels_from_scratch(beliefs)
    tags = effective_tags(beliefs, {bid: label.truth for bid, label in labels.items()})
    labelled = {}
    for bid in sorted(beliefs):
        b, label, tagged = beliefs[bid], labels[bid], tuple(sorted(tags[bid]))
        # most beliefs are labelled then as now: a copy only for those that are not
        labelled[bid] = b if (b.truth is label.truth and b.depth == label.depth
                              and b.effective_tags == tagged) else dataclasses.replace(
            b, truth=label.truth, depth=label.depth, effective_tags=tagged)
    return labelled


def status_of(network: Network) -> Status:
    beliefs = network.beliefs.values()
    in_ = sum(1 for b in beliefs if b.truth == Truth.IN)
    undetermined = sorted(b.id for b in beliefs if b.truth == Truth.UNDETERMINED)
    derived = sum(1 for b in beliefs if not b.is_premise)
    open_challenges = {b.id for b in beliefs if b.truth == Truth.IN
                       and b.metadata.get("source_type") == "challenge"}
    challenged = sum(1 for b in beliefs
                     if any(o in open_challenges for j in b.justifications for o in j.outlist))
    return Status(beliefs=len(network.beliefs), in_=in_, out=len(network.beliefs) - in_,
                  undetermined=len(undetermined), premises=len(network.beliefs) - derived,
                  derived=derived, nogoods=len(network.nogoods),
                  max_depth=max((b.depth or 0 for b in beliefs), default=0),
                  undetermined_ids=tuple(undetermined), challenged=challenged)


# --- reads as of a point ---------------------------------------------------------------
def network_as_of(store: Store[HistoryTx], point: str) -> Network:
    """The whole network as it was at `point` (one read: no writer interleaves)."""
    def work(h: HistoryTx) -> Network:
        seq = resolve_point(h, point)
        return network_at(h.read_network(), images_at(h.writes_after(seq), seq))

    return store.read(work)


def belief_as_of(store: Store[HistoryTx], belief_id: str, point: str) -> tuple[Belief, Network]:
    check_id(belief_id)
    network = network_as_of(store, point)
    found = network.beliefs.get(belief_id)
    if found is None:
        raise NotFound("belief", f"{belief_id}' at point '{point}")
    return found, network


def status_as_of(store: Store[HistoryTx], point: str) -> Status:
    return status_of(network_as_of(store, point))


# --- diff between two points -----------------------------------------------------------
@dataclass(frozen=True)
class BeliefDiff:
    """How one belief differs between two points; `why`: the last change in between that
    moved its label (relabelled) or changed its definition."""

    id: str
    what: tuple[str, ...]  # added, removed, reworded, re-justified, pinned, unpinned,
    # metadata, relabelled
    then: str | None  # truth then (None: absent)
    now: str | None
    why: int | None
    text_then: str | None = None
    text_now: str | None = None

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, "what": list(self.what), "then": self.then, "now": self.now,
                "why": self.why, "text_then": self.text_then, "text_now": self.text_now}


@dataclass(frozen=True)
class Diff:
    start: int
    end: int
    beliefs: list[BeliefDiff] = field(default_factory=list)
    nogoods_added: list[str] = field(default_factory=list)
    nogoods_removed: list[str] = field(default_factory=list)
    other: list[str] = field(default_factory=list)  # supersessions, sources, meta changed

    def as_dict(self) -> dict[str, object]:
        return {"from": self.start, "to": self.end,
                "beliefs": [b.as_dict() for b in self.beliefs],
                "nogoods_added": self.nogoods_added, "nogoods_removed": self.nogoods_removed,
                "other": self.other}


def diff_points(store: Store[HistoryTx], first: str, second: str | None = None) -> Diff:
    """What differs between two points (the second defaults to now), from the entries in
    between: definitions compared image to image, labels by the moves the log recorded."""
    def work(h: HistoryTx) -> Diff:
        a = resolve_point(h, first)
        b = resolve_point(h, second) if second is not None else h.last_seq()
        if b < a:
            a, b = b, a
        writes = h.writes_after(a)
        found = diff_of(writes, a, b, lambda kind, keys: h.current_images(kind, keys))
        if b == h.last_seq():  # the labels now of the rows no move in between told
            unknown = [r.id for r in found.beliefs if r.now is None and "removed" not in r.what]
            truths = h.truths(unknown) if unknown else {}
            found.beliefs[:] = [_with_truth_now(r, truths.get(r.id)) for r in found.beliefs]
        return found

    return store.read(work)


def _with_truth_now(row: BeliefDiff, truth: Truth | None) -> BeliefDiff:
    if truth is None or row.now is not None:
        return row
    now = "IN" if truth == Truth.IN else "OUT"
    then = row.then if row.then is not None or "added" in row.what else now
    return dataclasses.replace(row, now=now, then=then)


def diff_of(writes: Sequence[LoggedWrite], a: int, b: int, current) -> Diff:
    """The diff between points a <= b, given the writes after a (pure but for `current`,
    which reads today's images of the units no write after b touched)."""
    between = [w for w in writes if a < w.seq <= b]
    then = images_at(between, a)
    later = images_at([w for w in writes if w.seq > b], b)
    now: dict[str, dict[str, Image | None]] = {}
    for kind, units in then.items():
        have = {k: later[kind][k] for k in units if k in later.get(kind, {})}
        missing = sorted(k for k in units if k not in have)
        if missing:
            have.update(current(kind, missing))
        now[kind] = have
    why_defined: dict[str, int] = {}
    for w in between:
        for bid in (w.images or {}).get("belief", {}):
            why_defined[bid] = w.seq
    moves: dict[str, list[tuple[int, bool]]] = {}
    for w in between:
        for bid in w.went_in:
            moves.setdefault(bid, []).append((w.seq, True))
        for bid in w.went_out:
            moves.setdefault(bid, []).append((w.seq, False))
    rows: list[BeliefDiff] = []
    beliefs_then, beliefs_now = then.get("belief", {}), now.get("belief", {})
    for bid in sorted(set(beliefs_then) | set(moves)):
        was, is_ = beliefs_then.get(bid, "?"), beliefs_now.get(bid, "?")
        what: list[str] = []
        if was != "?" and is_ != "?":
            if was is None and is_ is not None:
                what.append("added")
            elif was is not None and is_ is None:
                what.append("removed")
            elif isinstance(was, Mapping) and isinstance(is_, Mapping):
                what.extend(_definition_changes(was, is_))
        seen = moves.get(bid, [])
        truth_then = truth_now = None
        why = why_defined.get(bid) if what else None
        if seen:
            in_then, in_now = not seen[0][1], seen[-1][1]
            if in_then != in_now and "added" not in what and "removed" not in what:
                what.append("relabelled")
                why = seen[-1][0]
            truth_then = "IN" if in_then else "OUT"
            truth_now = "IN" if in_now else "OUT"
        if not what:
            continue
        if was is None:
            truth_then = None
        if is_ is None:
            truth_now = None
        rows.append(BeliefDiff(bid, tuple(what), truth_then, truth_now, why,
                               text_of(was) if isinstance(was, Mapping) else None,
                               text_of(is_) if isinstance(is_, Mapping) else None))
    nogoods_then, nogoods_now = then.get("nogood", {}), now.get("nogood", {})
    other = [f"{kind} {key}" for kind in ("supersession", "source", "network", "namespace")
             for key, image in sorted(then.get(kind, {}).items())
             if image != now.get(kind, {}).get(key)]
    return Diff(a, b, rows,
                sorted(k for k, v in nogoods_then.items() if v is None and nogoods_now.get(k)),
                sorted(k for k, v in nogoods_then.items() if v and nogoods_now.get(k) is None),
                other)


def _definition_changes(was: Image, is_: Image) -> list[str]:
    out = []
    if text_of(was) != text_of(is_):
        out.append("reworded")
    if justifications_of(was) != justifications_of(is_):
        out.append("re-justified")
    pins_then, pins_now = pins_of(was), pins_of(is_)
    if pins_then != pins_now:
        out.append("pinned" if pins_now[0] or pins_now[1] else "unpinned")
    if (was.get("props") or {}).get("metadata") != (is_.get("props") or {}).get("metadata"):
        out.append("metadata")
    if not out and was != is_:
        then_props, now_props = dict(was.get("props") or {}), dict(is_.get("props") or {})
        stamps_only = {k for k in then_props.keys() | now_props.keys()
                       if (then_props.get(k) or None) != (now_props.get(k) or None)
                       } <= {"updated_at", "created_at"}
        same_rest = {k: v for k, v in was.items() if k != "props" and v} == {
            k: v for k, v in is_.items() if k != "props" and v}
        out.append("updated" if stamps_only and same_rest else "redefined")
    return out


# --- rollback, revert --------------------------------------------------------------------
@dataclass(frozen=True)
class Restored:
    """What a rollback or revert set back (or would: a what-if)."""

    to: int  # the point restored (a revert: the change reverted)
    units: dict[str, list[str]]  # kind -> keys restored
    change: Change

    def as_dict(self) -> dict[str, object]:
        return {"to": self.to, "restored": {k: v for k, v in self.units.items() if v},
                **self.change.as_dict()}


def _restore(h: HistoryTx, images: Mapping[str, Mapping[str, Image | None]]) -> tuple[
        dict[str, list[str]], Change]:
    differing: dict[str, dict[str, Image | None]] = {}
    for kind, units in images.items():
        keys = sorted(units)
        now = h.current_images(kind, keys) if keys else {}
        changed = {k: units[k] for k in keys if now.get(k) != units[k]}
        if changed:
            differing[kind] = changed
    seeds = h.restore_images(differing)
    change = h.relabel(seeds) if seeds else Change()
    return {k: sorted(v) for k, v in differing.items()}, change


def rollback(store: Store[HistoryTx], point: str, reason: str = "", *, dry_run: bool = False
             ) -> Restored:
    """ONE write setting every definition back to what it was at `point`, with propagation;
    its own entry keeps the before-images, so rolling it back restores the present."""
    def work(h: HistoryTx) -> Restored:
        seq = resolve_point(h, point)
        units, change = _restore(h, images_at(h.writes_after(seq), seq))
        return Restored(seq, units, change)

    if dry_run:
        return store.dry_run(work)
    return store.write(work, ChangeEntry("rollback", {"to": point}, reason))


def revert(store: Store[HistoryTx], seq: int, reason: str = "", *,
           dry_run: bool = False) -> Restored:
    """Invert change `seq` alone: refused (naming them) when later changes touched the same
    definitions."""
    if seq < 1:
        raise InvalidInput("revert takes the seq of a change (1 or more)", field="seq",
                           value=seq)

    def work(h: HistoryTx) -> Restored:
        if seq > h.last_seq():
            raise InvalidInput(f"no change has seq {seq}", field="seq", value=seq)
        writes = h.writes_after(seq - 1)
        target = writes[0] if writes and writes[0].seq == seq else None
        if target is None or target.images is None or seq <= h.history_start():
            raise InvalidInput(f"change {seq} kept no before-images (history begins at seq "
                               f"{h.history_start()})", field="seq", value=seq)
        mine = {(k, key) for k, units in target.images.items() for key in units}
        later = [w.seq for w in writes[1:]
                 if w.images and any((k, key) in mine for k, units in w.images.items()
                                     for key in units)]
        if later:
            raise RevertConflict(
                f"change {seq} cannot be reverted alone: later changes touched the same "
                f"definitions: {', '.join(map(str, later[:10]))}"
                f"{' and more' if len(later) > 10 else ''}; `rollback --to {seq - 1}` undoes"
                " them all", seq=seq, later=later)
        units, change = _restore(h, target.images)
        return Restored(seq, units, change)

    if dry_run:
        return store.dry_run(work)
    return store.write(work, ChangeEntry("revert", {"seq": seq}, reason))


# --- changes pushed --------------------------------------------------------------------
def touched_beliefs(entry: LogEntry, write: LoggedWrite | None) -> set[str]:
    """The beliefs an entry touched: its cascade's lists and the definitions it changed."""
    ids = {i for ids in (entry.went_in, entry.went_out, entry.retracted_by_nogood,
                         entry.created, entry.defined, entry.removed) for i in ids}
    if write is not None and write.images:
        ids.update(write.images.get("belief", {}))
    return ids


def changes_after(store: Store[HistoryTx], seq: int, limit: int = 1000
                  ) -> list[tuple[LogEntry, set[str]]]:
    """The entries after `seq`, oldest first, each with the beliefs it touched (one read)."""
    def work(tx: HistoryTx) -> list[tuple[LogEntry, set[str]]]:
        entries = tx.change_entries(LogQuery(after=seq, limit=limit, oldest_first=True))
        if not entries:
            return []
        writes = {w.seq: w for w in tx.writes_after(seq) if w.seq <= entries[-1].seq}
        return [(e, touched_beliefs(e, writes.get(e.seq))) for e in entries]

    return store.read(work)


def last_seq(store: Store[HistoryTx]) -> int:
    return store.read(lambda tx: tx.last_seq())


# --- releases --------------------------------------------------------------------------
def check_release_name(name: str) -> str:
    if not isinstance(name, str) or not RELEASE_RE.fullmatch(name):
        raise InvalidInput(f"invalid release name {name!r}: 1-100 characters of [a-z0-9._-],"
                           " starting with a letter", field="release", value=name)
    return name


def make_release(store: Store[HistoryTx], name: str, at: str | None = None,
                 note: str = "") -> Release:
    """Name a point (default: the last change before this one)."""
    check_release_name(name)
    now = now_iso_ms()

    def work(h: HistoryTx) -> Release:
        if h.release(name) is not None:
            raise InvalidInput(f"release name {name!r} is taken", field="release", value=name)
        seq = resolve_point(h, at) if at is not None else h.last_seq()
        release = Release(name, seq, now, note, h.actor())
        h.create_release(release)
        return release

    return store.write(work, ChangeEntry("release", {"name": name, "at": at}, note))


def releases(store: Store[HistoryTx]) -> list[Release]:
    return store.read(lambda tx: tx.releases())


def find_release(store: Store[HistoryTx], name: str) -> Release:
    check_release_name(name)
    found = store.read(lambda tx: tx.release(name))
    if found is None:
        raise InvalidInput(f"no release named {name!r} (`releases` lists them)",
                           field="release", value=name)
    return found
