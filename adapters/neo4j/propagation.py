"""The wave driver: brings labels and depths back to the well-founded model after a change.

Python only orders the work; every label is computed and written by Cypher
(cypher/tms/propagate.cypher), one UNWIND statement per wave. Beliefs travel as element ids.

1. Region. From the seeds (beliefs whose own definition changed), follow dependents wave
   by wave. Nothing outside the region can change: its inputs did not.
2. Dependency order. Evaluate the region in waves, a belief once every region belief it
   names has been settled (Kahn's algorithm). A belief none of whose inputs changed, and
   which is not a seed, is settled without being evaluated, so the cost follows the part of
   the network that changes.
3. Cycles. What never becomes ready sits on, or downstream of, a cycle. Its strongly
   connected components are taken in dependency order: a single belief is evaluated as in
   step 2; a cyclic component is settled by the alternating fixpoint (least models by
   waves of `cycle_derivable`), then its depths by downward relaxation from "no finite
   depth". That is the well-founded model restricted to the component, given everything
   upstream of it.
"""
from __future__ import annotations

from collections.abc import Iterable

from adapters.neo4j.base import TxBase
from engine.graphs import strongly_connected
from engine.model import Change

IN, UNDETERMINED, OUT, UNLABELLED = 2, 1, 0, -1


class Propagation:
    def __init__(self, tx: TxBase):
        self._tx = tx
        self.belief_id: dict[str, str] = {}  # element id -> belief id, for the Change
        self.first_value: dict[str, int] = {}
        self.value: dict[str, int] = {}
        self.changed: set[str] = set()
        self.statements = 0

    # --- public -----------------------------------------------------------------------
    def relabel(self, seeds: Iterable[str]) -> Change:
        ids = sorted(set(seeds))
        known = self._tx.known_element_ids(ids)
        elements = set(known.values())
        unknown = [i for i in ids if i not in known]
        if unknown:
            elements.update(r["element"] for r in self._run("element_ids_of", ids=unknown))
        successors = self._expand(elements)
        return self._settle(elements, successors)

    # --- steps ------------------------------------------------------------------------
    def _run(self, name: str, **params):
        self.statements += 1
        return self._tx.run_query(name, **params)

    def _expand(self, seeds: set[str]) -> dict[str, list[str]]:
        """The region as successor lists (every region belief is a key)."""
        successors: dict[str, list[str]] = {}
        frontier = sorted(seeds)
        while frontier:
            for s in frontier:
                successors[s] = []
            named_further: set[str] = set()
            [record] = self._run("region_dependents_by_element", elements=frontier)
            for element, dependents in record["rows"]:
                successors[element] = [c for c, _ in dependents]
                named_further.update(c for c, has_dependents in dependents if has_dependents)
            reached = {c for s in frontier for c in successors[s]} - successors.keys()
            for leaf in reached - named_further:  # nothing names it: no query needed
                successors[leaf] = []
            frontier = sorted(reached & named_further)
        return successors

    def _settle(self, seeds: set[str], successors: dict[str, list[str]]) -> Change:
        pending = dict.fromkeys(successors, 0)
        self_loops = set()
        for a, deps in successors.items():
            for c in deps:
                if c == a:
                    self_loops.add(a)
                else:
                    pending[c] += 1
        # A belief is evaluated when it is a seed or something it names changed.
        touched = set(seeds)
        ready = [b for b, n in pending.items() if n == 0 and b not in self_loops]
        settled: set[str] = set()
        while ready:
            self._evaluate([b for b in ready if b in touched])
            settled.update(ready)
            following = []
            for b in ready:
                changed = b in self.changed
                for c in successors[b]:
                    if c == b:
                        continue
                    if changed:
                        touched.add(c)
                    pending[c] -= 1
                    if pending[c] == 0 and c not in self_loops:
                        following.append(c)
            ready = following
        remainder = successors.keys() - settled
        if remainder:
            self._settle_cyclic(remainder, touched, successors)
        return self._change()

    def _settle_cyclic(self, remainder, touched, successors) -> None:
        """`touched`: seeds and beliefs something upstream of which changed (so far)."""
        components = strongly_connected(sorted(remainder), successors)
        component_of = {b: i for i, comp in enumerate(components) for b in comp}
        # The condensation, in waves of components whose upstream components are settled.
        upstream_count = [0] * len(components)
        downstream: list[set[int]] = [set() for _ in components]
        for i, comp in enumerate(components):
            for b in comp:
                for c in successors[b]:
                    k = component_of.get(c)
                    if k is not None and k != i and k not in downstream[i]:
                        downstream[i].add(k)
                        upstream_count[k] += 1
        ready = [i for i, n in enumerate(upstream_count) if n == 0]
        while ready:
            singles: list[str] = []
            cyclic: list[str] = []
            for i in ready:
                comp = components[i]
                if not touched.intersection(comp):
                    continue
                is_cycle = len(comp) > 1 or comp[0] in successors[comp[0]]
                (cyclic if is_cycle else singles).extend(comp)
            self._evaluate(sorted(singles))
            if cyclic:
                self._fixpoint(sorted(cyclic))
            following = []
            for i in ready:
                for b in components[i]:
                    if b in self.changed:
                        touched.update(successors[b])
                for k in downstream[i]:
                    upstream_count[k] -= 1
                    if upstream_count[k] == 0:
                        following.append(k)
            ready = following

    def _evaluate(self, ids: list[str]) -> None:
        if not ids:
            return
        [record] = self._run("evaluate_beliefs", elements=ids)
        for element, bid, old_value, value, old_depth, depth in record["rows"]:
            self.belief_id[element] = bid
            self._record(element, old_value, value, old_depth, depth)

    def _fixpoint(self, members: list[str]) -> None:
        """Alternating fixpoint over independent cyclic components settled together."""
        member_map = {b: True for b in members}
        true: set[str] = set()
        while True:
            possible = self._least_model(members, member_map, assumed=true, optimistic=True)
            next_true = self._least_model(members, member_map, assumed=possible, optimistic=False)
            if next_true == true:
                break
            true = next_true
        values = {b: IN if b in true else UNDETERMINED if b in possible else OUT for b in members}
        rows = [{"element": b, "value": v} for b, v in values.items()]
        old = {}
        for r in self._run("set_truth_values", rows=rows):
            self.belief_id[r["element"]] = r["id"]
            old[r["element"]] = (r["old_value"], r["old_depth"])
        while self._run("relax_depths", elements=members):
            pass
        for r in self._run("depths_of", elements=members):
            old_value, old_depth = old[r["element"]]
            self._record(r["element"], old_value, values[r["element"]], old_depth, r["depth"])

    def _least_model(self, members, member_map, *, assumed: set[str], optimistic: bool) -> set[str]:
        derived: set[str] = set()
        assumed_map = {b: True for b in assumed}
        while True:
            candidates = [b for b in members if b not in derived]
            found = {
                r["element"]
                for r in self._run(
                    "cycle_derivable",
                    candidates=candidates,
                    members=member_map,
                    derived={b: True for b in derived},
                    assumed=assumed_map,
                    optimistic=optimistic,
                )
            }
            if not found:
                return derived
            derived |= found

    def _record(self, bid: str, old_value: int, value: int, old_depth, depth) -> None:
        self.first_value.setdefault(bid, old_value)
        self.value[bid] = value
        if old_value != value or old_depth != depth:
            self.changed.add(bid)

    def _change(self) -> Change:
        went_in = sorted(self.belief_id[b] for b, v in self.value.items()
                         if v == IN and self.first_value[b] != IN)
        went_out = sorted(self.belief_id[b] for b, v in self.value.items()
                          if v != IN and self.first_value[b] == IN)
        return Change(went_in, went_out)
