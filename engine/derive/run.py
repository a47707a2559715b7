"""A derive run: the derive stage (engine/derive/stage.py) on the shared run loop
(engine/stages/run.py). `derive` is the library call behind `python -m engine.derive`.

Without `auto`, one round runs and its valid proposals go to a markdown file in the parser's
format (`accept` applies it later). `exhaust` (implies `auto`) repeats rounds up to
`max_rounds` and stops after `dry_rounds` consecutive dry rounds (default 1, and k, the
number of clusters, when the sampler rotates through clusters, so every cluster gets its
chance).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from engine.clock import utc_now
from engine.derive.stage import DeriveSettings, DeriveStage
from engine.derive.validate import ValidationRules
from engine.stages.contract import ModelForRound
from engine.stages.report import ReportFile
from engine.stages.run import CostFunction, Progress, RunOptions, RunResult, run_stage
from engine.stages.stage import Prompt
from engine.store import Store

if TYPE_CHECKING:
    from engine.derive.sampling import Sampler

ACCEPT_COMMAND = "python -m engine.derive accept"


@dataclass(frozen=True)
class DeriveOptions(RunOptions):
    """The shared run options (engine/stages/run.RunOptions), and derive's own: what a round
    shows and how proposals are checked."""

    budget: int = 300
    domain: str | None = None
    topic: str | None = None
    intra_cluster: bool = False
    rules: ValidationRules = ValidationRules()

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

    def run_options(self, sampler: "Sampler | None") -> RunOptions:
        """These options as the run loop takes them: the dry-round limit for this sampler,
        the accept command, every parameter."""
        accept = self.accept_command or ACCEPT_COMMAND
        if self.output and not self.accept_command:
            accept = f"{ACCEPT_COMMAND} {self.output}"
        return replace(self, dry_rounds=dry_round_limit(self, sampler), accept_command=accept,
                       params=self.all_params())


def with_derive_settings(options: RunOptions, settings: DeriveSettings,
                         intra_cluster: bool = False) -> DeriveOptions:
    """Shared run options (as an entry point built them) with derive's settings."""
    shared = {name: getattr(options, name) for name in RunOptions.__dataclass_fields__}
    return DeriveOptions(**shared, budget=settings.budget, domain=settings.domain,
                         topic=settings.topic, intra_cluster=intra_cluster,
                         rules=settings.rules)


def dry_round_limit(options: RunOptions, sampler: "Sampler | None") -> int:
    if options.dry_rounds is not None:
        return max(1, options.dry_rounds)
    if getattr(options, "intra_cluster", False):
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
