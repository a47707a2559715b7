"""The kernel's verbs inside a write transaction: what every write path shares.

`add_beliefs_in`, `add_justification_in`, `retract_in`, `assert_in` and `enforce_nogoods`
change definitions, propagate (`tx.relabel`) and resolve the nogoods that now hold, in the
caller's transaction. The store-level verbs (engine/tms/verbs.py), the daily verbs
(engine/memory/), the stages' applies and proposals' accept all call these, so they follow
the same rules. Input is checked before anything is written; a problem raises InvalidInput /
NotFound.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from engine.clock import now_iso
from engine.errors import InvalidInput, NotFound
from engine.model import Belief, Change, Justification, Kind, check_id, check_text
from engine.tms import nogoods as nogood_rules
from engine.tms.records import ResolutionTx, TmsTx

now = now_iso  # the engine's clock (engine/clock.py), under the name the stages import


# --- building justifications ---------------------------------------------------------
def make_justifications(
    antecedents: Sequence[str] = (),
    *,
    unless: Sequence[str] = (),
    kind: Kind = Kind.SL,
    any_mode: bool = False,
    label: str = "",
) -> tuple[Justification, ...]:
    """ALL: one justification over every antecedent. ANY: one per antecedent, each with
    the whole outlist. No antecedents and no outlist: none (a premise)."""
    antecedents = tuple(dict.fromkeys(antecedents))
    unless = tuple(dict.fromkeys(unless))
    for ref in antecedents + unless:
        check_id(ref, what="antecedent id" if ref in antecedents else "outlist id")
    if any_mode and antecedents:
        return tuple(Justification((a,), unless, kind, label) for a in antecedents)
    if not antecedents and not unless:
        return ()
    return (Justification(antecedents, unless, kind, label),)


def check_justifications(belief_id: str, justifications: Iterable[Justification]) -> None:
    """Every id a justification names is well-formed, and none is the belief itself."""
    for j in justifications:
        for ref in j.antecedents:
            check_id(ref, what="antecedent id")
        for ref in j.outlist:
            check_id(ref, what="outlist id")
        if belief_id in j.mentions():
            raise InvalidInput(
                f"belief '{belief_id}' cannot name itself in its own justification",
                field="justification",
                value=belief_id,
            )



def add_beliefs_in(tx: ResolutionTx, beliefs: Sequence[Belief]) -> Change:
    """Inside a write transaction: create new beliefs, propagate, enforce nogoods.

    Used by `add` and by derive's apply, so both follow the same rules."""
    seen: set[str] = set()
    for b in beliefs:
        check_id(b.id)
        check_text(b.text, ident=b.id)
        check_justifications(b.id, b.justifications)
        if b.id in seen:
            raise InvalidInput(f"belief '{b.id}' is given twice", field="id", value=b.id)
        seen.add(b.id)
    taken = tx.existing_ids(seen)
    if taken:
        first = sorted(taken)[0]
        raise InvalidInput(f"belief '{first}' already exists", field="id", value=first)
    tx.create_beliefs(list(beliefs))
    change = tx.relabel(seen)
    return enforce_nogoods(tx, change)


def check_new_justifications(belief_id: str, justifications: Sequence[Justification]) -> None:
    """What add-justification checks before it writes: some justification, well-formed ids."""
    if not justifications:
        raise InvalidInput("add-justification needs --sl, --cp or --unless ids",
                           field="justification")
    check_justifications(belief_id, justifications)


def add_justification_in(tx: ResolutionTx, belief_id: str,
                         justifications: Sequence[Justification]) -> Change:
    """Inside a write transaction: add-justification with its propagation and nogoods."""
    require_ids(tx, [belief_id])
    add_justifications_in(tx, belief_id, justifications)
    return enforce_nogoods(tx, tx.relabel([belief_id]))


def add_justifications_in(tx: ResolutionTx, belief_id: str,
                          justifications: Sequence[Justification]) -> None:
    """Add justifications, gated as the belief is gated whole (its supersessor, its
    challenges of every justification): a gated premise becomes derived and stays gated,
    its gate justification going."""
    belief = tx.get_beliefs([belief_id])[belief_id]
    extra = standing_gates(tx, belief)
    justifications = [dataclasses.replace(
        j, outlist=j.outlist + tuple(o for o in extra if o not in j.outlist))
        for j in justifications]
    for position in sorted((k for k, j in enumerate(belief.justifications, start=1)
                            if j.gate), reverse=True):
        tx.remove_justification(belief_id, position)
    tx.add_justifications(belief_id, list(justifications))


def standing_gates(tx: TmsTx, b: Belief) -> list[str]:
    """The outlist members that gate a belief whole: what supersedes it, the challenges of
    all its justifications, and whatever its gate justification holds."""
    named = sorted({o for j in b.justifications for o in j.outlist})
    if not named:
        return []
    info = tx.get_beliefs(named)
    by, _ = tx.supersede_links(b.id)
    held = {o for j in b.justifications if j.gate for o in j.outlist}
    return [o for o in named if o in by or o in held or (
        o in info and info[o].metadata.get("challenge_target") == b.id
        and "justification" not in info[o].metadata)]


def justification_args(j: Justification) -> dict[str, object]:
    return {"kind": j.kind.value, "antecedents": list(j.antecedents), "outlist": list(j.outlist),
            **({"label": j.label} if j.label else {})}


def retract_in(tx: ResolutionTx, belief_id: str, reason: str = "") -> Change:
    if belief_id not in tx.set_pins([belief_id], retracted=True, asserted=False, reason=reason,
                                    at=now()):
        raise NotFound("belief", belief_id)
    return enforce_nogoods(tx, tx.relabel([belief_id]))


def assert_in(tx: ResolutionTx, belief_id: str) -> Change:
    stamp = now()
    pinned = tx.set_pins([belief_id], retracted=False, asserted=False, reason="", at=stamp)
    if belief_id not in pinned:
        raise NotFound("belief", belief_id)
    change = tx.relabel([belief_id])
    now_in = belief_id in change.went_in or (
        pinned[belief_id].was_in and belief_id not in change.went_out)
    if not now_in and not pinned[belief_id].premise:
        tx.set_pins([belief_id], retracted=False, asserted=True, reason="", at=stamp)
        change = change.merge(tx.relabel([belief_id]))
    return enforce_nogoods(tx, change)


def enforce_nogoods(tx: ResolutionTx, change: Change) -> Change:
    """Resolve every nogood that `change` made hold (all members IN), and look again at those
    left holding unresolved: a write may have put an assumption under their members without
    moving a label of theirs (a justification added or removed, a premise come IN)."""
    unresolved = tx.unresolved_nogoods_holding()
    looked_at = {n.id for n in unresolved}
    holding = unresolved + [n for n in (tx.nogoods_holding(change.went_in)
                                        if change.went_in else []) if n.id not in looked_at]
    if not holding:
        return change
    return nogood_rules.resolve(tx, holding, change, at=now())


def require_ids(tx: ResolutionTx, ids: Iterable[str]) -> None:
    ids = list(ids)
    found = tx.existing_ids(ids)
    for i in ids:
        if i not in found:
            raise NotFound("belief", i)

