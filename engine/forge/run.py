"""A forge run: plan (which chunks are not forged yet), bring changed sources up to date
(with `auto`), then one round per pending chunk, and the report.

A round follows the shared stage protocol (engine/stages/stage.py): read_round -> the model
(engine/stages/calls.py: timeout, tries, backoff) -> parse -> one retry when the reply could
not be read -> with `auto`: check, apply and the round's provenance in ONE write transaction;
without: check in a read transaction, and the valid premises of every round go to the
proposals file. Outcomes: proposed, dry (nothing valid, or an explicit empty list; the chunk
counts as forged), format_failure (unreadable after the retry; the chunk stays pending),
error (the model or the store failed; nothing of the round applied; the run stops).

This loop is forge's own until the shared engine/stages/rounds.py and run.py land; it calls
only the Stage protocol, so moving onto them changes no stage code.
"""
from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from engine.errors import EngineError
from engine.files import write_text_atomically
from engine.forge.sources import Scan, SourceText
from engine.forge.stage import ForgeStage, PlannedChunk
from engine.forge.staleness import Reconciled, reconcile_in
from engine.provenance import RoundRecord, RunRecord
from engine.stages.calls import CallPolicy, ModelCallFailed, call_model
from engine.stages.contract import ModelForRound
from engine.stages.stage import Applied, Checked, RoundInput
from engine.store import Store

PROPOSED, DRY, FORMAT_FAILURE, EMPTY, ERROR = "proposed", "dry", "format_failure", "empty", "error"
COMPLETE, PARTIAL = "complete", "partial"
MAX_ECHO_CHARS = 20_000
NOT_GROUNDED = "not grounded"


@dataclass(frozen=True)
class Plan:
    sources: tuple[SourceText, ...]
    new: tuple[str, ...]
    changed: tuple[SourceText, ...]
    pending: tuple[PlannedChunk, ...]
    chunks: int  # in all the sources

    def as_dict(self) -> dict[str, Any]:
        return {"sources": len(self.sources), "new": list(self.new),
                "changed": [s.path for s in self.changed], "chunks": self.chunks,
                "pending": len(self.pending)}


def plan_forge(store: Store, scan: Scan) -> Plan:
    """Which sources are new or changed, and which chunks were never forged (by hash)."""
    known = {s.path: s for s in store.read(lambda tx: tx.sources())}
    new, changed, pending = [], [], []
    for src in scan.sources:
        stored = known.get(src.path)
        if stored is None:
            new.append(src.path)
        elif stored.sha256 != src.sha256:
            changed.append(src)
        done = set(stored.chunks) if stored else set()
        pending += [PlannedChunk(src, c) for c in src.chunks if c.sha256 not in done]
    return Plan(scan.sources, tuple(new), tuple(changed), tuple(pending),
                sum(len(s.chunks) for s in scan.sources))


@dataclass(frozen=True)
class RunOptions:
    model: str = ""
    auto: bool = False
    max_rounds: int | None = None  # at most this many chunks in this run
    calls: CallPolicy = CallPolicy()
    output: Path | None = None  # the proposals file, without `auto`
    accept_command: str = "python -m engine.forge accept"
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class RoundResult:
    n: int
    details: Mapping[str, Any] = field(default_factory=dict)
    prompt: str = ""
    prompt_sha256: str = ""
    responses: list[str] = field(default_factory=list)
    parse: dict[str, Any] | None = None
    first_parse: dict[str, Any] | None = None
    items: list[dict[str, Any]] = field(default_factory=list)
    checked: Checked = field(default_factory=Checked)
    applied: Applied | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    calls: int = 0
    seconds: float = 0.0
    outcome: str = ""
    error: str | None = None

    def to_report(self) -> dict[str, Any]:
        return {
            "round": self.n, "outcome": self.outcome, **dict(self.details),
            "prompt": self.prompt, "prompt_sha256": self.prompt_sha256,
            "responses": list(self.responses), "parse": self.parse,
            "format_retry": self.first_parse, "items": self.items,
            "valid": [p.as_dict() for p in self.checked.valid],
            "skipped": [s.as_dict() for s in self.checked.skipped],
            "applied": list(self.applied.entries) if self.applied else [],
            "change": self.applied.change.as_dict() if self.applied else None,
            "tokens": {"input": self.tokens_in, "output": self.tokens_out},
            "calls": self.calls, "seconds": round(self.seconds, 3), "error": self.error,
        }


class Progress(Protocol):
    def round_started(self, n: int, total: int, details: Mapping[str, Any]) -> None: ...

    def round_finished(self, result: RoundResult) -> None: ...


class NoProgress:
    def round_started(self, n: int, total: int, details: Mapping[str, Any]) -> None:
        pass

    def round_finished(self, result: RoundResult) -> None:
        pass


class ReportSink(Protocol):
    path: Path | None

    def write(self, data: dict[str, Any]) -> None: ...


@dataclass
class ForgeResult:
    run_id: str
    status: str
    plan: Plan
    rounds: list[RoundResult]
    reconciled: list[Reconciled]
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


def echo(reply: str) -> str:
    if len(reply) <= MAX_ECHO_CHARS:
        return reply
    return reply[:MAX_ECHO_CHARS] + f"\n[... {len(reply) - MAX_ECHO_CHARS} more characters]"


def run_round(store: Store, stage: ForgeStage, model_for_round: ModelForRound, n: int,
              run: RunRecord, options: RunOptions, *,
              clock: Callable[[], float] = time.monotonic) -> RoundResult:
    """Round `n`; model and store failures end in outcome `error` and do not raise."""
    start = clock()
    result = RoundResult(n)
    try:
        shown = stage.read_round(store, n)
        result.details = dict(shown.details)
        result.prompt, result.prompt_sha256 = shown.prompt.text, shown.prompt.sha256
        if shown.empty:
            result.outcome = EMPTY
            return result
        parsed = _ask(result, stage, model_for_round, shown, options.calls)
        result.parse = parsed.as_dict()
        result.items = [stage.item_dict(p) for p in parsed.items]
        if parsed.needs_retry:
            result.outcome = FORMAT_FAILURE
            return result
        if options.auto:
            record = RoundRecord(run.id, n, shown.prompt.sha256, result.tokens_in,
                                 result.tokens_out, round(clock() - start, 3),
                                 strategy="chunk", stage=stage.name)

            def write(tx) -> Applied:
                applied = stage.apply(tx, parsed.items, shown, run, record)
                tx.record_stage_round(run, record, [e["id"] for e in applied.entries])
                return applied

            result.applied = store.write(write)
            result.checked = result.applied.checked
        else:
            result.checked = store.read(lambda tx: stage.check(tx, parsed.items, shown))
        result.outcome = PROPOSED if result.checked.valid else DRY
    except ModelCallFailed as e:
        result.outcome, result.error = ERROR, str(e)
        result.calls += e.tries
    except EngineError as e:
        result.outcome, result.error = ERROR, f"{type(e).__name__}: {e}"
    finally:
        result.seconds = clock() - start
    return result


def _ask(result: RoundResult, stage: ForgeStage, model_for_round: ModelForRound,
         shown: RoundInput, policy: CallPolicy):
    runnable = model_for_round(shown.contract)
    messages: list[BaseMessage] = [HumanMessage(shown.prompt.text)]
    parsed = stage.parse(_call(result, runnable, messages, policy), shown)
    if parsed.needs_retry:
        result.first_parse = parsed.as_dict()
        messages += [AIMessage(echo(result.responses[-1])),
                     HumanMessage(stage.retry_message(parsed, shown))]
        parsed = stage.combine(parsed, stage.parse(_call(result, runnable, messages, policy),
                                                   shown))
    return parsed


def _call(result: RoundResult, runnable, messages, policy: CallPolicy) -> str:
    call = call_model(runnable, messages, policy)
    result.calls += call.tries
    result.tokens_in += call.tokens_in
    result.tokens_out += call.tokens_out
    result.responses.append(call.text)
    return call.text


def forge(store: Store, scan: Scan, make_stage: Callable[[list[PlannedChunk]], ForgeStage],
          model_for_round: ModelForRound, options: RunOptions, *,
          report: ReportSink | None = None, progress: Progress | None = None,
          now: Callable[[], datetime] = utc_now) -> ForgeResult:
    progress = progress or NoProgress()
    started = now()
    run = RunRecord(new_run_id(started), options.model, iso_utc(started),
                    dict(options.params), stage="forge")
    plan = plan_forge(store, scan)
    reconciled: list[Reconciled] = []
    if options.auto and plan.changed:
        stamp = iso_utc(now())
        reconciled = store.write(lambda tx: [reconcile_in(tx, s, at=stamp) for s in plan.changed])
        plan = plan_forge(store, scan)
    todo = list(plan.pending)
    if options.max_rounds is not None:
        todo = todo[:options.max_rounds]
    stage = make_stage(todo)
    rounds: list[RoundResult] = []
    status, error = COMPLETE, None

    def data(state: str, **extra: Any) -> dict[str, Any]:
        return _report(run, options, state, plan, scan, reconciled, rounds, started, now(),
                       **extra)

    _write(report, data(PARTIAL))
    for n in range(1, len(todo) + 1):
        progress.round_started(n, len(todo), {"source": todo[n - 1].chunk.path,
                                              "lines": f"{todo[n - 1].chunk.start}-"
                                                       f"{todo[n - 1].chunk.end}"})
        result = run_round(store, stage, model_for_round, n, run, options)
        rounds.append(result)
        _write(report, data(PARTIAL))
        progress.round_finished(result)
        if result.outcome == ERROR:
            status, error = ERROR, result.error
            break
    proposals_file = None
    if not options.auto and options.output is not None and status == COMPLETE:
        valid = [p for r in rounds for p in r.checked.valid]
        command = f"{options.accept_command} {options.output}"
        try:
            proposals_file = write_text_atomically(
                options.output, stage.render_file(valid, run, command))
        except OSError as e:
            status, error = ERROR, f"cannot write the proposals file {options.output}: {e}"
    final = data(status, proposals_file=proposals_file, error=error)
    _write(report, final)
    return ForgeResult(run.id, status, plan, rounds, reconciled, final,
                       report.path if report else None, proposals_file, error)


def _write(report: ReportSink | None, data: dict[str, Any]) -> None:
    if report is not None:
        report.write(data)


def totals(rounds: list[RoundResult]) -> dict[str, Any]:
    skipped = [s for r in rounds for s in r.checked.skipped]
    found = sum(len(r.items) for r in rounds)
    not_grounded = sum(1 for s in skipped if s.reason.startswith(NOT_GROUNDED))
    applied = [e for r in rounds if r.applied for e in r.applied.entries]
    return {
        "rounds": len(rounds),
        "calls": sum(r.calls for r in rounds),
        "tokens": {"input": sum(r.tokens_in for r in rounds),
                   "output": sum(r.tokens_out for r in rounds)},
        "seconds": round(sum(r.seconds for r in rounds), 3),
        "proposed": found,
        "valid": sum(len(r.checked.valid) for r in rounds),
        "skipped": len(skipped),
        "not_grounded": not_grounded,
        "grounded_share": round(1 - not_grounded / found, 3) if found else None,
        "applied": len(applied),
        "format_failures": sum(1 for r in rounds if r.outcome == FORMAT_FAILURE),
        "dry_rounds": sum(1 for r in rounds if r.outcome == DRY),
    }


def _report(run: RunRecord, options: RunOptions, status: str, plan: Plan, scan: Scan,
            reconciled: list[Reconciled], rounds: list[RoundResult], started: datetime,
            finished: datetime, *, proposals_file: Path | None = None,
            error: str | None = None) -> dict[str, Any]:
    return {
        "version": 1, "stage": "forge", "run_id": run.id, "status": status,
        "model": options.model, "started_at": run.started_at,
        "finished_at": iso_utc(finished) if status != PARTIAL else None,
        "params": dict(options.params), "auto": options.auto,
        "plan": plan.as_dict(),
        "skipped_files": [{"path": s.path, "reason": s.reason} for s in scan.skipped],
        "notes": list(scan.notes),
        "reconciled": [r.as_dict() for r in reconciled],
        "rounds": [r.to_report() for r in rounds],
        "totals": totals(rounds),
        "error": error,
        "proposals_file": str(proposals_file) if proposals_file else None,
    }
