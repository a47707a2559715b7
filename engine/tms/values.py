"""Truth values and depths: the kernel's one convention, decided here.

The value type is `engine.model.Truth` (IN, OUT, UNDETERMINED): what records, outputs and
files carry. Where the kernel computes over many beliefs at once (labelling.py, propagate.py,
the rows a store's propagation reader returns), a value travels as its rank, a small int
defined only here, ordered by how much a belief holds:

    OUT = 0  <  UNDETERMINED = 1  <  IN = 2

so a justification's weakest part is a `min`, a belief's best justification a `max`, an
outlist member counts as `IN - rank`, and a zeroed byte array starts every belief OUT.
`TRUTH[rank]` and `RANK[truth]` convert; nothing else spells these numbers.

A depth is an int >= 0, or None when no finite derivation exists (engine/tms/semantics.py
defines it). An id that names no belief (a placeholder) is OUT at depth 0. A belief not
labelled yet (created in this transaction, before its propagation) has no label at all:
None where a (rank, depth) pair would be, never a rank of its own.

Stores convert at their boundary: the Neo4j adapter reads ranks from Cypher
(cypher/tms/propagate.cypher returns them, null for a belief not labelled yet) and turns the
flag bits of `labelling` (cypher/tms/read.cypher) into Truth.
"""
from __future__ import annotations

from collections.abc import Mapping

from engine.model import Truth

OUT, UNDETERMINED, IN = 0, 1, 2
TRUTH: tuple[Truth, Truth, Truth] = (Truth.OUT, Truth.UNDETERMINED, Truth.IN)  # by rank
RANK: Mapping[Truth, int] = {truth: rank for rank, truth in enumerate(TRUTH)}

Ranked = tuple[int, "int | None"]  # (rank, depth): a Label inside the kernel's loops
