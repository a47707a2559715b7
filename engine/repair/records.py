"""What repair reads and keeps in the graph: a protocol of its own (adapters/neo4j/repair_tx.py,
cypher/repair/repair.cypher), as ask has. The gaps it records are read by compact too, so
their record and reading live with what the stages share (engine/stages/records.py)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from engine.stages.records import Gap


@dataclass(frozen=True)
class DefeatedRow:
    """One defeater in the outlist of one justification: what `repair_defeated` returns."""

    belief: str
    position: int
    defeater: str
    defeater_text: str
    metadata: Mapping[str, object]
    challenge: bool
    dependents: int


@dataclass(frozen=True)
class Finding:
    """What review recorded on a justification it found unsound (its latest REVIEWED edge)."""

    reason_type: str = ""
    missing_property: str = ""
    comment: str = ""
    antecedents: tuple[Mapping[str, str], ...] = ()  # {id, establishes, does_not_establish}


@dataclass(frozen=True)
class RepairEdge:
    """A REPAIRED edge to write: to justification `position` of `belief`, or to the belief
    itself when `position` is None."""

    belief: str
    position: int | None
    fields: Mapping[str, object] = field(default_factory=dict)


class RepairTx(Protocol):
    def defeated_rows(self) -> list[DefeatedRow]:
        """Every IN defeater (review's, a challenge; not a defence) in the outlist of a
        non-gate justification of a belief not retracted."""

    def repaired_defeaters(self) -> set[str]:
        """The defeater ids a REPAIRED edge already answers."""

    def review_findings(self, keys: Sequence[tuple[str, int]]) -> dict[tuple[str, int], Finding]:
        """Review's latest finding on each (belief, position) it judged invalid."""

    def record_repairs(self, run_id: str, round_n: int, edges: Sequence[RepairEdge]) -> None:
        """A REPAIRED edge from the round to each target, with its fields."""

    def add_gaps(self, run_id: str, round_n: int, gaps: Sequence[Gap], at: str) -> None:
        """A (:Gap) node per gap."""
