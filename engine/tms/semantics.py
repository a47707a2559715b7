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

Depth: 0 for premises (retracted or not; a premise gated by supersede or challenge included)
and for user-asserted beliefs (they hold as facts, whatever their justifications); for an IN
derived belief, 1 + the largest antecedent depth of its shallowest valid justification; for
any other derived belief, the same over all its justifications. A missing id has depth 0.
"Shallowest" is the minimum over finite derivations (Knuth's generalisation of Dijkstra), so a
belief whose every justification waits on itself has no finite depth: None.
"""
from __future__ import annotations

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


def is_valid(j: Justification, truth: Mapping[str, Truth | None]) -> bool:
    """A justification is valid when every antecedent is IN and every outlist member is OUT
    (a missing id is OUT; an UNDETERMINED one is neither)."""
    return all(truth.get(a) == Truth.IN for a in j.antecedents) and all(
        truth.get(o, Truth.OUT) == Truth.OUT for o in j.outlist
    )


def _is_fact(b: Belief) -> bool:
    # a gated premise (its only justification a gate) is not a fact: its gate is its rule
    return not b.retracted and (not b.justifications or b.asserted)


class _Program:
    """The network as rules, compiled once: each rule's head, distinct antecedents and
    outlist, with an index from each antecedent to the rules waiting on it."""

    def __init__(self, beliefs: Mapping[str, Belief]):
        self.facts = {bid for bid, b in beliefs.items() if _is_fact(b)}
        self.heads: list[str] = []
        self.antecedent_counts: list[int] = []
        self.outlists: list[tuple[str, ...]] = []
        self.waiting: dict[str, list[int]] = defaultdict(list)
        for bid, b in beliefs.items():
            if b.retracted or bid in self.facts:
                continue
            for j in b.justifications:
                index = len(self.heads)
                antecedents = set(j.antecedents)
                self.heads.append(bid)
                self.antecedent_counts.append(len(antecedents))
                self.outlists.append(j.outlist)
                for a in antecedents:
                    self.waiting[a].append(index)
        self.has_outlists = any(self.outlists)

    def least_model(self, assumed_true: set[str]) -> set[str]:
        """Least model of the program reduced by `assumed_true`: a rule survives when none of
        its outlist members is in `assumed_true`; then Horn forward chaining (linear time)."""
        blocked = [any(o in assumed_true for o in out) for out in self.outlists]
        missing = list(self.antecedent_counts)
        model = set(self.facts)
        queue = list(self.facts)
        for index, head in enumerate(self.heads):
            if missing[index] == 0 and not blocked[index] and head not in model:
                model.add(head)
                queue.append(head)
        while queue:
            for index in self.waiting.get(queue.pop(), ()):
                missing[index] -= 1
                if missing[index] == 0 and not blocked[index]:
                    head = self.heads[index]
                    if head not in model:
                        model.add(head)
                        queue.append(head)
        return model


def _well_founded(beliefs: Mapping[str, Belief]) -> tuple[set[str], set[str]]:
    """Return (true, possibly-true) by the alternating fixpoint T <- G(G(T)), U = G(T)."""
    program = _Program(beliefs)
    if not program.has_outlists:  # G does not depend on its argument: one least model
        model = program.least_model(set())
        return model, model
    true: set[str] = set()
    while True:
        possible = program.least_model(true)
        next_true = program.least_model(possible)
        if next_true == possible or next_true == true:  # two-valued, or converged
            return next_true, possible
        true = next_true


def _depths(beliefs: Mapping[str, Belief], truth: Mapping[str, Truth]) -> dict[str, int | None]:
    """Minimum-height derivation depth (see the module docstring), by Dial's bucket queue:
    a justification's candidate depth is 1 + its largest settled antecedent depth, so
    depths settle in increasing order."""
    buckets: dict[int, list[str]] = defaultdict(list)
    waiting: dict[str, list[int]] = defaultdict(list)  # antecedent -> justification indexes
    remaining: list[int] = []
    highest: list[int] = []
    heads: list[str] = []
    for bid, b in beliefs.items():
        is_in = truth[bid] == Truth.IN
        if b.is_premise or (b.asserted and is_in):
            buckets[0].append(bid)
            continue
        relevant = [j for j in b.justifications if is_valid(j, truth)] if is_in \
            else b.justifications
        for j in relevant:
            pending = {a for a in j.antecedents if a in beliefs}  # a missing id has depth 0
            index = len(heads)
            heads.append(bid)
            highest.append(0)
            remaining.append(len(pending))
            for a in pending:
                waiting[a].append(index)
            if not pending:
                buckets[1].append(bid)
    depth: dict[str, int] = {}
    level = 0
    while buckets:
        for bid in buckets.pop(level, ()):
            if bid in depth:
                continue
            depth[bid] = level
            for index in waiting.pop(bid, ()):
                remaining[index] -= 1
                if level > highest[index]:
                    highest[index] = level
                if remaining[index] == 0 and heads[index] not in depth:
                    buckets[highest[index] + 1].append(heads[index])
        level += 1
    return {bid: depth.get(bid) for bid in beliefs}
