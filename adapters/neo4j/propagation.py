"""Propagation: brings labels and depths back to the well-founded model after a change.

Cypher reads and writes the graph (cypher/tms/propagate.cypher); Python decides, with
`engine/tms/region.py`. Beliefs travel as element ids.

1. Region. From the seeds (beliefs whose own definition changed), follow dependents wave
   by wave (`region_wave`, one statement per wave). Each wave gives every dependent's
   parents in the region, its old value and depth, and whether it is simple (one
   justification, no outlist, no pin). Nothing outside the region can change: its inputs
   did not.
2. Decision, in dependency order (Kahn's algorithm) over the region's edges. A belief none
   of whose region parents changed keeps its labels. A simple belief whose parents' depths
   did not change keeps its depth (its one justification defines it, IN or not) and takes
   the value of its weakest antecedent: OUT when a parent went OUT, else from the counts of
   its stored OUT and undetermined antecedents (`antecedent_classes`) corrected by its
   parents' new values. Only the rest needs its structure: the beliefs ready at once are
   read together (`region_rows`, what their justifications name with values and depths)
   and evaluated by `engine/tms/region.label_region`. What never becomes ready sits on or below
   a cycle: read together, and settled by `label_region` (cyclic components by the
   alternating fixpoint).
3. Write. Only what changed: one UNWIND per kind (IN, OUT, undetermined; depths), each
   returning the ids it relabelled, which make the Change.
4. Access tags. When any belief carries tags (`tags_exist`, two index look-ups), the
   region's effective tags are recomputed from its new labels (`region_tags`, one read;
   engine/tms/access.propagate_tags) and the changed ones written: the region holds everything
   whose support may have changed, and nothing outside it did.
"""
from __future__ import annotations

from collections.abc import Iterable

from adapters.neo4j.base import TxBase
from engine.model import Change
from engine.tms.access import TagBelief, propagate_tags
from engine.tms.region import RegionBelief, label_region
from engine.tms.values import IN, OUT, UNDETERMINED, Ranked

LABEL_QUERY = {IN: "label_in", OUT: "label_out", UNDETERMINED: "label_undetermined"}


class Propagation:
    def __init__(self, tx: TxBase):
        self._tx = tx
        # region member -> (value, depth) before; value None: not labelled yet
        self.old: dict[str, tuple[int | None, int | None]] = {}
        self.parents: dict[str, list[str]] = {}  # region member -> region members it names
        self.successors: dict[str, list[str]] = {}  # the reverse, one entry per edge
        self.simple: set[str] = set()
        self.structure: dict[str, RegionBelief] = {}  # members read in full
        self.named: dict[str, Ranked] = {}  # what read members name, as read
        self.label: dict[str, Ranked] = {}  # decided: region member -> (value, depth)
        self.statements = 0

    # --- public -----------------------------------------------------------------------
    def relabel(self, seeds: Iterable[str]) -> Change:
        ids = sorted(set(seeds))
        known = self._tx.known_element_ids(ids)
        elements = set(known.values())
        unknown = [i for i in ids if i not in known]
        if unknown:
            elements.update(r["element"] for r in self._run("element_ids_of", ids=unknown))
        seed_list = sorted(elements)
        self._read_structure(seed_list)
        for e in seed_list:
            self.parents[e] = []
            self.successors[e] = []
        self._find_region(seed_list)
        self._decide(set(seed_list))
        change = self._write()
        self.retag(list(self.parents))
        return change

    def retag(self, region: list[str]) -> None:
        """Recompute the effective tags of `region` (element ids closed under dependents)."""
        if not region or not self._run("tags_exist")[0]["any"]:
            return
        [record] = self._run("region_tags", elements=region)
        members: dict[str, TagBelief] = {}
        before: dict[str, frozenset[str]] = {}
        outside: dict[str, frozenset[str]] = {}
        outside_in: dict[str, bool] = {}
        for e, own, effective, is_in, js in record["rows"]:
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
        rows = [[e, sorted(tags) or None] for e, tags in after.items() if tags != before[e]]
        if rows:
            self._run("set_effective_tags", rows=rows)

    # --- steps ------------------------------------------------------------------------
    def _run(self, name: str, **params):
        self.statements += 1
        return self._tx.run_query(name, **params)

    def _find_region(self, seeds: list[str]) -> None:
        parents, successors, old, simple = self.parents, self.successors, self.old, self.simple
        frontier = seeds
        while frontier:
            [record] = self._run("region_wave", elements=frontier)
            new = []
            for e, named_by, value, depth, is_simple in record["rows"]:
                mine = parents.get(e)
                if mine is None:
                    mine = parents[e] = []
                    successors[e] = []
                    old[e] = (value, depth)
                    if is_simple:
                        simple.add(e)
                    new.append(e)
                for i in named_by:  # each edge comes once: from its parent's one wave
                    p = frontier[i]
                    mine.append(p)
                    successors[p].append(e)
            frontier = new

    def _read_structure(self, elements: list[str]) -> None:
        if not elements:
            return
        [record] = self._run("region_rows", elements=elements)
        named = self.named
        for e, _bid, retracted, asserted, value, depth, js in record["rows"]:
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
            self.old[e] = (value, depth)

    def _decide(self, seeds: set[str]) -> None:
        parents, successors, label, old, simple = (
            self.parents, self.successors, self.label, self.old, self.simple)
        pending = {c: len(ps) for c, ps in parents.items()}
        ready = [c for c, n in pending.items() if n == 0]
        while ready:
            unsettled, by_classes = [], []
            for c in ready:
                value, depth = old[c]
                if c in seeds or value is None:  # only a seed can be unlabelled
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
                    label[c] = (value, depth)
                elif deeper or c not in simple:
                    unsettled.append(c)
                elif went_out:
                    label[c] = (OUT, depth)
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
        [record] = self._run("antecedent_classes", elements=members)
        label, old = self.label, self.old
        for c, outs, undetermined in record["rows"]:
            weakest = IN
            for p in self.parents[c]:
                before = old[p][0]
                if before is None or before == OUT:  # counted as OUT, as Cypher does
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
        old = self.old
        groups: dict[tuple[int, bool], list[str]] = {}
        depths = []
        for e, (value, depth) in self.label.items():
            old_value, old_depth = old[e]
            if value != old_value:
                groups.setdefault((value, old_value == IN), []).append(e)
            if depth != old_depth:
                depths.append([e, depth])
        went_in: list[str] = []
        went_out: list[str] = []
        for (value, was_in), elements in sorted(groups.items()):
            [record] = self._run(LABEL_QUERY[value], elements=elements)
            if value == IN:
                went_in.extend(record["ids"])
            elif was_in:
                went_out.extend(record["ids"])
        if depths:
            self._run("set_depths", rows=depths)
        return Change(sorted(went_in), sorted(went_out))
