"""The definition of truth: labels computed from scratch as the well-founded model.

Pure Python, no I/O. `verify` and the tests compare the graph's stored labels with
`compute_labels`; the in-database propagation must always agree with it.

Reading a network as a normal logic program:
- a belief that is not retracted and is a premise (no justifications) or user-asserted is
  a fact;
- a retracted belief has no rules at all (it is pinned OUT);
- every other belief has one rule per justification:
  `b <- a1, ..., an, not o1, ..., not om`;
- an id that names no belief has no rules, so it is never IN and counts as OUT.

The well-founded model (computed by the alternating fixpoint) gives each belief one of
three values. True -> IN. False -> OUT. Undefined -> UNDETERMINED (stored as
:Out:Undetermined): beliefs on an odd or even loop through outlists, and what rests on them.
Circular positive support is no support: a belief whose only support runs through itself is
false, hence OUT.

Depth: 0 for premises (retracted or not) and for user-asserted beliefs (they hold as facts,
whatever their justifications); for an IN derived belief, 1 + the largest antecedent depth of its shallowest valid justification;
for any other derived belief, the same over all its justifications. A missing id has depth 0.
"Shallowest" is the minimum over finite derivations (Knuth's generalisation of Dijkstra), so a
belief whose every justification waits on itself has no finite depth: None.
"""
from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Mapping

from engine.model import Belief, Justification, Label, Truth


def compute_labels(beliefs: Mapping[str, Belief]) -> dict[str, Label]:
    """Label every belief in `beliefs` (keyed by id) from scratch."""
    true, possible = _well_founded(beliefs)
    truth = {
        bid: Truth.IN if bid in true else Truth.UNDETERMINED if bid in possible else Truth.OUT
        for bid in beliefs
    }
    depths = _depths(beliefs, truth)
    return {bid: Label(truth[bid], depths.get(bid)) for bid in beliefs}


def is_valid(j: Justification, truth: Mapping[str, Truth]) -> bool:
    """A justification is valid when every antecedent is IN and every outlist member is OUT
    (a missing id is OUT; an UNDETERMINED one is neither)."""
    return all(truth.get(a) == Truth.IN for a in j.antecedents) and all(
        truth.get(o, Truth.OUT) == Truth.OUT for o in j.outlist
    )


def _is_fact(b: Belief) -> bool:
    return not b.retracted and (b.is_premise or b.asserted)


def _rules(beliefs: Mapping[str, Belief]) -> list[tuple[str, Justification]]:
    return [
        (bid, j)
        for bid, b in beliefs.items()
        if not b.retracted and not _is_fact(b)
        for j in b.justifications
    ]


def _well_founded(beliefs: Mapping[str, Belief]) -> tuple[set[str], set[str]]:
    """Return (true, possibly-true) by the alternating fixpoint T <- G(G(T)), U = G(T)."""
    facts = {bid for bid, b in beliefs.items() if _is_fact(b)}
    rules = _rules(beliefs)
    true: set[str] = set()
    while True:
        possible = _least_model(facts, rules, assumed_true=true)
        next_true = _least_model(facts, rules, assumed_true=possible)
        if next_true == true:
            return true, possible
        true = next_true


def _least_model(
    facts: set[str], rules: list[tuple[str, Justification]], *, assumed_true: set[str]
) -> set[str]:
    """Least model of the program reduced by `assumed_true`: a rule survives when none of its
    outlist members is in `assumed_true`; then plain Horn forward chaining (linear time)."""
    model = set(facts)
    queue = list(facts)
    waiting: dict[str, list[int]] = defaultdict(list)
    missing_count: list[int] = []
    heads: list[str] = []
    for head, j in rules:
        if any(o in assumed_true for o in j.outlist):
            continue
        antecedents = set(j.antecedents)
        if not antecedents:
            if head not in model:
                model.add(head)
                queue.append(head)
            continue
        index = len(heads)
        heads.append(head)
        missing_count.append(len(antecedents))
        for a in antecedents:
            waiting[a].append(index)
    while queue:
        b = queue.pop()
        for index in waiting.pop(b, ()):
            missing_count[index] -= 1
            if missing_count[index] == 0 and heads[index] not in model:
                model.add(heads[index])
                queue.append(heads[index])
    return model


def _depths(beliefs: Mapping[str, Belief], truth: Mapping[str, Truth]) -> dict[str, int | None]:
    """Minimum-height derivation depth (see the module docstring)."""
    depth: dict[str, int] = {}
    heap: list[tuple[int, str]] = []
    # Each relevant justification waits for its distinct antecedents to be settled.
    waiting: dict[str, list[int]] = defaultdict(list)
    remaining: list[int] = []
    highest: list[int] = []
    heads: list[str] = []

    def settle_later(bid: str, d: int) -> None:
        heapq.heappush(heap, (d, bid))

    for bid, b in beliefs.items():
        if b.is_premise or (b.asserted and truth[bid] == Truth.IN):
            settle_later(bid, 0)
            continue
        relevant = b.justifications
        if truth[bid] == Truth.IN:
            relevant = tuple(j for j in b.justifications if is_valid(j, truth))
        for j in relevant:
            antecedents = set(j.antecedents)
            index = len(heads)
            heads.append(bid)
            highest.append(0)
            known = {a for a in antecedents if a not in beliefs}  # missing ids: depth 0
            remaining.append(len(antecedents) - len(known))
            for a in antecedents - known:
                waiting[a].append(index)
            if remaining[index] == 0:
                settle_later(bid, 1)
    while heap:
        d, bid = heapq.heappop(heap)
        if bid in depth:
            continue
        depth[bid] = d
        for index in waiting.pop(bid, ()):
            remaining[index] -= 1
            highest[index] = max(highest[index], d)
            if remaining[index] == 0 and heads[index] not in depth:
                settle_later(heads[index], highest[index] + 1)
    return {bid: depth.get(bid) for bid in beliefs}
