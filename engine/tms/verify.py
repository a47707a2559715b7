"""verify and repair: the stored labels held against the definition (engine/tms/semantics.py,
computed fast by engine/tms/labelling.py), and the differences written back.
"""
from __future__ import annotations

import dataclasses

from engine.bulk import cyclic_gc_paused
from engine.change_records import ChangeEntry
from engine.model import Belief, Change, Label, Truth
from engine.tms import access
from engine.tms.kernel import enforce_nogoods
from engine.tms.labelling import labels_from_scratch
from engine.tms.records import ResolutionTx, TmsStore
from engine.tms.semantics import compute_labels


@dataclasses.dataclass(frozen=True)
class Mismatch:
    id: str
    stored: str
    computed: str


def verify(store: TmsStore) -> list[Mismatch]:
    """Recompute every label from scratch and list where the graph disagrees."""

    with cyclic_gc_paused():  # 200k beliefs read and labelled: no cycles among them
        beliefs, raw_labels = store.read(lambda tx: tx.read_labelling())
        computed = labels_from_scratch(beliefs)
        return compare_labels(beliefs, raw_labels, computed) + compare_tags(beliefs, computed)


def compare_tags(beliefs: dict[str, Belief], computed: dict[str, Label]) -> list[Mismatch]:
    """Where the stored effective access tags differ from those the labels give
    (engine/tms/access.py); nothing to do when no belief carries tags."""
    if not any(b.effective_tags or b.metadata for b in beliefs.values()):
        return []
    want = access.effective_tags(beliefs, {bid: label.truth for bid, label in computed.items()})
    return [Mismatch(bid, "tags " + ",".join(beliefs[bid].effective_tags),
                     "tags " + ",".join(sorted(want[bid])))
            for bid in sorted(beliefs) if set(beliefs[bid].effective_tags) != want[bid]]


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
        beliefs, raw_labels = tx.read_labelling()
        computed = labels_from_scratch(beliefs)
        problems = compare_labels(beliefs, raw_labels, computed)
        tag_problems = compare_tags(beliefs, computed)
        if not problems and not tag_problems:
            return Repair([], Change())
        # writing labels recomputes every effective tag too (the store's write_labels)
        tx.write_labels({p.id: computed[p.id] for p in problems})
        if not problems:
            return Repair(tag_problems, Change())
        was_in = {bid for bid in beliefs if "In" in raw_labels.get(bid, ())}
        fixed = [p.id for p in problems]
        change = Change(
            went_in=sorted(b for b in fixed if computed[b].truth == Truth.IN and b not in was_in),
            went_out=sorted(b for b in fixed if computed[b].truth != Truth.IN and b in was_in))
        return Repair(problems + tag_problems, enforce_nogoods(tx, change))

    return store.write(work, ChangeEntry("verify-repair"))


def compare_labels(beliefs: dict[str, Belief], raw_labels: dict[str, list[str]],
                   computed: dict[str, Label] | None = None) -> list[Mismatch]:
    computed = computed if computed is not None else compute_labels(beliefs)
    problems: list[Mismatch] = []
    for bid in sorted(beliefs):
        raw = raw_labels.get(bid, ())
        has_out = "Out" in raw
        if ("In" in raw) == has_out or ("Undetermined" in raw and not has_out):
            problems.append(Mismatch(bid, "labels " + ":".join(sorted(set(raw))),
                                     str(computed[bid].truth)))
            continue
        b = beliefs[bid]
        want = computed[bid]
        truth = b.truth or Truth.OUT
        if truth != want.truth:
            problems.append(Mismatch(bid, f"{truth}", f"{want.truth}"))
        elif b.depth != want.depth:
            problems.append(Mismatch(bid, f"depth {b.depth}", f"depth {want.depth}"))
    return problems

