"""What premise review reads and writes, as a store protocol of its own (`PremiseReviewTx`),
implemented by adapters/neo4j/premise_review_tx.py; the engine casts the transaction view to
it, as ask and compact do with theirs.

A premise's pin is what forge (and `add --source`) leave on it: the belief's `source` path
and `source_hash`, and the line range on its FROM edge to the (:Source), or in its metadata
(`lines`) when it has no such edge.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol



def lines_of(value: object) -> tuple[int, int] | None:
    """A pinned line range as stored (a FROM edge's `lines`, metadata `lines`): two integers,
    1 <= first <= last; None for anything else."""
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(
            isinstance(x, int) and not isinstance(x, bool) for x in value):
        first, last = int(value[0]), int(value[1])
        return (first, last) if 1 <= first <= last else None
    return None


@dataclass(frozen=True)
class PremiseCandidate:
    """An IN premise that names a source, with its pin and its last premise review."""

    id: str
    text: str
    source: str  # the path, relative to the root sources are read from
    source_hash: str  # sha256 of the file's bytes when it was pinned; "" when never hashed
    lines: tuple[int, int] | None  # the pinned line range; None when nothing says
    metadata: Mapping[str, object] = field(default_factory=dict)
    review_sha256: str = ""  # hash of claim + lines shown at the last premise review
    reviewed_at: str = ""


@dataclass(frozen=True)
class PremiseStamp:
    """A judged premise: when, the hash of what was judged, by which run; for a confirmed
    one also `verified_at`."""

    id: str
    at: str
    sha256: str
    run_id: str
    verified: bool = False


@dataclass(frozen=True)
class PremisePin:
    """A confirmed premise re-pinned to the lines of its quote (the Source node is created
    when the file has none yet, with no chunk forged)."""

    id: str
    source: str
    source_hash: str
    size: int
    lines: tuple[int, int]
    metadata: Mapping[str, object]
    at: str


@dataclass(frozen=True)
class PremiseVerdictEdge:
    """One verdict on one premise, an edge from the round that judged it; `fields` are
    scalars or lists of scalars."""

    belief_id: str
    fields: Mapping[str, object] = field(default_factory=dict)


class PremiseReviewTx(Protocol):
    def premise_review_candidates(self, ids: Sequence[str] | None = None
                                  ) -> list[PremiseCandidate]:
        """Every IN premise with a source (only those of `ids` when given), by id."""

    def repin_premises(self, pins: Sequence[PremisePin]) -> int:
        """Set source, hash, metadata and the one FROM edge of each; returns how many."""

    def stamp_premise_reviews(self, stamps: Sequence[PremiseStamp]) -> int:
        """Record each premise review on its belief; returns how many beliefs were found."""

    def record_premise_verdicts(self, run_id: str, round_n: int,
                                verdicts: Sequence[PremiseVerdictEdge]) -> int:
        """A REVIEWED edge from the round to each judged premise; returns the edges made."""
