"""A derive run: the derive stage (engine/derive/stage.py) on the shared run loop
(engine/stages/run.py). `derive` is the one way into a run: `python -m engine.derive`, the
pipeline and the tests call it with a DeriveOptions (engine/derive/options.py).

Without `auto`, one round runs and its valid proposals go to a markdown file in the parser's
format (`accept` applies it later). `exhaust` (implies `auto`) repeats rounds up to
`max_rounds` and stops after `dry_rounds` consecutive dry rounds (default 1, and k, the
number of clusters, when the sampler rotates through clusters, so every cluster gets its
chance).
"""
from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from engine.clock import utc_now
from engine.derive.options import DeriveOptions
from engine.derive.stage import DeriveStage, DeriveStageTx
from engine.stages.contract import ModelForRound
from engine.stages.report import ReportFile
from engine.stages.run import CostFunction, Progress, RunResult, run_stage
from engine.stages.stage import LoopStage, Prompt
from engine.store import Store

if TYPE_CHECKING:
    from engine.derive.sampling import Sampler

__all__ = ["DeriveOptions", "derive", "preview_prompt"]


def preview_prompt(store: Store[DeriveStageTx], sampler: "Sampler",
                   options: DeriveOptions) -> Prompt:
    """The prompt round 1 would send (`--dry-run`); no model is called, nothing written."""
    return DeriveStage(sampler, options).read_round(store, 1).prompt


def derive(
    store: Store[DeriveStageTx],
    model_for_round: ModelForRound,
    sampler: "Sampler",
    options: DeriveOptions,
    *,
    report: ReportFile | None = None,
    progress: Progress | None = None,
    cost: CostFunction | None = None,
    now: Callable[[], datetime] = utc_now,
) -> RunResult:
    stage: LoopStage[DeriveStageTx] = DeriveStage(sampler, options)
    return run_stage(store, stage, model_for_round,
                     options.for_sampler(sampler), report_file=report, progress=progress,
                     cost=cost, now=now)
