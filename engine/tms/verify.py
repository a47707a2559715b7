"""verify and repair: the stored labels held against the definition (engine/tms/semantics.py,
computed fast by engine/tms/labelling.py), and the differences written back.

The store hands over the network as StoredLabels (engine/tms/stored_labels.py): its shape and
each belief's stored labels and depth in flat arrays, filled page by page, so a million
beliefs are compared without a Belief object each.
"""
from __future__ import annotations

import dataclasses

from engine.bulk import cyclic_gc_paused
from engine.change_records import ChangeEntry
from engine.model import Change, Label, Truth
from engine.tms import access
from engine.tms.kernel import enforce_nogoods
from engine.tms.labelling import label_shape
from engine.tms.records import ResolutionTx, TmsStore
from engine.tms.stored_labels import IN_LABEL, StoredLabels, is_odd, stored_truth
from engine.tms.values import TRUTH


@dataclasses.dataclass(frozen=True)
class Mismatch:
    id: str
    stored: str
    computed: str


@dataclasses.dataclass(frozen=True)
class Compared:
    problems: list[Mismatch]  # labels and depths, sorted by id
    tag_problems: list[Mismatch]
    computed: dict[str, Label]  # the from-scratch label of each belief in `problems`


def compare(stored: StoredLabels) -> Compared:
    """Label the stored shape from scratch and hold each belief's stored labels against it."""
    shape = stored.shape
    truth, depth = label_shape(shape)
    ids, odd = shape.ids, stored.odd
    problems: list[Mismatch] = []
    computed: dict[str, Label] = {}
    for k, i in enumerate(shape.beliefs):
        f, want, want_depth = stored.flags[k], TRUTH[truth[i]], depth[i]
        have_depth: int | None = stored.depths[k]
        if have_depth is not None and have_depth < 0:
            have_depth = None
        bid = ids[i]
        if is_odd(f):
            found = Mismatch(bid, "labels " + ":".join(sorted(set(odd.get(bid, ())))),
                             str(want))
        elif stored_truth(f) != want:
            found = Mismatch(bid, str(stored_truth(f)), str(want))
        elif have_depth != want_depth:
            found = Mismatch(bid, f"depth {have_depth}", f"depth {want_depth}")
        else:
            continue
        problems.append(found)
        computed[bid] = Label(want, want_depth)
    problems.sort(key=lambda m: m.id)
    return Compared(problems, _compare_tags(stored, truth), computed)


def _compare_tags(stored: StoredLabels, truth: bytearray) -> list[Mismatch]:
    """Where the stored effective access tags differ from those the labels give
    (engine/tms/access.py); nothing to do when no belief carries tags."""
    if not stored.tags:
        return []
    shape, tags = stored.shape, stored.tags
    no_tags: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    region = {}
    for i in shape.beliefs:
        bid = shape.ids[i]
        region[bid] = access.TagBelief(
            frozenset(tags.get(bid, no_tags)[0]), TRUTH[truth[i]] == Truth.IN,
            tuple(([shape.ids[a] for a in shape.antecedents[r]],
                   [shape.ids[o] for o in shape.outlists[r]])
                  for r in range(shape.start[i], shape.end[i])))
    want = access.propagate_tags(region, {}, {})
    return [Mismatch(bid, "tags " + ",".join(tags.get(bid, no_tags)[1]),
                     "tags " + ",".join(sorted(want[bid])))
            for bid in sorted(region) if set(tags.get(bid, no_tags)[1]) != want[bid]]


def verify(store: TmsStore) -> list[Mismatch]:
    """Recompute every label from scratch and list where the graph disagrees."""
    with cyclic_gc_paused():  # a million beliefs read and labelled: no cycles among them
        found = compare(store.read(lambda tx: tx.read_labelling()))
        return found.problems + found.tag_problems


@dataclasses.dataclass(frozen=True)
class Repair:
    repaired: list[Mismatch]  # what the graph held, and the from-scratch value now written
    change: Change  # what went IN and OUT, nogood retractions included


def repair(store: TmsStore) -> Repair:
    """Recompute every label and depth from scratch and write the differences, in one write
    transaction (under the write lock, so no writer changes the graph meanwhile); then
    resolve the nogoods the repair made hold. For graphs edited by hand, written by another
    tool or left by an older version."""

    def work(tx: ResolutionTx) -> Repair:
        stored = tx.read_labelling()
        found = compare(stored)
        problems, tag_problems = found.problems, found.tag_problems
        if not problems and not tag_problems:
            return Repair([], Change())
        # writing labels recomputes every effective tag too (the store's write_labels)
        tx.write_labels({p.id: found.computed[p.id] for p in problems})
        if not problems:
            return Repair(tag_problems, Change())
        shape = stored.shape
        was_in = {shape.ids[i] for k, i in enumerate(shape.beliefs)
                  if stored.flags[k] & IN_LABEL}
        fixed = [p.id for p in problems]
        change = Change(
            went_in=sorted(b for b in fixed
                           if found.computed[b].truth == Truth.IN and b not in was_in),
            went_out=sorted(b for b in fixed
                            if found.computed[b].truth != Truth.IN and b in was_in))
        return Repair(problems + tag_problems, enforce_nogoods(tx, change))

    return store.write(work, ChangeEntry("verify-repair"))
