"""The pipeline's stages (engine/pipeline/passes.py runs them): forge the sources, then derive
(exhausting), review (exhausting; or one round of verdicts to a file with `review_apply`
"never"), repair of what review defeated, review of what repair produced, and dedup. Each
runs its stage on the shared loop with the one chat model and says what it changed.

`pipeline_stages` builds the lists from a PipelineOptions and what its caller wires in (the
model, the source reader, the embedder, derive's sampler, the reports and progress)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engine.pipeline.passes import PipelineStage, StageOutcome
from engine.stages.calls import CallPolicy, default_is_transient
from engine.stages.report import ReportFile
from engine.stages.run import Progress, RunOptions, RunResult, run_stage
from engine.stages.stage import Action
from engine.store import Store

if TYPE_CHECKING:
    from engine.stages.stage import LoopStage
    from engine.graph import GraphTx
    from engine.derive.sampling import Sampler
    from engine.embedding.cache import Embedder, VectorCache
    from engine.forge.stage import ForgeStage, PlannedChunk
    from engine.sources.reader import SourceReader
    from engine.stages.contract import ModelForRound

REVIEW_APPLY = ("never", "auto")


@dataclass(frozen=True)
class PipelineOptions:
    """`model`: its name, for the reports; `review_accept`: the command that applies review's
    verdicts file, for the note that names it (with review_apply "never")."""

    model: str
    paths: tuple[str, ...] = ()
    max_passes: int = 5
    max_rounds: int = 10  # per stage run
    timeout: float = 600.0  # seconds per model call
    budget: int = 300  # derive's belief lines per prompt
    strategy: str = "alphabetical"  # derive's sampling strategy
    review_apply: str = "auto"
    review_output: Path = Path("proposed-review.md")
    review_accept: str = ""
    umask: int | None = None  # the caller's, for the verdicts file

    @property
    def applies_review(self) -> bool:
        return self.review_apply == "auto"


def _no_report(stage: str) -> ReportFile:
    return ReportFile(None)


@dataclass(frozen=True)
class Runs:
    """What every stage of the pipeline runs with: the one chat model (each round's contract
    says how it must answer), a report file per stage run, the rounds' progress."""

    options: PipelineOptions
    model: ModelForRound
    is_transient: Callable[[BaseException], bool] = default_is_transient
    report: Callable[[str], ReportFile] = _no_report
    progress: Progress | None = None

    @property
    def calls(self) -> CallPolicy:
        return CallPolicy(timeout=self.options.timeout, is_transient=self.is_transient)

    def exhausting(self, params: dict[str, object]) -> RunOptions:
        """A stage's run that applies as it goes, until nothing is left or max rounds."""
        return RunOptions(model=self.options.model, auto=True, exhaust=True,
                          max_rounds=self.options.max_rounds, calls=self.calls,
                          params={"pipeline": True, **params})


def outcome(stage: str, result: RunResult, report: ReportFile, *, added: int = 0,
            defeated: int = 0, repaired: int = 0, merged: int = 0, note: str = ""
            ) -> StageOutcome:
    t = result.report.totals
    return StageOutcome(stage, result.status.value, rounds=t.rounds, added=added,
                        defeated=defeated, repaired=repaired, merged=merged, seconds=t.seconds,
                        report=str(report.path) if report.path else None, error=result.error,
                        note=note)


def forge_pass(runs: Runs, reader: SourceReader,
               make_stage: Callable[[list[PlannedChunk]], ForgeStage]) -> PipelineStage[GraphTx]:
    from engine.forge.run import ForgeRunOptions, forge

    def run(store: Store[GraphTx]) -> StageOutcome:
        o = runs.options
        report = runs.report("forge")
        result = forge(store, reader.scan(o.paths), make_stage, runs.model, ForgeRunOptions(
            model=o.model, auto=True, calls=runs.calls,
            params={"pipeline": True, "paths": list(o.paths)}),
            report_file=report, progress=runs.progress)
        return outcome("forge", result, report,
                       added=result.report.totals.applied
                       + sum(len(r.restored) for r in result.reconciled),
                       defeated=sum(len(r.retracted) for r in result.reconciled),
                       note=f"{result.report.grounding()['not_grounded']} not grounded")

    return PipelineStage("forge", run)


def derive_pass(runs: Runs, sampler: Callable[[Store[GraphTx]], Sampler]) -> PipelineStage[GraphTx]:
    """`sampler`: a fresh one for each pass, over the store."""
    from engine.derive.options import DeriveOptions
    from engine.derive.run import derive

    def run(store: Store[GraphTx]) -> StageOutcome:
        o = runs.options
        report = runs.report("derive")
        result = derive(store, runs.model, sampler(store), DeriveOptions(
            model=o.model, budget=o.budget, auto=True, exhaust=True, max_rounds=o.max_rounds,
            intra_cluster=o.strategy == "intra-cluster", calls=runs.calls,
            params={"pipeline": True, "strategy": o.strategy}),
            report=report, progress=runs.progress)
        return outcome("derive", result, report, added=result.report.totals.applied,
                       note=f"stopped: {result.stopped}")

    return PipelineStage("derive", run)


def review_pass(runs: Runs, *, after_repair: bool = False) -> PipelineStage[GraphTx]:
    """`after_repair`: the review of what repair produced; with review_apply "never" repair
    did nothing, so it is skipped (the verdicts file is the first review's)."""
    from engine.review.stage import ReviewStage

    def run(store: Store[GraphTx]) -> StageOutcome:
        o = runs.options
        if after_repair and not o.applies_review:
            return StageOutcome("review", note="skipped: nothing was repaired")
        options = runs.exhausting({"review_apply": o.review_apply})
        if not o.applies_review:
            options = RunOptions(
                model=o.model, max_rounds=o.max_rounds, calls=runs.calls,
                output=o.review_output, accept_command=o.review_accept, umask=o.umask,
                params={"pipeline": True, "review_apply": o.review_apply})
        report = runs.report("review")
        stage: LoopStage[GraphTx] = ReviewStage()
        result = run_stage(store, stage, runs.model, options, report_file=report,
                           progress=runs.progress)
        t = result.report.totals
        note = f"{t.applied} judged"
        if not o.applies_review:
            note = (f"{t.valid} verdict(s) in {result.proposals_file or o.review_output}, not "
                    f"applied (apply them with: {o.review_accept})")
        return outcome("review", result, report, note=note,
                       defeated=sum(r.count(Action.DEFEATED) for r in result.rounds))

    return PipelineStage("review", run)


def repair_pass(runs: Runs, embedder: Embedder | None) -> PipelineStage[GraphTx]:
    """Repair of what review defeated: applied as it goes, like review when it applies; when
    review's verdicts are not applied nothing is defeated, so there is nothing to repair."""
    from engine.repair.stage import RepairStage

    def run(store: Store[GraphTx]) -> StageOutcome:
        if not runs.options.applies_review:
            return StageOutcome("repair", note="skipped: review's verdicts are not applied")
        report = runs.report("repair")
        stage: LoopStage[GraphTx] = RepairStage(embedder=embedder)
        result = run_stage(store, stage, runs.model,
                           runs.exhausting({}), report_file=report, progress=runs.progress)
        return outcome("repair", result, report,
                       repaired=sum(r.count(Action.LINKED) + r.count(Action.SOFTENED)
                                    for r in result.rounds),
                       note=f"{result.report.totals.applied} repair(s) applied")

    return PipelineStage("repair", run)


def dedup_pass(runs: Runs, embedder: Embedder | None, cache: VectorCache | None
               ) -> PipelineStage[GraphTx]:
    """Near-duplicates among what the pass produced: by meaning when an embedder is at
    hand, by id tokens otherwise."""
    from engine.dedup.stage import DedupOptions, DedupStage
    from engine.pairs.source import CandidateSource

    def run(store: Store[GraphTx]) -> StageOutcome:
        options = DedupOptions(by_id=embedder is None).check()
        stage = DedupStage(options, CandidateSource(options, embedder=embedder, cache=cache))
        report = runs.report("dedup")
        result = run_stage(store, stage, runs.model,
                           runs.exhausting({"threshold": options.cutoff,
                                            "by_id": options.by_id}),
                           report_file=report, progress=runs.progress)
        return outcome("dedup", result, report,
                       merged=sum(r.count(Action.MERGED) for r in result.rounds),
                       note=f"{result.report.totals.applied} verdict(s) applied")

    return PipelineStage("dedup", run)


def pipeline_stages(runs: Runs, reader: SourceReader,
                    make_forge: Callable[[list[PlannedChunk]], ForgeStage],
                    sampler: Callable[[Store[GraphTx]], Sampler], embedder: Embedder | None,
                    cache: VectorCache | None) -> tuple[list[PipelineStage[GraphTx]],
                                                        list[PipelineStage[GraphTx]]]:
    """The stages run once (forge), and the loop: derive, review, repair, review of what
    repair produced (its links, its rewordings), dedup."""
    return [forge_pass(runs, reader, make_forge)], [
        derive_pass(runs, sampler), review_pass(runs), repair_pass(runs, embedder),
        review_pass(runs, after_repair=True), dedup_pass(runs, embedder, cache)]
