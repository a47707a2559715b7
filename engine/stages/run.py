"""A stage run: one round, or with `exhaust` rounds until the stage has nothing more to do.

Without `auto`, one round runs and its valid items go to a proposals file
(`stage.render_file`; `accept` applies it later). `auto` applies each round in one write
transaction. `exhaust` (implies `auto`) repeats rounds, re-reading the network each time, up
to `max_rounds`, and stops after `dry_rounds` consecutive dry rounds, or at a round with
nothing to show (`empty`: nothing is left). A format failure is not a dry round: it neither
counts towards the stop nor resets the count. A stage that takes turns (review, premise
review, repair; engine/stages/turns.py) counts only the dry rounds that show nothing for the
first time, k of them by default (its turns' `showings`): its first showing of what is due
is never cut short. At its k-th, what the model passed over is unanswered (`Turns.end`),
and the run goes on only to show, once, what waited on that alone; it stops at the first
round with nothing left to show, still for the dry rounds. A round that ends in error ends
the run with status `error`; nothing of that round is applied.

The report is rewritten after every round, so a run cut short still leaves a readable report.

`parallel` (`--parallel N`): up to N rounds' model calls in flight at once, each round still
applied in its own write transaction, in round order (engine/stages/parallel.py), so the
loop below and its stop conditions are the same at any N.
"""
from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Protocol

from engine.clock import iso_utc, utc_now
from engine.files import write_text_atomically
from engine.stages.calls import CallPolicy
from engine.stages.contract import ModelForRound
from engine.stages.parallel import ParallelRounds
from engine.stages.provenance import RunRecord
from engine.stages.report import (
    Outcome,
    ReportFile,
    RoundResult,
    RunReport,
    RunStatus,
    StopReason,
    stop_description,
)
from engine.stages.rounds import RoundSettings
from engine.stages.stage import LoopStage, RunTxT, TakesTurns
from engine.store import Store

CostFunction = Callable[[int, int], "float | None"]  # (tokens_in, tokens_out) -> dollars


@dataclass(frozen=True)
class RunOptions:
    model: str = ""  # the model string, for the report and the Run node
    auto: bool = False
    exhaust: bool = False
    max_rounds: int = 10
    # consecutive dry rounds that end an exhaust run; None: 1, unless the stage's run says
    # otherwise (derive: k, the number of clusters, with a sampler rotating through them; a
    # stage that takes turns: its turns' showings)
    dry_rounds: int | None = None
    calls: CallPolicy = CallPolicy()
    output: Path | None = None  # the proposals file, without `auto`
    accept_command: str = ""  # how to apply the proposals file, printed in it
    params: Mapping[str, object] = field(default_factory=dict)  # every parameter, as given
    # A planned run (forge: one round per pending chunk): exactly this many rounds, with or
    # without `auto`, dry ones included; only an error ends it sooner.
    planned_rounds: int | None = None
    proposals_of_every_round: bool = False  # the proposals file: every round's valid items
    # (a planned run), or the last round's
    parallel: int = 1  # model calls in flight at once (--parallel)
    umask: int | None = None  # the caller's, for the proposals file (None: this process's)

    @property
    def applies(self) -> bool:
        return self.auto or self.exhaust

    @property
    def rounds(self) -> int:
        """How many rounds the run may have."""
        if self.planned_rounds is not None:
            return self.planned_rounds
        return max(1, self.max_rounds) if self.exhaust else 1

    def round_settings(self) -> RoundSettings:
        return RoundSettings(auto=self.applies, calls=self.calls)


class Progress(Protocol):
    def round_started(self, n: int, max_rounds: int) -> None: ...

    def round_finished(self, result: RoundResult) -> None: ...


class NoProgress:
    def round_started(self, n: int, max_rounds: int) -> None:
        pass

    def round_finished(self, result: RoundResult) -> None:
        pass


@dataclass
class RunResult:
    report: RunReport
    report_path: Path | None = None

    @property
    def run_id(self) -> str:
        return self.report.run_id

    @property
    def status(self) -> RunStatus:
        return self.report.status

    @property
    def rounds(self) -> list[RoundResult]:
        return self.report.rounds

    @property
    def stopped(self) -> str | None:
        return self.report.stopped

    @property
    def error(self) -> str | None:
        return self.report.error

    @property
    def proposals_file(self) -> Path | None:
        return self.report.proposals_file

    def as_dict(self) -> dict[str, object]:
        """The run's totals, as a face shows them (the report file has every round)."""
        report = self.report
        return {"run_id": self.run_id, "stage": report.stage, "status": report.status.value,
                "stopped": report.stopped,
                "report": str(self.report_path) if self.report_path else None,
                "proposals_file": str(report.proposals_file) if report.proposals_file
                else None, "totals": report.totals.to_json(), "error": report.error,
                **({} if report.unanswered is None else {"unanswered": report.unanswered})}


def new_run_id(started: datetime) -> str:
    return started.strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)


def new_report(stage: str, options: RunOptions, cost: CostFunction | None,
               started: datetime) -> RunReport:
    """The report of a run starting now, under a new run id."""
    return RunReport(stage=stage, run_id=new_run_id(started), model=options.model,
                     started_at=iso_utc(started), params=dict(options.params), cost=cost)


def run_stage(
    store: Store[RunTxT],
    stage: LoopStage[RunTxT],
    model_for_round: ModelForRound,
    options: RunOptions,
    *,
    report_file: ReportFile | None = None,
    progress: Progress | None = None,
    cost: CostFunction | None = None,
    now: Callable[[], datetime] = utc_now,
    report: RunReport | None = None,
) -> RunResult:
    """`report`: one the caller began (a stage's own fields, e.g. forge's plan), whose run
    id and start the run takes; else a new one."""
    report_file = report_file or ReportFile(None)
    progress = progress or NoProgress()
    report = report or new_report(stage.name, options, cost, now())
    run = RunRecord(id=report.run_id, model=options.model, started_at=report.started_at,
                    params=dict(options.params), stage=stage.name)
    settings = options.round_settings()
    max_rounds = options.rounds
    report_file.write(report)

    reason = StopReason.MAX_ROUNDS if options.planned_rounds is not None else StopReason.ONE_ROUND
    dry_streak = 0
    turns = stage.turns if isinstance(stage, TakesTurns) else None
    if turns is not None:
        turns.clear()
    dry_limit = max(1, options.dry_rounds or (turns.showings if turns is not None else 1))
    exhausting = options.exhaust and options.planned_rounds is None
    ending = 0  # the dry streak that ended the run, while it shows what that released
    rounds = ParallelRounds(store, stage, model_for_round, settings, parallel=options.parallel,
                            max_rounds=max_rounds, run=run, at=lambda: iso_utc(now()),
                            started=lambda n: progress.round_started(n, max_rounds))
    report.parallel = rounds.parallel
    try:
        for result in rounds:
            report.rounds.append(result)
            if turns is not None:
                report.unanswered = turns.unanswered()
            report_file.write(report)
            progress.round_finished(result)
            if result.outcome is Outcome.ERROR:
                reason = StopReason.ERROR
                report.status, report.error = RunStatus.ERROR, result.error
                break
            if result.is_dry:  # a first showing is coverage going on, not saturation
                dry_streak = 0 if result.first_shown else dry_streak + 1
            elif result.outcome is not Outcome.FORMAT_FAILURE:
                dry_streak = 0
            if exhausting and ending:
                if result.outcome is Outcome.EMPTY:
                    break
            elif exhausting:
                if result.outcome is Outcome.EMPTY:
                    reason = StopReason.NOTHING_LEFT
                    break
                if dry_streak >= dry_limit:
                    reason = StopReason.DRY_ROUNDS
                    if turns is None:
                        break
                    turns.end()
                    ending = dry_streak
                    continue
                reason = StopReason.MAX_ROUNDS
        rounds.stop()
        report.discarded = rounds.discarded if rounds.parallel > 1 else None
    except BaseException as e:  # a bug or an interrupt: leave a report that says so
        report.status, report.stop_reason = RunStatus.ERROR, StopReason.CRASHED
        report.stopped, report.finished_at = StopReason.CRASHED.value, iso_utc(now())
        report.error = f"{type(e).__name__}: {e}"
        report_file.write(report)
        raise

    if report.status is RunStatus.PARTIAL:
        report.status = RunStatus.COMPLETE
    if not options.applies and options.output is not None and report.status is RunStatus.COMPLETE:
        valid = ([v for r in report.rounds for v in r.valid] if options.proposals_of_every_round
                 else report.rounds[-1].valid)
        try:
            report.proposals_file = write_text_atomically(
                options.output, stage.render_file(valid, run, options.accept_command),
                umask=options.umask)
        except OSError as e:
            reason, report.status = StopReason.ERROR, RunStatus.ERROR
            report.error = (f"cannot write the proposals file {options.output}: "
                            f"{e.strerror or e}")
    report.stop_reason = reason
    report.stopped = stop_description(reason, dry_streak=ending or dry_streak,
                                      max_rounds=max_rounds)
    report.finished_at = iso_utc(now())
    report_file.write(report)
    return RunResult(report, report_file.path)
