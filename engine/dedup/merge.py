"""Merging duplicates into one belief, and undoing a merge, inside a write transaction.

A merge moves every antecedent and outlist edge that names the merged belief onto the kept
one, retracts the merged belief with reason `duplicate of <kept>`, leaves a DUPLICATE_OF
edge holding what undo needs (the edges moved, the pins and timestamp before), and
propagates, nogoods included. Undo moves the same edges back, restores the pins, and
propagates again.

The kept belief: the model's `keep` when it is among the duplicates, else the one with the
most dependents; ties go to a premise before a derived belief, then to the older, then to the
smaller id.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.change_records import ChangeEntry
from engine.errors import NotFound
from engine.model import Belief, Change, check_id
from engine.pairs.nogood_pairs import ContradictionTx
from engine.pairs.records import MergeRecord, PairVerdict
from engine.store import Store
from engine.tms.kernel import enforce_nogoods
from engine.tms.records import TmsTx

UNDONE = "UNDONE"  # the verdict a merge's pair gets when the merge is undone


def choose_keep(same: Sequence[str], model_keep: str, beliefs: Mapping[str, Belief],
                dependents: Mapping[str, int]) -> str:
    if model_keep in same:
        return model_keep

    def rank(i: str):
        b = beliefs[i]
        return (-dependents.get(i, 0), 0 if b.is_premise else 1, b.created_at or "\uffff", i)

    return min(same, key=rank)


def merge_in(tx: ContradictionTx, merged: str, kept: str, *, run_id: str, round_n: int, at: str
             ) -> Change:
    """Merge `merged` into `kept` (both must exist); returns what went IN and OUT."""

    before = tx.get_beliefs([merged])[merged]
    rewired = tx.rewire_mentions(merged, kept)
    tx.set_pins([merged], retracted=True, asserted=False, reason=f"duplicate of {kept}", at=at)
    tx.record_merge(MergeRecord(
        merged=merged, kept=kept, rewired=rewired, was_retracted=before.retracted,
        was_asserted=before.asserted, was_retracted_at=before.retracted_at,
        was_reason=before.retract_reason, was_updated_at=before.updated_at, run_id=run_id,
        round=round_n, at=at))
    change = tx.relabel([merged] + sorted({e.belief for e in rewired}))
    return enforce_nogoods(tx, change)


def undo_in(tx: ContradictionTx, merged: str) -> Change:

    record = tx.merge_record(merged)
    if record is None:
        raise NotFound("merge of belief", merged)
    tx.undo_merge(record)
    a, b = sorted((merged, record.kept))
    for v in tx.pair_verdicts("dedup"):
        if (v.a, v.b) == (a, b):
            tx.save_pair_verdicts([PairVerdict(v.stage, a, b, v.sha_a, v.sha_b, UNDONE,
                                               v.run_id, v.round, "merge undone by the user")])
    change = tx.relabel([merged] + sorted({e.belief for e in record.rewired}))
    return enforce_nogoods(tx, change)


def undo(store: Store[ContradictionTx], merged: str) -> Change:
    """`python -m engine.dedup undo ID`: restore a merged belief and the edges that named it,
    in one write transaction with the propagation it causes."""
    check_id(merged)
    return store.write(lambda tx: undo_in(tx, merged), ChangeEntry("dedup-undo", {"id": merged}))


def rests_on(tx: TmsTx, kept: str, merged: str) -> bool:
    """Whether `kept`'s label depends on `merged`: merging would leave it circular."""
    return merged in tx.upstream([kept])

