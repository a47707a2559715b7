"""What review judges and records in the store (ReviewRecords): candidates, stamps,
verdict edges, defeaters (the arguments it shows: engine/stages/records.py's ArgumentsTx).
adapters/neo4j/review_tx.py implements it in Cypher."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class ReviewCandidate:
    """An IN derived belief as review's what-is-due sees it (no texts)."""

    id: str
    depth: int | None
    review_sha256: str = ""  # hash of what the last review was shown; "" when never reviewed
    reviewed_at: str = ""
    rests_on: tuple[str, ...] = ()  # the IN derived beliefs its justifications name as antecedents


@dataclass(frozen=True)
class ReviewStamp:
    """A judged belief: when, the hash of what was judged, and by which run."""

    id: str
    at: str
    sha256: str
    run_id: str


@dataclass(frozen=True)
class VerdictEdge:
    """One verdict on one justification (belief id + 1-based position in the belief's order),
    recorded as an edge from the round that judged it; `fields` are scalars or lists of str."""

    belief_id: str
    position: int
    fields: Mapping[str, object] = field(default_factory=dict)


class ReviewRecords(Protocol):
    """What review judges and records: candidates, stamps, verdicts, defeaters."""

    def review_candidates(self) -> list[ReviewCandidate]:
        """Every IN belief its justifications hold (depth >= 1: neither a premise nor
        asserted by the user), with its review stamp and the such beliefs it names as
        antecedents."""

    def add_defeater(self, belief_id: str, position: int, defeater_id: str) -> None:
        """Append the belief `defeater_id` (which must exist) to the outlist of the belief's
        `position`-th justification (1-based, in the belief's order; nothing changes when it
        is there already) and mark it a defeater (:Defeater). Labels are not recomputed
        here: relabel the belief afterwards."""

    def stamp_reviews(self, stamps: Sequence[ReviewStamp]) -> None:
        """Record on each belief when it was judged and the hash of what was judged."""

    def record_verdicts(self, run_id: str, round_n: int, verdicts: Sequence[VerdictEdge]) -> None:
        """An edge from the round (which must exist) to each judged justification (which must
        exist), carrying the verdict's fields."""

