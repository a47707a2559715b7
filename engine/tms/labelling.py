"""`compute_labels` of engine/tms/semantics.py on whole networks, fast: the same alternating
fixpoint and the same bucket queue, run over integer indexes and byte arrays instead of ids
and sets. verify, repair, import and history label whole networks with it.

A `Shape` is a network as the labelling sees it (ids, pins, justifications as indexes) and
nothing more: built belief by belief, so a store's pages or a file read as a stream can fill
it without a Belief object per belief (a million beliefs' records would not fit beside it).

engine/tms/semantics.py stays the definition of truth: tests/unit/test_labelling.py checks that
both give the same labels and depths on random networks (missing ids, pins, gates, loops
through outlists), and `labels_from_scratch(b) == compute_labels(b)` for every input.
"""
from __future__ import annotations

from array import array
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from engine.model import Belief, Label
from engine.tms.values import IN, OUT, TRUTH, UNDETERMINED



class JustificationShape(Protocol):
    """What the labelling reads of a justification (engine.model.Justification has it)."""

    @property
    def antecedents(self) -> Sequence[str]: ...
    @property
    def outlist(self) -> Sequence[str]: ...
    @property
    def gate(self) -> bool: ...


# (id, justifications, retracted, asserted) of one belief
BeliefShape = tuple[str, Iterable[JustificationShape], bool, bool]


class Shape:
    """Indexes 0..size-1 for every id met, a belief's or one a justification names that no
    belief has (never a fact, never a head, so never IN). Every justification of every
    belief, as (head, distinct antecedents, all antecedents, outlist) of indexes; a belief's
    justifications are contiguous: start[i]..end[i]. The per-index arrays grow in steps as
    beliefs come; `compiled` fits them to `size` before a labelling."""

    def __init__(self) -> None:
        self.ids: list[str] = []  # index -> id
        self.index: dict[str, int] = {}
        self.beliefs: list[int] = []  # the beliefs' indexes, in the order they were added
        self.is_belief = bytearray()
        self.facts = bytearray()  # not retracted, and a premise or asserted
        self.ruled = bytearray()  # not retracted, justified, not asserted: its rules count
        self.premise = bytearray()  # every justification a gate (or none): depth 0
        self.asserted = bytearray()
        self.start = array("q")
        self.end = array("q")
        self.heads: list[int] = []
        self.distinct: list[tuple[int, ...]] = []
        self.antecedents: list[tuple[int, ...]] = []
        self.outlists: list[tuple[int, ...]] = []

    @property
    def size(self) -> int:
        return len(self.ids)

    def refs(self, ids: Iterable[str]) -> tuple[int, ...]:
        index, names = self.index, self.ids
        out = []
        for ref in ids:
            i = index.get(ref)
            if i is None:
                i = index[ref] = len(names)
                names.append(ref)
            out.append(i)
        return tuple(out)

    def _fit(self, size: int, exact: bool = False) -> None:
        have = len(self.is_belief)
        if have >= size and not exact:
            return
        more = size - have if exact else max(size - have, have, 1024)
        if more < 0:
            for flags in (self.is_belief, self.facts, self.ruled, self.premise, self.asserted,
                          self.start, self.end):
                del flags[size:]
            return
        zeros = bytes(more)
        for flags in (self.is_belief, self.facts, self.ruled, self.premise, self.asserted):
            flags.extend(zeros)
        self.start.frombytes(bytes(8 * more))
        self.end.frombytes(bytes(8 * more))

    def add(self, bid: str, justifications: Iterable[JustificationShape], *,
            retracted: bool, asserted: bool) -> None:
        """Add one belief (each id once)."""
        self.extend([(bid, justifications, retracted, asserted)])

    def extend(self, beliefs: Iterable[BeliefShape]) -> None:
        """Add beliefs given as (id, justifications, retracted, asserted), each id once."""
        index, ids = self.index, self.ids
        get = index.get
        heads, distinct, antes, outs = self.heads, self.distinct, self.antecedents, self.outlists
        order = self.beliefs
        # the arrays grow in place (_fit), so these names stay theirs
        is_belief, facts, ruled, premise, asserted_ = (self.is_belief, self.facts, self.ruled,
                                                      self.premise, self.asserted)
        start, end, refs = self.start, self.end, self.refs
        room = len(is_belief)
        for bid, justifications, retracted, asserted in beliefs:
            i = get(bid)
            if i is None:
                i = index[bid] = len(ids)
                ids.append(bid)
            if i >= room:
                self._fit(i + 1)
                room = len(is_belief)
            if is_belief[i]:
                raise ValueError(f"belief {bid!r} added twice")
            is_belief[i] = 1
            order.append(i)
            first = len(heads)
            gates = True
            for j in justifications:
                if not j.gate:
                    gates = False
                at = tuple(map(get, j.antecedents))
                if None in at:  # an id not met yet: the next free index
                    at = refs(j.antecedents)
                heads.append(i)
                antes.append(at)  # type: ignore[arg-type]
                distinct.append(at if len(at) < 2 else tuple(set(at)))  # type: ignore[arg-type]
                outs.append(refs(j.outlist) if j.outlist else ())
            last = len(heads)
            start[i] = first
            end[i] = last
            if asserted:
                asserted_[i] = 1
            if not retracted:
                if last == first or asserted:
                    facts[i] = 1
                else:
                    ruled[i] = 1
            if gates:
                premise[i] = 1

    def retract(self, i: int) -> None:
        """Pin belief `i` retracted: neither a fact nor ruled (import keeps a file's
        retractions this way while it decides them)."""
        self.facts[i] = self.ruled[i] = 0

    def compiled(self) -> Shape:
        """The per-index arrays fitted to every id met (absent ids included)."""
        self._fit(self.size, exact=True)
        return self

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
        model = bytearray(self.facts)
        queue = [i for i in self.beliefs if model[i]]
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


def label_shape(shape: Shape) -> tuple[bytearray, list[int | None]]:
    """The well-founded model of `shape`: each index's truth rank (engine/tms/values.py; an
    absent id is OUT) and depth (None: no finite derivation; absent ids: None, unused)."""
    shape = shape.compiled()
    start, end, ruled = shape.start, shape.end, shape.ruled
    rules = [r for i in shape.beliefs if ruled[i] for r in range(start[i], end[i])]
    waiting: list[list[int]] = [[] for _ in range(shape.size)]
    for r in rules:
        for a in shape.distinct[r]:
            waiting[a].append(r)
    # the well-founded model by the alternating fixpoint (semantics._well_founded)
    if not any(shape.outlists[r] for r in rules):
        true = possible = shape.least_model(rules, waiting, None)
    else:
        true = bytearray(shape.size)
        while True:
            possible = shape.least_model(rules, waiting, true)
            next_true = shape.least_model(rules, waiting, possible)
            if next_true == possible or next_true == true:
                true = next_true
                break
            true = next_true
    del waiting
    truth = bytearray(shape.size)  # ranks (engine/tms/values.py): zero is OUT, as absent ids are
    for i in shape.beliefs:
        if true[i]:
            truth[i] = IN
        elif possible[i]:
            truth[i] = UNDETERMINED
    return truth, _depths(shape, truth)


def shape_of(beliefs: Mapping[str, Belief]) -> Shape:
    shape = Shape()
    # the beliefs first: indexes in their order, every look-up in `extend` a hit
    shape.ids.extend(beliefs)
    shape.index.update(zip(shape.ids, range(len(shape.ids))))
    shape.extend((bid, b.justifications, b.retracted, b.asserted)
                 for bid, b in beliefs.items())
    return shape


def labels_from_scratch(beliefs: Mapping[str, Belief]) -> dict[str, Label]:
    """Exactly `engine.tms.semantics.compute_labels(beliefs)`."""
    shape = shape_of(beliefs)
    truth, depth = label_shape(shape)
    labels: dict[tuple[int, int | None], Label] = {}  # one Label per value: they are frozen

    def label(key: tuple[int, int | None]) -> Label:
        found = labels.get(key)
        if found is None:
            found = labels[key] = Label(TRUTH[key[0]], key[1])
        return found

    if len(shape.beliefs) == shape.size:  # no absent ids: indexes are the beliefs' order
        return dict(zip(shape.ids, map(label, zip(truth, depth))))
    return {shape.ids[i]: label((truth[i], depth[i])) for i in shape.beliefs}


def _depths(c: Shape, truth: bytearray) -> list[int | None]:
    """semantics._depths: Dial's bucket queue over the relevant justifications."""
    start, end, heads, antes, outs, distinct = (c.start, c.end, c.heads, c.antecedents,
                                                c.outlists, c.distinct)
    is_belief = c.is_belief
    buckets: dict[int, list[int]] = {0: [], 1: []}
    waiting: list[list[int] | None] = [None] * c.size
    remaining = [0] * len(heads)
    highest = [0] * len(heads)
    zero, one = buckets[0], buckets[1]
    for i in c.beliefs:
        is_in = truth[i] == IN
        if c.premise[i] or (c.asserted[i] and is_in):
            zero.append(i)
            continue
        for r in range(start[i], end[i]):
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
                if is_belief[a]:  # an absent id has depth 0
                    pending += 1
                    w = waiting[a]
                    if w is None:
                        waiting[a] = [r]
                    else:
                        w.append(r)
            remaining[r] = pending
            if not pending:
                one.append(i)
    depth: list[int | None] = [None] * c.size
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
