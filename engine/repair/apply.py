"""Applying repairs inside the round's write transaction (the Run and Round are written by
the machinery), with the propagation they cause; checked again first.

- link: a new justification on the belief: the defeated one's antecedents plus the bridges,
  its outlist less the defeaters answered (and the belief's whole gates, as any justification
  added later gets them). It is due for review like any other: repair never marks it valid.
- soften: the belief is superseded by a reworded one (engine/memory/supersede.py, `--text`) holding
  its justifications, the repaired one without the defeaters answered; dependents are
  rewired to the new belief. `supersede --undo` restores the old one.
- abandon and research write no belief: research records a (:Gap).
Each repair gets a `(:Round)-[:REPAIRED {action, defeaters, ...}]` edge: to the new
justification (link), the new belief (soften), or the defeated justification (abandon,
research); its `defeaters` keep the justification from being shown again.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Protocol

from engine.memory.supersede import SupersedeTx, supersede_in
from engine.model import Change, Justification
from engine.repair.due import Defeated
from engine.repair.records import Gap, RepairEdge, RepairTx
from engine.repair.repairs import ABANDON, LINK, RESEARCH, SOFTEN, Repair
from engine.repair.validate import check_repairs
from engine.stages.provenance import RoundRecord, RunRecord
from engine.stages.stage import Action, Applied, AppliedEntry
from engine.tms import enforce_nogoods, standing_gates
from engine.tms.records import TmsTx

ACTION_OF = {LINK: Action.LINKED, SOFTEN: Action.SOFTENED, ABANDON: Action.ABANDONED,
             RESEARCH: Action.RESEARCH}
ORDER = {LINK: 0, ABANDON: 1, RESEARCH: 2, SOFTEN: 3}  # a soften copies the links before it


class RepairApplyTx(SupersedeTx, RepairTx, Protocol):
    """What applying repairs writes: links and gates (TmsTx), softening by supersede
    (SupersedeTx), the REPAIRED edges and gaps (RepairTx)."""


def _fields(r: Repair, d: Defeated, run: RunRecord, at: str, **extra: object) -> dict[str, object]:
    return {"action": r.action, "belief": r.belief, "justification": r.justification,
            "defeaters": list(d.defeater_ids), "bridges": list(r.bridges), "text": r.text,
            "comment": r.comment, "run_id": run.id, "at": at, **extra}


def linked(tx: TmsTx, r: Repair, d: Defeated) -> tuple[Justification, int]:
    """The new justification of a link, and the position it will have."""
    b = tx.get_beliefs([r.belief])[r.belief]
    old = b.justifications[r.justification - 1]
    answered = set(d.defeater_ids)
    outlist = tuple(o for o in old.outlist if o not in answered)
    outlist += tuple(g for g in standing_gates(tx, b) if g not in answered and g not in outlist)
    antecedents = old.antecedents + tuple(x for x in r.bridges if x not in old.antecedents)
    label = f"{old.label} (repair: link)".strip()
    return (Justification(antecedents, outlist, old.kind, label),
            len(b.justifications) + 1)


def softened_justifications(tx: TmsTx, r: Repair, d: Defeated) -> list[Justification]:
    b = tx.get_beliefs([r.belief])[r.belief]
    answered = set(d.defeater_ids)
    return [dataclasses.replace(j, outlist=tuple(o for o in j.outlist if o not in answered))
            if k == r.justification else j
            for k, j in enumerate(b.justifications, start=1) if not j.gate]


def write_repairs(tx: RepairApplyTx, repairs: Sequence[Repair], run: RunRecord, record: RoundRecord,
                  *, at: str) -> Applied:
    checked, answered = check_repairs(tx, repairs)
    ordered = sorted(checked.valid, key=lambda r: ORDER[r.action])
    edges: list[RepairEdge] = []
    gaps: list[Gap] = []
    touched: list[str] = []
    new_of: dict[str, str] = {}
    change = Change()
    for r in ordered:
        d = answered[r.key]
        if r.action == LINK:
            j, position = linked(tx, r, d)
            tx.add_justifications(r.belief, [j])
            touched.append(r.belief)
            edges.append(RepairEdge(r.belief, position, _fields(r, d, run, at,
                                                                new_position=position)))
        elif r.action in (ABANDON, RESEARCH):
            edges.append(RepairEdge(r.belief, r.justification, _fields(r, d, run, at)))
            if r.action == RESEARCH:
                gaps.append(Gap(r.text, r.belief, r.justification))
    if touched:
        change = enforce_nogoods(tx, change.merge(tx.relabel(sorted(set(touched)))))
    for r in ordered:
        if r.action != SOFTEN:
            continue
        d = answered[r.key]
        done = supersede_in(tx, r.belief, None, text=r.text, new_id=None,
                            justifications=softened_justifications(tx, r, d), rewire=None,
                            reason=f"repair: soften (run {run.id})")
        new_of[r.key] = done.new
        change = change.merge(done.change)
        edges.append(RepairEdge(done.new, None, _fields(r, d, run, at, replaces=r.belief)))
    tx.record_repairs(run.id, record.round, edges)
    tx.add_gaps(run.id, record.round, gaps, at)
    truths = tx.truths({new_of.get(r.key, r.belief) for r in ordered})
    entries = []
    for r in checked.valid:
        shown = new_of.get(r.key, r.belief)
        truth = truths.get(shown)
        entries.append(AppliedEntry(
            r.key, ACTION_OF[r.action], truth_value=truth.value if truth else None,
            fields={"belief": r.belief, "justification": r.justification,
                    "defeaters": list(answered[r.key].defeater_ids),
                    "bridges": list(r.bridges) or None, "text": r.text or None,
                    "new_belief": new_of.get(r.key)}))
    return Applied(checked, entries, change)
