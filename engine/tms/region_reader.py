"""What propagation (engine/tms/propagate.py) reads and writes of a store: the row shapes
and the RegionReader protocol. The Neo4j store implements it with named Cypher queries
(adapters/neo4j/propagation.py), the fake store in memory (tests/fakes.py).

Keys name nodes as the store does (Neo4j: element ids; the fake: belief ids). Values are
ranks and depths as engine/tms/values.py defines them. Rows are any sequences of the shapes
below (the Neo4j reader hands the driver's lists through); a stored rank None is a belief
not labelled yet, created in this transaction.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

WaveRow = tuple[str, Sequence[int], "int | None", "int | None", bool]
"""(key, parents, rank, depth, simple): a belief with a justification naming a frontier
node. parents: the positions in the frontier of the nodes it names, one per edge (a node
named twice counts twice). simple: one justification, no outlist, neither retracted nor
asserted."""
NamedAntecedent = tuple[str, int, "int | None"]  # (key, rank, depth)
NamedOutlist = tuple[str, int]  # (key, rank)
StructureRow = tuple[str, bool, bool, "int | None", "int | None",
                     Sequence[tuple[Sequence[NamedAntecedent], Sequence[NamedOutlist], bool]]]
"""(key, retracted, asserted, rank, depth, justifications): a belief read in full, a
justification being (antecedents, outlist, gate). A named placeholder is OUT at depth 0; a
named belief not labelled yet reads as OUT."""
ClassRow = tuple[str, int, int]
"""(key, outs, undetermined): of a belief's antecedent edges, how many reach a node neither
IN nor UNDETERMINED (OUT, a placeholder, not labelled yet) and how many an UNDETERMINED one."""
TagRow = tuple[str, Sequence[str], Sequence[str], bool,
               Sequence[tuple[Sequence[tuple[str, bool, Sequence[str]]],
                              Sequence[tuple[str, bool]]]]]
"""(key, own tags, effective tags, is IN, justifications), a justification being
(antecedents as (key, is IN, effective tags), outlist as (key, is IN))."""


class RegionReader(Protocol):
    """What propagation needs of a store, inside one write transaction. Reads see the labels
    as stored before this propagation: it writes only at the end."""

    def keys_of(self, ids: Sequence[str]) -> list[str]:
        """The keys of the beliefs among `ids` (sorted, distinct) that exist."""
        ...

    def wave(self, frontier: Sequence[str]) -> Iterable[WaveRow]:
        """Every belief with a justification naming a node of `frontier`, once."""
        ...

    def structure(self, keys: Sequence[str]) -> Iterable[StructureRow]:
        ...

    def antecedent_classes(self, keys: Sequence[str]) -> Iterable[ClassRow]:
        ...

    def write_labels(self, rank: int, keys: Sequence[str]) -> Iterable[str]:
        """Label `keys` with `rank`; the belief ids relabelled."""
        ...

    def write_depths(self, rows: Sequence[tuple[str, int | None]]) -> None:
        ...

    def tags_exist(self) -> bool:
        """Whether any belief carries access tags, own or effective."""
        ...

    def tag_rows(self, keys: Sequence[str]) -> Iterable[TagRow]:
        ...

    def write_tags(self, rows: Sequence[tuple[str, list[str] | None]]) -> None:
        """Set effective tags (None: none)."""
        ...
