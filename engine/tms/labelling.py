"""`compute_labels` of engine/tms/semantics.py on whole networks, fast: the same alternating
fixpoint and the same bucket queue, run over integer indexes and byte arrays instead of ids
and sets. verify, repair and import label 200k beliefs with it.

engine/tms/semantics.py stays the definition of truth: tests/unit/test_labelling.py checks that
both give the same labels and depths on random networks (missing ids, pins, gates, loops
through outlists), and `labels_from_scratch(b) == compute_labels(b)` for every input.
"""
from __future__ import annotations

from collections.abc import Mapping

from engine.model import Belief, Label
from engine.tms.values import IN, OUT, TRUTH, UNDETERMINED


class _Compiled:
    """Beliefs 0..n-1 in the mapping's order; ids named but absent get n, n+1, ...
    (never facts, never heads, so never IN). Every justification of every belief, as
    (head, distinct antecedents, all antecedents, outlist) of indexes."""

    def __init__(self, beliefs: Mapping[str, Belief]):
        ids = list(beliefs)
        index = {bid: i for i, bid in enumerate(ids)}
        self.n = n = len(ids)
        self.facts = facts = bytearray(n)
        self.premise = premise = bytearray(n)
        self.asserted = asserted = bytearray(n)
        self.heads: list[int] = []
        self.distinct: list[tuple[int, ...]] = []
        self.antecedents: list[tuple[int, ...]] = []
        self.outlists: list[tuple[int, ...]] = []
        self.first = first = [0] * (n + 1)  # belief i's justifications: first[i]..first[i+1]
        self.ruled = ruled = bytearray(n)  # its justifications are rules (not pinned, no fact)
        heads, distinct, antes, outs = self.heads, self.distinct, self.antecedents, self.outlists
        get = index.get
        for i, b in enumerate(beliefs.values()):
            first[i] = len(heads)
            js = b.justifications
            if b.asserted:
                asserted[i] = 1
            if not b.retracted and (not js or b.asserted):
                facts[i] = 1
            elif not b.retracted:
                ruled[i] = 1
            gates = True
            for j in js:
                if not j.gate:
                    gates = False
                at = tuple(map(get, j.antecedents))
                if None in at:  # an absent id: the next free index
                    at = tuple(index.setdefault(ref, len(index)) for ref in j.antecedents)
                ot: tuple[int, ...] = ()
                if j.outlist:
                    ot = tuple(index.setdefault(ref, len(index)) for ref in j.outlist)
                heads.append(i)
                antes.append(at)  # type: ignore[arg-type]
                distinct.append(at if len(at) < 2 else tuple(set(at)))  # type: ignore[arg-type]
                outs.append(ot)
            if gates:
                premise[i] = 1
        first[n] = len(heads)
        self.size = len(index)  # beliefs and absent ids
        self.ids = ids

    def least_model(self, rules: list[int], waiting: list[list[int]],
                    assumed: bytearray | None) -> bytearray:
        """semantics._Program.least_model: the rules whose outlist meets nothing in
        `assumed`, then Horn forward chaining from the facts."""
        outs, heads = self.outlists, self.heads
        missing = [0] * len(heads)
        blocked = bytearray(len(heads))
        if assumed is not None:
            for r in rules:
                for o in outs[r]:
                    if assumed[o]:
                        blocked[r] = 1
                        break
        distinct = self.distinct
        for r in rules:
            missing[r] = len(distinct[r])
        model = bytearray(self.size)
        model[:self.n] = self.facts
        queue = [i for i in range(self.n) if self.facts[i]]
        for r in rules:
            if not missing[r] and not blocked[r]:
                h = heads[r]
                if not model[h]:
                    model[h] = 1
                    queue.append(h)
        pop, push = queue.pop, queue.append
        while queue:
            for r in waiting[pop()]:
                missing[r] -= 1
                if not missing[r] and not blocked[r]:
                    h = heads[r]
                    if not model[h]:
                        model[h] = 1
                        push(h)
        return model


def labels_from_scratch(beliefs: Mapping[str, Belief]) -> dict[str, Label]:
    """Exactly `engine.tms.semantics.compute_labels(beliefs)`."""
    c = _Compiled(beliefs)
    n, first = c.n, c.first
    rules = [r for i in range(n) if c.ruled[i] for r in range(first[i], first[i + 1])]
    waiting: list[list[int]] = [[] for _ in range(c.size)]
    for r in rules:
        for a in c.distinct[r]:
            waiting[a].append(r)
    # the well-founded model by the alternating fixpoint (semantics._well_founded)
    if not any(c.outlists[r] for r in rules):
        true = possible = c.least_model(rules, waiting, None)
    else:
        true = bytearray(c.size)
        while True:
            possible = c.least_model(rules, waiting, true)
            next_true = c.least_model(rules, waiting, possible)
            if next_true == possible or next_true == true:
                true = next_true
                break
            true = next_true
    truth = bytearray(c.size)  # ranks (engine/tms/values.py): zero is OUT, as absent ids are
    for i in range(n):
        if true[i]:
            truth[i] = IN
        elif possible[i]:
            truth[i] = UNDETERMINED
    depth = _depths(c, truth)
    labels: dict[tuple[int, int | None], Label] = {}  # one Label per value: they are frozen

    def label(key: tuple[int, int | None]) -> Label:
        found = labels.get(key)
        if found is None:
            found = labels[key] = Label(TRUTH[key[0]], key[1])
        return found

    return dict(zip(c.ids, map(label, zip(truth, depth))))


def _depths(c: _Compiled, truth: bytearray) -> list[int | None]:
    """semantics._depths: Dial's bucket queue over the relevant justifications."""
    n, first, heads, antes, outs, distinct = (c.n, c.first, c.heads, c.antecedents,
                                              c.outlists, c.distinct)
    buckets: dict[int, list[int]] = {0: [], 1: []}
    waiting: list[list[int] | None] = [None] * n
    remaining = [0] * len(heads)
    highest = [0] * len(heads)
    zero, one = buckets[0], buckets[1]
    for i in range(n):
        is_in = truth[i] == IN
        if c.premise[i] or (c.asserted[i] and is_in):
            zero.append(i)
            continue
        for r in range(first[i], first[i + 1]):
            if is_in:  # only valid justifications: antecedents IN, outlist OUT
                valid = True
                for a in antes[r]:
                    if truth[a] != IN:
                        valid = False
                        break
                if valid:
                    for o in outs[r]:
                        if truth[o] != OUT:
                            valid = False
                            break
                if not valid:
                    continue
            pending = 0
            for a in distinct[r]:
                if a < n:  # an absent id has depth 0
                    pending += 1
                    w = waiting[a]
                    if w is None:
                        waiting[a] = [r]
                    else:
                        w.append(r)
            remaining[r] = pending
            if not pending:
                one.append(i)
    depth: list[int | None] = [None] * n
    level = 0
    while buckets:
        for i in buckets.pop(level, ()):
            if depth[i] is not None:
                continue
            depth[i] = level
            for r in waiting[i] or ():
                remaining[r] -= 1
                if level > highest[r]:
                    highest[r] = level
                if not remaining[r]:
                    h = heads[r]
                    if depth[h] is None:
                        at = highest[r] + 1
                        bucket = buckets.get(at)
                        if bucket is None:
                            buckets[at] = [h]
                        else:
                            bucket.append(h)
        level += 1
    return depth
