"""What the property tests judge the stores by, written from the definitions and apart from
the code they judge (engine/tms/access.py's propagate_tags, engine/tms/nogoods.py): a
belief's effective access tags, and the nogood rule. Labels come from engine/tms/semantics.py,
which is itself independent of propagation.

Effective tags (docs/access.md, the docstring of engine/tms/access.py): a belief's own tags
and the effective tags of everything its current support rests on. An IN belief rests on the
antecedents of each justification that holds now (every antecedent IN, no outlist member IN);
a belief that is not IN on the antecedents of all its justifications; an outlist member is
never support. The least fixpoint of that union, found here by recomputing every belief from
its own tags until a whole pass changes nothing (no worklist, no region).

The nogood rule: while every member of a nogood is IN, the least entrenched assumption under
the members is retracted; an assumption is an IN premise or user-asserted belief reached from
the members through the antecedents of justifications that hold. A nogood whose members rest
on no assumption is left holding, recorded unresolved. So after any write no nogood has all
its members IN while an assumption lies under them.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from engine.model import Belief, Justification, Label, Nogood, Truth

TAGS_KEY = "access_tags"


def holds(j: Justification, truth: Mapping[str, Truth]) -> bool:
    """Every antecedent IN and no outlist member IN (an id that names no belief is OUT)."""
    return (all(truth.get(a) == Truth.IN for a in j.antecedents)
            and not any(truth.get(o) == Truth.IN for o in j.outlist))


def rests_on(b: Belief, truth: Mapping[str, Truth]) -> set[str]:
    if truth.get(b.id) == Truth.IN:
        return {a for j in b.justifications if holds(j, truth) for a in j.antecedents}
    return {a for j in b.justifications for a in j.antecedents}


def own_access_tags(b: Belief) -> frozenset[str]:
    raw = b.metadata.get(TAGS_KEY)
    return frozenset(t for t in raw if isinstance(t, str) and t) if isinstance(
        raw, (list, tuple)) else frozenset()


def effective_tags(beliefs: Mapping[str, Belief], labels: Mapping[str, Label]
                   ) -> dict[str, frozenset[str]]:
    truth = {bid: label.truth for bid, label in labels.items()}
    support = {bid: rests_on(b, truth) for bid, b in beliefs.items()}
    tags = {bid: own_access_tags(b) for bid, b in beliefs.items()}
    changed = True
    while changed:
        changed = False
        for bid in sorted(beliefs):
            grown = tags[bid].union(*(tags[a] for a in support[bid] if a in tags))
            if grown != tags[bid]:
                tags[bid], changed = grown, True
    return tags


def is_assumption(b: Belief) -> bool:
    """A premise (no justification but the gates supersede and challenge give one) or a
    belief the user asserted."""
    return all(j.gate for j in b.justifications) or b.asserted


def assumptions_under(beliefs: Mapping[str, Belief], truth: Mapping[str, Truth],
                      members: Sequence[str]) -> set[str]:
    found: set[str] = set()
    seen: set[str] = set()
    frontier = [m for m in members if m in beliefs]
    while frontier:
        bid = frontier.pop()
        if bid in seen or truth.get(bid) != Truth.IN:
            continue
        seen.add(bid)
        b = beliefs[bid]
        if is_assumption(b):
            found.add(bid)
        frontier += [a for j in b.justifications if holds(j, truth) for a in j.antecedents
                     if a in beliefs]
    return found


def nogoods_broken(beliefs: Mapping[str, Belief], labels: Mapping[str, Label],
                   nogoods: Iterable[Nogood]) -> list[str]:
    """Each nogood that breaks the rule, said: all its members IN with an assumption under
    them, or all IN and not recorded unresolved."""
    truth = {bid: label.truth for bid, label in labels.items()}
    broken = []
    for n in nogoods:
        if not all(truth.get(m) == Truth.IN for m in n.members):
            continue
        under = assumptions_under(beliefs, truth, n.members)
        if under:
            broken.append(f"{n.id} {list(n.members)}: all IN over assumptions {sorted(under)}")
        elif not n.resolution.startswith("unresolved"):
            broken.append(f"{n.id}: all IN, resolution {n.resolution!r}")
    return broken
