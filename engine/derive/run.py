"""A derive run: one round, or with `exhaust` rounds until the network is saturated.

Without `auto`, one round runs and its valid proposals go to a markdown file in the parser's
format (`accept` applies it later). `auto` applies each round in one write transaction.
`exhaust` (implies `auto`) repeats rounds, re-reading the network each time, up to
`max_rounds`, and stops after `dry_rounds` consecutive dry rounds (default 1, and k, the number
of clusters, when the sampler rotates through clusters, so every cluster gets its chance).
A format failure is not a dry round: it neither counts towards the stop nor resets the count.
A round that ends in error ends the run with status `error`; nothing of that round is applied.

The report is rewritten after every round, so a run cut short still leaves a readable report.
"""
from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from engine.stages.calls import CallPolicy
from engine.stages.contract import ModelForRound
from engine.derive.prompt import Prompt, PromptOptions, build_prompt
from engine.derive.proposals import Proposal, render_proposals
from engine.derive.report import COMPLETE, ERROR, PARTIAL, ReportFile
from engine.derive.rounds import FORMAT_FAILURE, RoundResult, RoundSettings, run_round
from engine.derive.validate import ValidationRules
from engine.derive.view import read_view
from engine.store import DeriveRunRecord, Store

if TYPE_CHECKING:
    from engine.derive.sampling import Sampler

CostFunction = Callable[[int, int], "float | None"]  # (tokens_in, tokens_out) -> dollars


@dataclass(frozen=True)
class DeriveOptions:
    model: str = ""  # the model string, for the report and the DeriveRun node
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

    def round_settings(self) -> RoundSettings:
        return RoundSettings(
            budget=self.budget,
            auto=self.applies,
            prompt=PromptOptions(self.domain, self.topic, self.rules.min_antecedents),
            rules=self.rules,
            calls=self.calls,
        )


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
    run_id: str
    status: str
    rounds: list[RoundResult]
    stopped: str
    report: dict[str, Any]
    report_path: Path | None = None
    proposals_file: Path | None = None
    error: str | None = None


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def iso_utc(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).replace(microsecond=0).isoformat()


def new_run_id(started: datetime) -> str:
    return started.strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)


def dry_round_limit(options: DeriveOptions, sampler: "Sampler") -> int:
    if options.dry_rounds is not None:
        return max(1, options.dry_rounds)
    if options.intra_cluster:
        return max(1, getattr(sampler, "n_clusters", None) or 1)
    return 1


def preview_prompt(store: Store, sampler: "Sampler", options: DeriveOptions) -> Prompt:
    """The prompt round 1 would send (`--dry-run`); no model is called, nothing written."""
    settings = options.round_settings()
    view = read_view(store, sampler, 0, budget=options.budget, topic=options.topic)
    return build_prompt(view, settings.prompt)


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
    report = report or ReportFile(None)
    progress = progress or NoProgress()
    started = now()
    run = DeriveRunRecord(
        id=new_run_id(started), model=options.model, started_at=iso_utc(started),
        params=options.all_params())
    settings = options.round_settings()
    max_rounds = max(1, options.max_rounds) if options.exhaust else 1
    rounds: list[RoundResult] = []
    report.write(_report_data(run, options, PARTIAL, rounds, started, cost))

    stopped, dry_streak = "one round", 0
    status = COMPLETE
    try:
        for n in range(1, max_rounds + 1):
            progress.round_started(n, max_rounds)
            result = run_round(store, model_for_round, sampler, settings, n=n, run=run,
                               at=lambda: iso_utc(now()))
            rounds.append(result)
            report.write(_report_data(run, options, PARTIAL, rounds, started, cost))
            progress.round_finished(result)
            if result.error is not None:
                status, stopped = ERROR, "error"
                break
            if result.is_dry:
                dry_streak += 1
            elif result.outcome != FORMAT_FAILURE:
                dry_streak = 0
            if options.exhaust:
                limit = dry_round_limit(options, sampler)
                if dry_streak >= limit:
                    stopped = f"{dry_streak} consecutive dry round(s)"
                    break
                stopped = f"max rounds ({max_rounds})"
    except BaseException as e:  # a bug or an interrupt: leave a report that says so
        data = _report_data(run, options, ERROR, rounds, started, cost, finished=now(),
                            stopped="crashed")
        data["error"] = f"{type(e).__name__}: {e}"
        report.write(data)
        raise

    proposals_file, error = None, rounds[-1].error if rounds and status == ERROR else None
    if not options.applies and options.output is not None and status == COMPLETE:
        try:
            proposals_file = write_proposals_file(options.output, rounds[-1].valid, run, options)
        except OSError as e:
            status, stopped = ERROR, "error"
            error = f"cannot write the proposals file {options.output}: {e.strerror or e}"
    data = _report_data(run, options, status, rounds, started, cost, finished=now(),
                        stopped=stopped, proposals_file=proposals_file)
    data["error"] = data["error"] or error
    report.write(data)
    return RunResult(
        run_id=run.id, status=status, rounds=rounds, stopped=stopped, report=data,
        report_path=report.path, proposals_file=proposals_file, error=error,
    )


def write_proposals_file(path: Path, proposals: list[Proposal], run: DeriveRunRecord,
                         options: DeriveOptions) -> Path:
    """The proposals, in the format the parser reads, for review and `accept`."""
    head = [
        "# Proposed derivations",
        "",
        f"<!-- eem-derive run {run.id}, model {options.model or '-'}, {run.started_at} -->",
        "",
        "Delete the blocks you do not want, then apply the rest with:",
        "",
        f"    python -m engine.derive accept {path}",
        "",
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(head) + "\n" + render_proposals(proposals), encoding="utf-8")
    return path


def _report_data(run: DeriveRunRecord, options: DeriveOptions, status: str,
                 rounds: list[RoundResult], started: datetime, cost: CostFunction | None,
                 *, finished: datetime | None = None, stopped: str | None = None,
                 proposals_file: Path | None = None) -> dict[str, Any]:
    tokens_in = sum(r.tokens_in for r in rounds)
    tokens_out = sum(r.tokens_out for r in rounds)
    applied = [a for r in rounds for a in r.applied]
    error = next((r.error for r in rounds if r.error), None)
    return {
        "version": 1,
        "run_id": run.id,
        "status": status,
        "model": options.model,
        "started_at": run.started_at,
        "finished_at": iso_utc(finished) if finished else None,
        "params": options.all_params(),
        "rounds": [r.to_report() for r in rounds],
        "totals": {
            "rounds": len(rounds),
            "calls": sum(r.calls for r in rounds),
            "tokens": {"input": tokens_in, "output": tokens_out},
            "cost_usd": cost(tokens_in, tokens_out) if cost else None,
            "seconds": round(sum(r.seconds for r in rounds), 3),
            "proposals_found": sum(len(r.proposals) for r in rounds),
            "valid": sum(len(r.valid) for r in rounds),
            "skipped": sum(len(r.skipped) for r in rounds),
            "applied": len(applied),
            "applied_in": sum(1 for _, t in applied if t is not None and t.value == "IN"),
            "dry_rounds": sum(1 for r in rounds if r.is_dry),
            "format_failures": sum(1 for r in rounds if r.outcome == FORMAT_FAILURE),
        },
        "stopped": stopped,
        "error": error,
        "proposals_file": str(proposals_file) if proposals_file else None,
    }
