"""The well-founded model of a region, given the settled labels of what it rests on.

Pure Python, no I/O: propagation reads a region (the beliefs whose own definition changed
and everything downstream of them) and the labels of the nodes outside it that the region
names, and this module decides the region's values and depths; they equal what
`engine/tms/semantics.compute_labels` gives those beliefs on the whole network (the unit and
property tests check it). Nothing upstream of a region can change, since its inputs did not,
so the region is computed in dependency order:

- a belief on no cycle (found by Kahn's algorithm, or a single-member component later) is
  evaluated once from the settled values of what it names: the best justification's
  weakest part (three-valued), pins first;
- a cyclic component (Tarjan, upstream first) is settled by the alternating fixpoint over its
  members with everything upstream fixed, and its depths by the shortest finite derivation
  (Knuth's generalisation of Dijkstra).

Values are ranks (engine/tms/values.py: OUT < UNDETERMINED < IN); a missing id is OUT with
depth 0. Nodes are named by string keys (the store uses element ids).
"""
from __future__ import annotations

import dataclasses
import heapq
import itertools
from collections.abc import Mapping, Sequence

from engine.tms.graphs import strongly_connected
from engine.tms.values import IN, OUT, UNDETERMINED, Ranked


@dataclasses.dataclass(frozen=True, slots=True)
class RegionBelief:
    """One region member as propagation needs it: its pins and, per justification, the
    keys of its antecedents and of its outlist."""

    retracted: bool
    asserted: bool
    justifications: tuple[tuple[Sequence[str], Sequence[str]], ...]
    premise: bool = False  # a premise to the user though gated: depth 0 (engine/tms/semantics.py)


def label_region(region: Mapping[str, RegionBelief], outside: Mapping[str, Ranked]
                 ) -> dict[str, Ranked]:
    """(value, depth) of every region member. `outside`: the settled (value, depth) of each
    node outside the region that a member names."""
    return _Solver(region, outside).solve()


class _Solver:
    def __init__(self, region: Mapping[str, RegionBelief], outside: Mapping[str, Ranked]):
        self.region = region
        self.value: dict[str, int] = {k: v for k, (v, _) in outside.items()}
        self.depth: dict[str, int | None] = {k: d for k, (_, d) in outside.items()}

    def solve(self) -> dict[str, Ranked]:
        region = self.region
        successors: dict[str, list[str]] = {b: [] for b in region}
        pending: dict[str, int] = dict.fromkeys(region, 0)
        for b, belief in region.items():
            named = {r for ants, outs in belief.justifications for r in (*ants, *outs)
                     if r in successors}
            pending[b] = len(named)
            for r in named:
                successors[r].append(b)
        # The acyclic part, in one pass: a belief is decided once all it names is.
        ready = [b for b, n in pending.items() if n == 0]
        settled = 0
        while ready:
            b = ready.pop()
            self._evaluate(b)
            settled += 1
            for c in successors[b]:
                pending[c] -= 1
                if pending[c] == 0:
                    ready.append(c)
        if settled < len(region):
            remainder = [b for b, n in pending.items() if n > 0]
            for component in reversed(strongly_connected(remainder, successors)):
                if len(component) == 1 and component[0] not in successors[component[0]]:
                    self._evaluate(component[0])
                else:
                    self._settle_cycle(component)
        return {b: (self.value[b], self.depth[b]) for b in region}

    # --- a belief on no cycle -----------------------------------------------------------
    def _evaluate(self, b: str) -> None:
        belief = self.region[b]
        value = self.value
        js = belief.justifications
        if belief.retracted:
            v = OUT
        elif not js or belief.asserted:
            v = IN
        else:
            v = OUT
            for ants, outs in js:
                weakest = IN
                for a in ants:
                    x = value[a]
                    weakest = min(weakest, x)
                for o in outs:
                    x = IN - value[o]
                    weakest = min(weakest, x)
                if weakest > v:
                    v = weakest
                    if v == IN:
                        break
        value[b] = v
        self.depth[b] = self._depth_from_settled(belief, v)

    def _depth_from_settled(self, belief: RegionBelief, v: int) -> int | None:
        js = belief.justifications
        if not js or belief.premise or (v == IN and belief.asserted):
            return 0
        depth = self.depth
        best: int | None = None
        for ants, outs in js:
            if v == IN and not self._valid(ants, outs):
                continue
            highest = 0
            for a in ants:
                d = depth[a]
                if d is None:
                    break
                highest = max(highest, d)
            else:
                if best is None or highest + 1 < best:
                    best = highest + 1
        return best

    def _valid(self, ants: Sequence[str], outs: Sequence[str]) -> bool:
        value = self.value
        return all(value[a] == IN for a in ants) and all(value[o] == OUT for o in outs)

    # --- a cyclic component -------------------------------------------------------------
    def _settle_cycle(self, members: list[str]) -> None:
        inside = set(members)
        true: set[str] = set()
        while True:
            possible = self._least_model(members, inside, assumed=true, optimistic=True)
            next_true = self._least_model(members, inside, assumed=possible, optimistic=False)
            if next_true == true:
                break
            true = next_true
        for b in members:
            self.value[b] = IN if b in true else UNDETERMINED if b in possible else OUT
        self._settle_cycle_depths(members, inside)

    def _least_model(self, members: list[str], inside: set[str], *,
                     assumed: set[str], optimistic: bool) -> set[str]:
        """Horn forward chaining over the members' rules reduced by `assumed` (for the
        outlists inside the component); outside the component, optimistic counts an
        undetermined node as possibly true, pessimistic does not."""
        value = self.value
        needed = UNDETERMINED if optimistic else IN
        model: set[str] = set()
        queue: list[str] = []
        waiting: dict[str, list[int]] = {}
        missing: list[int] = []
        heads: list[str] = []
        for b in members:
            belief = self.region[b]
            if belief.retracted:
                continue
            if not belief.justifications or belief.asserted:
                model.add(b)
                queue.append(b)
                continue
            for ants, outs in belief.justifications:
                if any(o in assumed if o in inside else
                       (value[o] == IN if optimistic else value[o] != OUT) for o in outs):
                    continue
                if any(a not in inside and value[a] < needed for a in ants):
                    continue
                within = {a for a in ants if a in inside}
                rule = len(heads)
                heads.append(b)
                missing.append(len(within))
                for a in within:
                    waiting.setdefault(a, []).append(rule)
                if not within and b not in model:
                    model.add(b)
                    queue.append(b)
        while queue:
            for rule in waiting.get(queue.pop(), ()):
                missing[rule] -= 1
                if missing[rule] == 0 and heads[rule] not in model:
                    model.add(heads[rule])
                    queue.append(heads[rule])
        return model

    def _settle_cycle_depths(self, members: list[str], inside: set[str]) -> None:
        """Shortest finite derivations inside the component, upstream depths fixed: a
        justification's candidate is 1 + its largest antecedent depth, settled smallest
        first; a member no finite derivation reaches has none (None)."""
        depth = self.depth
        heap: list[tuple[int, int, str]] = []  # (candidate, tie-break, member)
        order = itertools.count()
        waiting: dict[str, list[int]] = {}
        remaining: list[int] = []
        highest: list[int] = []
        heads: list[str] = []
        for b in members:
            belief = self.region[b]
            v = self.value[b]
            js = belief.justifications
            if not js or belief.premise or (v == IN and belief.asserted):
                heapq.heappush(heap, (0, next(order), b))
                continue
            for ants, outs in js:
                if v == IN and not self._valid(ants, outs):
                    continue
                outer = [depth[a] for a in ants if a not in inside]
                if any(d is None for d in outer):
                    continue
                within = {a for a in ants if a in inside}
                rule = len(heads)
                heads.append(b)
                highest.append(max((d for d in outer if d is not None), default=0))
                remaining.append(len(within))
                for a in within:
                    waiting.setdefault(a, []).append(rule)
                if not within:
                    heapq.heappush(heap, (highest[rule] + 1, next(order), b))
        settled: dict[str, int] = {}
        while heap:
            level, _, b = heapq.heappop(heap)
            if b in settled:
                continue
            settled[b] = level
            for rule in waiting.get(b, ()):
                remaining[rule] -= 1
                highest[rule] = max(highest[rule], level)
                if remaining[rule] == 0 and heads[rule] not in settled:
                    heapq.heappush(heap, (highest[rule] + 1, next(order), heads[rule]))
        for b in members:
            depth[b] = settled.get(b)
