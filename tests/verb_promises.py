"""What each verb of tests/tms_edits.py promises to write, checked against the graph it left.

The label oracle (engine/tms/semantics.py) labels whatever structure is stored, so a verb that
wrote the wrong structure (a supersede without its gate, a challenge of the wrong
justification) would pass it. Here each verb's structure is predicted from the graph before
it, from what the verb's documentation says (docs/keeping.md, docs/tms.md), and compared
with the graph after it: every belief's justifications, the beliefs created, the supersede
links, the pins, and that nothing else changed. Written apart from the verbs' code.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from engine.model import Belief, Change, Justification
from engine.tms.records import Network

Structure = dict[str, tuple[Justification, ...]]


def _with_gate(j: Justification, gate: str) -> Justification:
    return j if gate in j.outlist else dataclasses.replace(j, outlist=j.outlist + (gate,))


def gated(js: tuple[Justification, ...], gate: str,
          positions: list[int] | None = None) -> tuple[Justification, ...]:
    """`gate` joins the outlist of the justifications at `positions` (1-based; all when
    None); a premise gets one gate justification (an outlist only), or has its own extended."""
    if all(j.gate for j in js):
        if not js:
            return (Justification((), (gate,), gate=True),)
        return (_with_gate(js[0], gate), *js[1:])
    return tuple(_with_gate(j, gate) if positions is None or k in positions else j
                 for k, j in enumerate(js, start=1))


def rewired(structure: Structure, old: str, new: str) -> Structure:
    """Every belief but NEW names NEW where it named OLD (antecedents and outlists)."""
    def moved(refs: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(new if r == old else r for r in refs)

    return {bid: js if bid == new else tuple(
        dataclasses.replace(j, antecedents=moved(j.antecedents), outlist=moved(j.outlist))
        for j in js) for bid, js in structure.items()}


def standing_gates(b: Belief, network: Network) -> list[str]:
    """What gates a belief whole: what supersedes it, whatever its gate justification holds,
    and the challenges of all its justifications (sorted)."""
    superseding = {r.new for r in network.supersessions if r.old == b.id}
    held = {o for j in b.justifications if j.gate for o in j.outlist}
    named = {o for j in b.justifications for o in j.outlist}
    return sorted(o for o in named if o in superseding or o in held or (
        o in network.beliefs and network.beliefs[o].metadata.get("challenge_target") == b.id
        and "justification" not in network.beliefs[o].metadata))


def _new_ids(before: Network, after: Network) -> list[str]:
    return sorted(set(after.beliefs) - set(before.beliefs))


def check_promise(op: tuple, before: Network, after: Network, change: Change | None) -> None:
    """Assert that `op` (applied, not refused) wrote exactly what it promises."""
    kind, target, argument = op
    structure: Structure = {bid: b.justifications for bid, b in before.beliefs.items()}
    created: dict[str, tuple[Justification, ...]] = {}
    links = {(r.old, r.new) for r in before.supersessions}
    new = _new_ids(before, after)
    if kind == "add":
        created[target] = tuple(argument)
        assert after.beliefs[target].text.startswith(f"belief {target}: "), op
    elif kind == "justify":
        b = before.beliefs[target]
        extra = standing_gates(b, before)
        structure[target] = (*(j for j in b.justifications if not j.gate),
                             *(dataclasses.replace(j, outlist=j.outlist + tuple(
                                 g for g in extra if g not in j.outlist)) for j in argument))
    elif kind == "retract":
        assert after.beliefs[target].retracted, f"{op}: not retracted"
    elif kind == "nogood":
        assert any(set(n.members) == set(target) for n in after.nogoods), f"{op}: no nogood"
    elif kind in ("supersede", "reword"):
        if kind == "reword":
            assert len(new) == 1, f"{op}: created {new}"
            successor = new[0]
            assert after.beliefs[successor].text == f"{target}, reworded", op
            created[successor] = tuple(j for j in before.beliefs[target].justifications
                                       if not j.gate)
            rewire = True if argument is None else argument
        else:
            successor, rewire = argument
        if rewire:
            structure = rewired(structure, target, successor)
        structure[target] = gated(structure[target], successor)
        links.add((target, successor))
    elif kind == "challenge":
        assert len(new) == 1 and new[0].startswith(f"challenge:{target}"), f"{op}: {new}"
        created[new[0]] = ()
        structure[target] = gated(structure[target], new[0],
                                  [argument] if argument else None)
        assert after.beliefs[new[0]].metadata.get("challenge_target") == target, op
    elif kind == "defend":
        assert len(new) == 1 and new[0].startswith(f"defence:{target}"), f"{op}: {new}"
        created[new[0]] = ()
        structure[target] = gated(structure[target], new[0])
    elif kind == "remove_justification":
        js = structure[target]
        structure[target] = js[:argument - 1] + js[argument:]
    elif kind == "convert":
        gates = standing_gates(before.beliefs[target], before)
        structure[target] = (Justification((), tuple(gates), gate=True),) if gates else ()
    elif kind == "tag":
        assert after.beliefs[target].metadata.get("access_tags") == sorted(set(argument)), op
    if kind not in ("supersede_undo",):
        assert set(new) == set(created), f"{op}: created {new}, promised {sorted(created)}"
    structure.update(created)
    for bid, b in after.beliefs.items():
        assert b.justifications == structure[bid], (
            f"after {op}: {bid} has {b.justifications}, promised {structure[bid]}")
    assert {(r.old, r.new) for r in after.supersessions} == links, f"after {op}: links"
    _check_pins(op, before.beliefs, after.beliefs, change)


def _check_pins(op: tuple, before: Mapping[str, Belief], after: Mapping[str, Belief],
                change: Change | None) -> None:
    """Retractions move only where the verb says, or where a nogood's resolution retracted
    an assumption (each said in `retracted_by_nogood`, with its nogood as the reason)."""
    kind, target, _ = op
    victims = set(change.retracted_by_nogood) if change is not None else set()
    for v in victims:
        assert after[v].retracted and after[v].retract_reason.startswith("nogood "), (
            f"after {op}: {v} said retracted by a nogood, but is {after[v]}")
        was = before.get(v)
        assert (was is None or was.is_premise or was.asserted or after[v].is_premise
                or (kind == "assert" and target == v)), (
            f"after {op}: {v} retracted by a nogood is not an assumption")
    for bid, b in after.items():
        if bid in victims or bid not in before:
            continue
        expected = before[bid].retracted
        if bid == target and kind == "retract":
            expected = True
        elif bid == target and kind == "assert":
            expected = False
        assert b.retracted == expected, (
            f"after {op}: {bid} retracted {b.retracted}, {expected} promised "
            f"(retracted by a nogood: {sorted(victims)})")
