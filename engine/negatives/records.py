"""What the negatives stage reads and writes, as a store protocol of its own (`NegativeTx`),
implemented by adapters/neo4j/negative_tx.py and tests/fakes.py, and one of the parts
engine/graph.py's GraphTx composes.

A judged belief carries its last verdict: `negative_kind` (the kind of problem it states, or
"" for none), `negative_sha256` (the sha256 of the text judged: a verdict on another text is
stale), `negative_at` and `negative_run`; each verdict is also a CLASSIFIED edge from the
round that gave it.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from engine.stages.records import NegativeCandidate


@dataclass(frozen=True)
class NegativeStamp:
    """One verdict, kept on its belief and as an edge from its round."""

    id: str
    kind: str  # "" when the belief states no problem
    sha256: str
    comment: str
    at: str
    run_id: str
    round: int


class NegativeTx(Protocol):
    def negative_candidates(self, ids: Sequence[str] | None = None
                            ) -> list[NegativeCandidate]:
        """Every IN belief (only those of `ids` when given) with its last verdict, by id."""

    def stamp_negatives(self, stamps: Sequence[NegativeStamp]) -> int:
        """Keep each verdict on its belief and as a CLASSIFIED edge from its round (which
        must exist); returns how many beliefs were found."""
