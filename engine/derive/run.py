"""A derive run: the derive stage (engine/derive/stage.py) on the shared run loop
(engine/stages/run.py). `derive` is the library call behind `python -m engine.derive`.

Without `auto`, one round runs and its valid proposals go to a markdown file in the parser's
format (`accept` applies it later). `exhaust` (implies `auto`) repeats rounds up to
`max_rounds` and stops after `dry_rounds` consecutive dry rounds (default 1, and k, the
number of clusters, when the sampler rotates through clusters, so every cluster gets its
chance).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.derive.stage import DeriveSettings, DeriveStage
from engine.derive.validate import ValidationRules
from engine.stages.calls import CallPolicy
from engine.stages.contract import ModelForRound
from engine.stages.report import ReportFile
from engine.stages.run import CostFunction, Progress, RunOptions, RunResult, run_stage, utc_now
from engine.stages.stage import Prompt
from engine.store import Store

if TYPE_CHECKING:
    from engine.derive.sampling import Sampler

ACCEPT_COMMAND = "python -m engine.derive accept"


@dataclass(frozen=True)
class DeriveOptions:
    model: str = ""  # the model string, for the report and the Run node
    budget: int = 300
    domain: str | None = None
    topic: str | None = None
    auto: bool = False
    exhaust: bool = False
    max_rounds: int = 10
    dry_rounds: int | None = None  # None: 1, or k with `intra_cluster`
    intra_cluster: bool = False
    rules: ValidationRules = ValidationRules()
    calls: CallPolicy = CallPolicy()
    output: Path | None = None  # the proposals file, without `auto`
    params: Mapping[str, Any] = field(default_factory=dict)  # every parameter, as given

    @property
    def applies(self) -> bool:
        return self.auto or self.exhaust

    def all_params(self) -> dict[str, Any]:
        """The run's settings, then `params` (the entry point's, as given) over them."""
        base = {
            "budget": self.budget, "domain": self.domain, "topic": self.topic,
            "auto": self.applies, "exhaust": self.exhaust, "max_rounds": self.max_rounds,
            "dry_rounds": self.dry_rounds, "intra_cluster": self.intra_cluster,
            "min_antecedents": self.rules.min_antecedents,
            "out_similarity": self.rules.out_similarity, "max_depth": self.rules.max_depth,
            "timeout": self.calls.timeout, "tries": self.calls.tries,
        }
        return {**base, **self.params}

    def settings(self) -> DeriveSettings:
        return DeriveSettings(self.budget, self.domain, self.topic, self.rules)

    def run_options(self, sampler: "Sampler") -> RunOptions:
        return RunOptions(
            model=self.model, auto=self.auto, exhaust=self.exhaust,
            max_rounds=self.max_rounds, dry_rounds=dry_round_limit(self, sampler),
            calls=self.calls, output=self.output,
            accept_command=f"{ACCEPT_COMMAND} {self.output}" if self.output else ACCEPT_COMMAND,
            params=self.all_params())


def dry_round_limit(options: DeriveOptions, sampler: "Sampler") -> int:
    if options.dry_rounds is not None:
        return max(1, options.dry_rounds)
    if options.intra_cluster:
        return max(1, getattr(sampler, "n_clusters", None) or 1)
    return 1


def preview_prompt(store: Store, sampler: "Sampler", options: DeriveOptions) -> Prompt:
    """The prompt round 1 would send (`--dry-run`); no model is called, nothing written."""
    return DeriveStage(sampler, options.settings()).read_round(store, 1).prompt


def derive(
    store: Store,
    model_for_round: ModelForRound,
    sampler: "Sampler",
    options: DeriveOptions,
    *,
    report: ReportFile | None = None,
    progress: Progress | None = None,
    cost: CostFunction | None = None,
    now: Callable[[], datetime] = utc_now,
) -> RunResult:
    return run_stage(store, DeriveStage(sampler, options.settings()), model_for_round,
                     options.run_options(sampler), report_file=report, progress=progress,
                     cost=cost, now=now)
