"""What review judges and records in the store (ReviewRecords): candidates, arguments,
stamps, verdict edges, defeaters. adapters/neo4j/review_tx.py implements it in Cypher."""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class ReviewCandidate:
    """An IN derived belief as review's what-is-due sees it (no texts)."""

    id: str
    depth: int | None
    review_sha256: str = ""  # hash of what the last review was shown; "" when never reviewed
    reviewed_at: str = ""
    rests_on: tuple[str, ...] = ()  # the IN derived beliefs its justifications name as antecedents


@dataclass(frozen=True)
class ArgumentPart:
    """A node a justification names, as review shows it: id, text, truth label (IN, OUT,
    UNDETERMINED, or MISSING for an id not added yet) and whether review put it there."""

    id: str
    text: str
    truth: str
    defeater: bool = False


@dataclass(frozen=True)
class ArgumentJustification:
    kind: str
    label: str
    antecedents: tuple[ArgumentPart, ...] = ()
    outlist: tuple[ArgumentPart, ...] = ()


@dataclass(frozen=True)
class Argument:
    """A belief with what review judges of it: its claim and justifications in order, each
    with the texts and labels of what it names (nothing else of the network)."""

    id: str
    text: str
    depth: int | None
    truth: str
    justifications: tuple[ArgumentJustification, ...] = ()


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
    fields: Mapping[str, Any] = field(default_factory=dict)


class ReviewRecords(Protocol):
    """What review judges and records: candidates, arguments, stamps, verdicts,
    defeaters."""

    def review_candidates(self) -> list[ReviewCandidate]:
        """Every IN belief its justifications hold (depth >= 1: neither a premise nor
        asserted by the user), with its review stamp and the such beliefs it names as
        antecedents."""

    def review_arguments(self, ids: Iterable[str]) -> dict[str, Argument]:
        """The named beliefs that exist, as review shows and hashes them."""

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

