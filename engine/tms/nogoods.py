"""Nogood resolution: while every member of a nogood is IN, retract the least entrenched
assumption the members rest on, and look again.

Assumptions are the IN premises and user-asserted beliefs found by walking down from the
members through valid justifications' antecedents, and the premises of another agent's
memory (derived here from its switch `NAME:active` alone; the marks are
engine/tms/agent_marks.py's). A switch is never one: it stands for a whole memory, which a
person turns off, not a nogood.
Entrenchment, least first (the first difference decides; ties go to the smallest id, never
to hash order):
1. a user-asserted belief is less entrenched than an observed premise (ours or an agent's);
2. metadata `beliefs_type`: assumption / hypothesis / speculation < anything else (default)
   < observation / fact / measurement < axiom / definition; an imported belief counts at
   most as the default, so it ranks below our observations whatever its file says;
3. an imported belief < one of ours;
4. no source hash < has a source hash;
5. no source or source URL < has one;
6. fewer direct dependents < more.
A nogood whose members rest on no assumption (an outlist gate on nothing, say) cannot be
resolved by retraction: it is recorded as unresolved and left holding, and looked at again
after every write (engine/tms/kernel.enforce_nogoods), since one may put an assumption under
its members without moving their labels.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.model import Belief, Change, Nogood, Truth
from engine.tms.agent_marks import is_agent_premise, is_switch, namespace_of
from engine.tms.records import ResolutionTx
from engine.tms.semantics import is_valid


TYPE_RANK = {
    "assumption": 0, "hypothesis": 0, "speculation": 0,
    "observation": 2, "fact": 2, "measurement": 2,
    "axiom": 3, "definition": 3,
}
DEFAULT_TYPE_RANK = 1
UNRESOLVED = "unresolved: its members rest on no assumption"


def entrenchment(b: Belief, dependents: int) -> tuple[int, int, int, int, int, int]:
    kind = str(b.metadata.get("beliefs_type", "")).strip().lower()
    rank = TYPE_RANK.get(kind, DEFAULT_TYPE_RANK)
    imported = namespace_of(b) is not None
    return (
        1 if b.is_premise or is_agent_premise(b) else 0,
        min(rank, DEFAULT_TYPE_RANK) if imported else rank,
        0 if imported else 1,
        1 if b.source_hash else 0,
        1 if (b.source or b.source_url) else 0,
        dependents,
    )


def assumptions(upstream: Mapping[str, Belief], members: Sequence[str]) -> list[str]:
    """IN premises and asserted beliefs under the members' valid support."""
    truth = {i: b.truth for i, b in upstream.items()}
    found: set[str] = set()
    seen: set[str] = set()
    stack = [m for m in members if m in upstream]
    while stack:
        bid = stack.pop()
        if bid in seen:
            continue
        seen.add(bid)
        b = upstream[bid]
        if b.truth != Truth.IN:
            continue
        if (b.is_premise or b.asserted or is_agent_premise(b)) and not is_switch(b):
            found.add(bid)
        for j in b.justifications:
            if is_valid(j, truth):
                stack.extend(a for a in j.antecedents if a in upstream)
    return sorted(found)


def resolve(tx: ResolutionTx, holding: Sequence[Nogood], change: Change, *, at: str) -> Change:
    queue = list(holding)
    # each nogood's resolution as stored (those read without it: not known, so written)
    recorded = {n.id: n.resolution for n in holding}
    while queue:
        nogood = queue.pop(0)
        members = tx.get_beliefs(nogood.members)
        if len(members) < len(nogood.members) or any(
            b.truth != Truth.IN for b in members.values()
        ):
            continue
        upstream = tx.upstream(nogood.members)
        candidates = assumptions(upstream, nogood.members)
        if not candidates:
            if not recorded.get(nogood.id, "").startswith("unresolved"):  # once, not each look
                tx.set_nogood_resolution(nogood.id, UNRESOLVED)
                recorded[nogood.id] = UNRESOLVED
            continue
        counts = tx.dependent_counts(candidates)
        victim = min(candidates, key=lambda i: (entrenchment(upstream[i], counts.get(i, 0)), i))
        tx.set_pins([victim], retracted=True, asserted=False, reason=f"nogood {nogood.id}", at=at)
        step = tx.relabel([victim])
        change = change.merge(step)
        change.retracted_by_nogood.append(victim)
        tx.note_retracted_by_nogood([victim])
        tx.set_nogood_resolution(nogood.id, f"retracted {victim}")
        recorded[nogood.id] = f"retracted {victim}"
        queue.insert(0, nogood)
        queue.extend(tx.nogoods_holding(step.went_in))
    return change
