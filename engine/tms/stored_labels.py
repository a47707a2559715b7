"""What verify and repair compare (engine/tms/verify.py): a network's shape
(engine/tms/labelling.py) and each belief's labels and depth as a store holds them, in flat
arrays a store fills page by page (adapters/neo4j/tms_tx.py) or `stored_labels_of` fills from
Belief records (the fakes, small stores)."""
from __future__ import annotations

import dataclasses
from array import array
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from engine.model import Belief, Truth
from engine.tms import access
from engine.tms.labelling import Shape

# The flag bits of one stored belief (cypher/tms/read.cypher's labelling_page says the same).
IN_LABEL, OUT_LABEL, UNDETERMINED_LABEL, RETRACTED, ASSERTED = 1, 2, 4, 8, 16


class Rule(NamedTuple):
    """One stored justification as the labelling reads it."""

    antecedents: Sequence[str]
    outlist: Sequence[str]
    gate: bool


@dataclasses.dataclass
class StoredLabels:
    """What verify compares: the network's shape and, per belief in the order the shape
    took them (`shape.beliefs`), its stored flags (the bits above) and depth (-1: none);
    `odd`: the graph labels of beliefs without exactly one truth label; `tags`: (own,
    effective) access tags of the beliefs carrying either."""

    shape: Shape = dataclasses.field(default_factory=Shape)
    flags: bytearray = dataclasses.field(default_factory=bytearray)
    depths: array = dataclasses.field(default_factory=lambda: array("q"))
    odd: dict[str, list[str]] = dataclasses.field(default_factory=dict)
    tags: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = dataclasses.field(
        default_factory=dict)

    def add_page(self, ids: Sequence[str], flags: Sequence[int], depths: Sequence[int],
                 justifications: Sequence[Iterable[Sequence]]) -> None:
        """One page of beliefs: their ids, flag bits, depths (-1: none) and, per belief, its
        justifications as [antecedent ids, outlist ids, gate]."""
        rule = Rule._make
        self.shape.extend(
            (bid, [rule(j) for j in js], bool(f & RETRACTED), bool(f & ASSERTED))
            for bid, f, js in zip(ids, flags, justifications))
        self.flags.extend(flags)
        self.depths.extend(depths)

    def __len__(self) -> int:
        return len(self.flags)


def stored_labels_of(beliefs: Mapping[str, Belief],
                     raw_labels: Mapping[str, Sequence[str]] | None = None) -> StoredLabels:
    """StoredLabels of Belief records (their truth and depth as stored); `raw_labels`, a
    store's graph labels per belief where they are not exactly one truth label."""
    out = StoredLabels()
    raw_labels = raw_labels or {}
    flags, depths, rules = [], [], []
    for bid, b in beliefs.items():
        truth = b.truth or Truth.OUT
        f = (IN_LABEL if truth == Truth.IN else
             OUT_LABEL | (UNDETERMINED_LABEL if truth == Truth.UNDETERMINED else 0))
        raw = raw_labels.get(bid)
        if raw is not None:
            f = ((IN_LABEL if "In" in raw else 0) | (OUT_LABEL if "Out" in raw else 0)
                 | (UNDETERMINED_LABEL if "Undetermined" in raw else 0))
            if is_odd(f):
                out.odd[bid] = list(raw)
        flags.append(f | (RETRACTED if b.retracted else 0) | (ASSERTED if b.asserted else 0))
        depths.append(-1 if b.depth is None else b.depth)
        rules.append([(j.antecedents, j.outlist, j.gate) for j in b.justifications])
        own = access.own_tags(b.metadata)
        if own or b.effective_tags:
            out.tags[bid] = (tuple(sorted(own)), tuple(b.effective_tags))
    out.add_page(list(beliefs), flags, depths, rules)
    return out


def is_odd(flags: int) -> bool:
    """Not exactly one of :In / :Out, or :Undetermined without :Out."""
    has_out = bool(flags & OUT_LABEL)
    return bool(flags & IN_LABEL) == has_out or bool(flags & UNDETERMINED_LABEL and not has_out)


def stored_truth(flags: int) -> Truth:
    return (Truth.IN if flags & IN_LABEL else
            Truth.UNDETERMINED if flags & UNDETERMINED_LABEL else Truth.OUT)
