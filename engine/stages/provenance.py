"""Provenance records every LLM stage leaves in the graph, one shape for all of them:

    (:Run {id, stage, model, started_at, params})-[:HAS_ROUND]->(:Round {run_id, n, stage,
        strategy, cluster, prompt_sha256, tokens_in, tokens_out, seconds})

Each stage adds its own edges from the Round to what it touched (derive: PROPOSED to the
beliefs it created; review: REVIEWED to the justifications it judged; ...).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

STAGES = ("derive", "review", "dedup", "contradictions", "forge")


@dataclass(frozen=True)
class RunRecord:
    id: str
    model: str
    started_at: str
    params: Mapping[str, Any] = field(default_factory=dict)
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
