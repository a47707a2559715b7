"""Provenance records every LLM stage leaves in the graph, one shape for all of them:

    (:Run {id, stage, model, started_at, params})-[:HAS_ROUND]->(:Round {run_id, n, stage,
        strategy, cluster, prompt_sha256, tokens_in, tokens_out, seconds})

Each stage adds its own edges from the Round to what it touched (derive: PROPOSED to the
beliefs it created; review: REVIEWED to the justifications it judged; ...). ProvenanceTx is
the store's part that writes and reads them (adapters/neo4j/stage_tx.py).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from engine.model import Belief

STAGES = ("derive", "review", "dedup", "contradictions", "forge")


@dataclass(frozen=True)
class RunRecord:
    id: str
    model: str
    started_at: str
    params: Mapping[str, object] = field(default_factory=dict)
    stage: str = "derive"


@dataclass(frozen=True)
class RoundRecord:
    """One round of a run, written with what the round applied."""

    run_id: str
    round: int  # 1-based
    prompt_sha256: str
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0
    strategy: str = ""  # how the round chose what it shows ("alphabetical", "accept", ...)
    cluster: int | None = None
    stage: str = "derive"
    at: str = ""  # when the round was applied (ISO 8601, UTC): the time stages stamp on writes


@dataclass(frozen=True)
class ProposedBy:
    """Which run and round proposed a belief, and how (derive's PROPOSED edge)."""

    run: RunRecord
    round: RoundRecord
    kind: str  # DERIVE | GATE
    mode: str  # ALL | ANY
    label: str = ""


class ProvenanceTx(Protocol):
    """The LLM stages' runs and rounds, and what derive's rounds proposed."""

    def recent_stage_runs(self, limit: int) -> list[RunRecord]:
        """The `limit` most recent (:Run) nodes of the LLM stages, newest first."""

    def create_run(self, run: RunRecord) -> None:
        """Create the run's node, once: a second call with the same id changes nothing."""

    def record_round(self, record: RoundRecord) -> None:
        """Record one round under its run (which must exist)."""

    def link_proposed(self, run_id: str, round_n: int, proposed: Sequence[Mapping[str, str]]
                      ) -> None:
        """PROPOSED edges from a recorded round to the beliefs it created; each entry has
        "id", "kind", "mode", "label" (the round and every belief must exist)."""

    def derived_citing(self, ids: Iterable[str]) -> list[Belief]:
        """Derived beliefs with a justification whose antecedents include one of `ids`,
        each with every justification, truth and depth (other fields may be empty), by id."""

    def derive_provenance(self, belief_id: str) -> list[ProposedBy]:
        """Every derive round that proposed the belief, oldest first."""
