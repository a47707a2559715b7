"""Propagation: after a change, a region's labels and depths brought back to the well-founded
model. The store finds the region wave by wave and writes exactly the labels that changed,
through a `RegionReader`; this module, pure Python, decides them.

The reader (engine/tms/region_reader.py) names nodes by keys of its own (Neo4j: element ids;
the fake store: belief ids) and carries values as ranks (engine/tms/values.py). Its Neo4j
form is adapters/neo4j/propagation.py (one named Cypher query a call); tests/fakes.py has
one in memory, so the rules below are tested without Neo4j.

1. Region. From the seeds (beliefs whose own definition changed), follow dependents wave by
   wave (`wave`, one read per wave). Each wave gives every dependent its parents in the
   region, its old value and depth, and whether it is simple (one justification, no outlist,
   no pin). Nothing outside the region can change: its inputs did not.
2. Decision, in dependency order (Kahn's algorithm) over the region's edges. A belief none
   of whose region parents changed keeps its labels. A simple belief whose parents' depths
   did not change keeps its depth (its one justification defines it, IN or not) and takes
   the value of its weakest antecedent: OUT when a parent went OUT, else from the counts of
   its stored OUT and undetermined antecedents (`antecedent_classes`) corrected by its
   parents' new values. Only the rest needs its structure: the beliefs ready at once are
   read together (`structure`: what their justifications name, with values and depths) and
   evaluated by `label_region`. What never becomes ready sits on or below a cycle: read
   together, and settled by `label_region` too.
3. Write. Only what changed: one write per rank (IN, OUT, UNDETERMINED; OUT twice, for
   what was IN and what was not, so the ids that went out are known), one for depths.
4. Access tags. When any belief carries tags (`tags_exist`), the region's effective tags are
   recomputed from its new labels (engine/tms/access.propagate_tags) and the changed ones
   written: the region holds everything whose support may have changed.

`label_region` is the well-founded model of a region given the settled labels of what it
rests on: a belief on no cycle (found by Kahn's algorithm, or a single-member component
later) is evaluated once from the settled values of what it names (the best justification's
weakest part, three-valued, pins first); a cyclic component (Tarjan, upstream first) is
settled by the alternating fixpoint over its members with everything upstream fixed, and its
depths by the shortest finite derivation (Knuth's generalisation of Dijkstra). Its results
equal `engine/tms/semantics.compute_labels` on the whole network (tests/unit/test_region.py);
propagation's equal it after any sequence of edits (tests/unit/test_propagate.py).
"""
from __future__ import annotations

import dataclasses
import heapq
import itertools
from collections.abc import Iterable, Mapping, Sequence

from engine.bulk import cyclic_gc_paused
from engine.model import Change
from engine.tms.access import TagBelief, propagate_tags
from engine.tms.graphs import strongly_connected
from engine.tms.region_reader import RegionReader
from engine.tms.values import IN, OUT, UNDETERMINED, Ranked

# How a belief not labelled yet looked to what names it: a placeholder, OUT at depth 0 (a new
# id nothing named has no dependents to mislead).
NOT_LABELLED: Ranked = (OUT, 0)

def propagate(reader: RegionReader, seeds: Iterable[str]) -> Change:
    """Relabel everything that depends on `seeds` (belief ids whose definition or pins
    changed; new beliefs among them) and say what went IN and OUT."""
    # A hub's region is 75,000 beliefs at 100k+100k: the rows read and the maps built here
    # hold no cycles, and the cyclic collector, walking them again and again as they grow,
    # took half of propagation's Python time.
    with cyclic_gc_paused():
        return _Propagation(reader).run(reader.keys_of(sorted(set(seeds))))


def retag(reader: RegionReader, region: Sequence[str]) -> None:
    """Recompute the effective tags of `region` (keys closed under dependents)."""
    if not region or not reader.tags_exist():
        return
    members: dict[str, TagBelief] = {}
    before: dict[str, frozenset[str]] = {}
    outside: dict[str, frozenset[str]] = {}
    outside_in: dict[str, bool] = {}
    for e, own, effective, is_in, js in reader.tag_rows(region):
        justifications = []
        for antecedents, outlist in js:
            for a, a_in, a_tags in antecedents:
                outside[a] = frozenset(a_tags)
                outside_in[a] = a_in
            for o, o_in in outlist:
                outside_in[o] = o_in
            justifications.append(([a[0] for a in antecedents], [o[0] for o in outlist]))
        members[e] = TagBelief(frozenset(own), is_in, tuple(justifications))
        before[e] = frozenset(effective)
    after = propagate_tags(members, outside, outside_in)
    rows = [(e, sorted(tags) or None) for e, tags in after.items() if tags != before[e]]
    if rows:
        reader.write_tags(rows)


class _Propagation:
    def __init__(self, reader: RegionReader):
        self.reader = reader
        # member -> (rank, depth) as its dependents saw it before; for a belief not labelled
        # yet (created in this transaction), NOT_LABELLED, and it is in `unlabelled`
        self.old: dict[str, Ranked] = {}
        self.unlabelled: set[str] = set()
        self.parents: dict[str, list[str]] = {}  # region member -> region members it names
        self.successors: dict[str, list[str]] = {}  # the reverse, one entry per edge
        self.simple: set[str] = set()
        self.structure: dict[str, RegionBelief] = {}  # members read in full
        self.named: dict[str, Ranked] = {}  # what read members name, as read
        self.label: dict[str, Ranked] = {}  # decided: region member -> (rank, depth)

    def run(self, seeds: list[str]) -> Change:
        self._read_structure(seeds)
        for e in seeds:
            self.parents[e] = []
            self.successors[e] = []
        self._find_region(seeds)
        self._decide(set(seeds) | self.unlabelled)  # only a seed can be unlabelled
        change = self._write()
        retag(self.reader, list(self.parents))
        return change

    def _find_region(self, seeds: list[str]) -> None:
        parents, successors, old, simple = self.parents, self.successors, self.old, self.simple
        frontier = seeds
        while frontier:
            new = []
            below = [successors[p] for p in frontier]  # by position, as named_by gives them
            for e, named_by, value, depth, is_simple in self.reader.wave(frontier):
                mine = parents.get(e)
                if mine is None:
                    mine = parents[e] = []
                    successors[e] = []
                    if value is None:
                        self.unlabelled.add(e)
                        old[e] = NOT_LABELLED
                    else:
                        old[e] = (value, depth)
                    if is_simple:
                        simple.add(e)
                    new.append(e)
                for i in named_by:  # each edge comes once: from its parent's one wave
                    mine.append(frontier[i])
                    below[i].append(e)
            frontier = new

    def _read_structure(self, keys: list[str]) -> None:
        if not keys:
            return
        named = self.named
        for e, retracted, asserted, value, depth, js in self.reader.structure(keys):
            justifications = []
            gates = 0
            for antecedents, outlist, gate in js:
                gates += gate
                for a, v, d in antecedents:
                    named[a] = (v, d)
                for o, v in outlist:
                    if o not in named:
                        named[o] = (v, None)  # an outlist member's depth is never used
                justifications.append(([a[0] for a in antecedents], [o[0] for o in outlist]))
            # a premise gated by supersede or challenge: its only justifications are gates
            self.structure[e] = RegionBelief(retracted, asserted, tuple(justifications),
                                             premise=bool(js) and gates == len(js))
            if value is None:
                self.unlabelled.add(e)
                self.old[e] = NOT_LABELLED
            else:
                self.old[e] = (value, depth)

    def _decide(self, seeds: set[str]) -> None:
        parents, successors, label, old, simple = (
            self.parents, self.successors, self.label, self.old, self.simple)
        pending = {c: len(ps) for c, ps in parents.items()}
        ready = [c for c, n in pending.items() if n == 0]
        while ready:
            unsettled, by_classes = [], []
            for c in ready:
                if c in seeds:
                    unsettled.append(c)
                    continue
                # Decided from its parents' new labels when that is enough: unchanged when
                # none changed. A simple belief whose parents' depths did not change keeps
                # its depth (its one justification defines it, IN or not), and its value is
                # the weakest antecedent's: OUT when a parent went OUT, else read as counts.
                changed = went_out = deeper = False
                for p in parents[c]:
                    now, before = label[p], old[p]
                    if now is before or now == before:
                        continue
                    changed = True
                    if now[0] == OUT:
                        went_out = True
                    if now[1] != before[1]:
                        deeper = True
                if not changed:
                    label[c] = old[c]
                elif deeper or c not in simple:
                    unsettled.append(c)
                elif went_out:
                    label[c] = (OUT, old[c][1])
                else:
                    by_classes.append(c)
            if by_classes:
                self._decide_by_classes(by_classes)
            if unsettled:
                self._evaluate(unsettled)
            following = []
            for b in ready:
                for c in successors[b]:
                    n = pending[c] - 1
                    pending[c] = n
                    if n == 0:
                        following.append(c)
            ready = following
        remainder = [c for c in parents if c not in label]
        if remainder:
            self._evaluate(remainder)

    def _decide_by_classes(self, members: list[str]) -> None:
        """Simple beliefs: the weakest antecedent from the counts of stored OUT and
        undetermined antecedents, the region parents' counted by their new values."""
        label, old = self.label, self.old
        for c, outs, undetermined in self.reader.antecedent_classes(members):
            weakest = IN
            for p in self.parents[c]:
                before = old[p][0]
                if before == OUT:  # as the reader counts it (a placeholder, unlabelled too)
                    outs -= 1
                elif before == UNDETERMINED:
                    undetermined -= 1
                weakest = min(weakest, label[p][0])
            if outs:
                weakest = OUT
            elif undetermined:
                weakest = min(weakest, UNDETERMINED)
            label[c] = (weakest, old[c][1])

    def _evaluate(self, members: list[str]) -> None:
        """Read what `members` name and decide them (and any cycles among them)."""
        self._read_structure([c for c in members if c not in self.structure])
        region = {c: self.structure[c] for c in members}
        outside = {}
        for c in members:
            for antecedents, outlist in region[c].justifications:
                for r in (*antecedents, *outlist):
                    if r not in region:
                        outside[r] = self.label.get(r) or self.named[r]
        self.label.update(label_region(region, outside))

    def _write(self) -> Change:
        old: Mapping[str, tuple[int | None, int | None]] = self.old
        if self.unlabelled:  # as stored: no label, no depth
            old = {**self.old, **dict.fromkeys(self.unlabelled, (None, None))}
        groups: dict[tuple[int, bool], list[str]] = {}
        depths = []
        for e, (value, depth) in self.label.items():
            old_value, old_depth = old[e]
            if value != old_value:
                groups.setdefault((value, old_value == IN), []).append(e)
            if depth != old_depth:
                depths.append((e, depth))
        went_in: list[str] = []
        went_out: list[str] = []
        for (value, was_in), keys in sorted(groups.items()):
            ids = self.reader.write_labels(value, keys)
            if value == IN:
                went_in.extend(ids)
            elif was_in:
                went_out.extend(ids)
        if depths:
            self.reader.write_depths(depths)
        return Change(sorted(went_in), sorted(went_out))


# --- the well-founded model of a region ---------------------------------------------------
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
    """(rank, depth) of every region member. `outside`: the settled (rank, depth) of each
    node outside the region that a member names (a placeholder: OUT at depth 0)."""
    return _RegionSolver(region, outside).solve()


class _RegionSolver:
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
