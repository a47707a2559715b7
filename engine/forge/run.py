"""A forge run: plan (which chunks are not forged yet), bring changed sources up to date
(with `auto`), then one round per pending chunk on the shared machinery
(engine/stages/rounds.py: the model call, the one retry, check, and with `auto` the apply
and the round's provenance in one write transaction), and the report.

Forge's own part is the plan: every pending chunk gets its round (a planned run of
engine/stages/run.run_stage), with or without `auto`, and without it the valid premises of
all rounds go to one proposals file. A round that is dry
(nothing valid, or an explicit empty list) marks its chunk forged; a format failure leaves it
pending; an error ends the run with nothing of that round applied.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from engine.change_records import ChangeEntry
from engine.forge.stage import ForgeApplyTx, ForgeStage, PlannedChunk
from engine.sources.reader import Scan, SourceText
from engine.sources.staleness import CHANGED_REASON, Reconciled, reconcile_in
from engine.stages.calls import CallPolicy
from engine.stages.contract import ModelForRound
from engine.stages.report import ReportFile, RunReport, StopReason
from engine.stages.run import (
    Progress,
    RunOptions,
    RunResult,
    iso_utc,
    new_run_id,
    run_stage,
    utc_now,
)
from engine.store import Store

NOT_GROUNDED = "not grounded"


@dataclass(frozen=True)
class Plan:
    sources: tuple[SourceText, ...]
    new: tuple[str, ...]
    changed: tuple[SourceText, ...]
    pending: tuple[PlannedChunk, ...]
    chunks: int  # in all the sources

    def as_dict(self) -> dict[str, object]:
        return {"sources": len(self.sources), "new": list(self.new),
                "changed": [s.path for s in self.changed], "chunks": self.chunks,
                "pending": len(self.pending)}


def plan_forge(store: Store[ForgeApplyTx], scan: Scan) -> Plan:
    """Which sources are new or changed, and which chunks were never forged (by hash). A
    source back as it was forged, whose premises `forge stale --retract` took OUT while it
    was changed, counts as changed: reconciling it brings them back."""
    known = {s.path: s for s in store.read(lambda tx: tx.sources())}
    back = sources_back(store, [s.path for s in scan.sources
                                if s.path in known and known[s.path].sha256 == s.sha256])
    new, changed, pending = [], [], []
    for src in scan.sources:
        stored = known.get(src.path)
        if stored is None:
            new.append(src.path)
        elif stored.sha256 != src.sha256 or src.path in back:
            changed.append(src)
        done = set(stored.chunks) if stored else set()
        pending += [PlannedChunk(src, c) for c in src.chunks if c.sha256 not in done]
    return Plan(scan.sources, tuple(new), tuple(changed), tuple(pending),
                sum(len(s.chunks) for s in scan.sources))


def sources_back(store: Store[ForgeApplyTx], paths: Sequence[str]) -> set[str]:
    """Those of `paths` with a premise retracted because its source had changed."""
    if not paths:
        return set()
    beliefs = store.read(lambda tx: tx.beliefs_from_sources(list(paths)))
    return {b.source for b in beliefs
            if b.retracted and b.retract_reason.startswith(CHANGED_REASON)}


@dataclass(frozen=True)
class ForgeRunOptions:
    model: str = ""
    auto: bool = False
    max_rounds: int | None = None  # at most this many chunks in this run
    calls: CallPolicy = CallPolicy()
    output: Path | None = None  # the proposals file, without `auto`
    accept_command: str = ""  # how to apply the proposals file, printed in it
    params: Mapping[str, object] = field(default_factory=dict)
    parallel: int = 1  # chunks whose model calls are in flight at once
    umask: int | None = None  # the caller's, for the proposals file (None: this process's)


@dataclass
class ForgeReport(RunReport):
    """The shared run report, with what forge read and reconciled."""

    plan: dict[str, object] = field(default_factory=dict)
    skipped_files: list[dict[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    reconciled: list[Reconciled] = field(default_factory=list)

    def grounding(self) -> dict[str, object]:
        found = sum(len(r.proposals) for r in self.rounds)
        not_grounded = sum(1 for r in self.rounds for s in r.skipped
                           if s.reason.startswith(NOT_GROUNDED))
        return {"proposed": found, "not_grounded": not_grounded,
                "grounded_share": round(1 - not_grounded / found, 3) if found else None}

    def to_json(self) -> dict[str, object]:
        return {**super().to_json(), "plan": self.plan, "skipped_files": self.skipped_files,
                "notes": self.notes, "reconciled": [r.as_dict() for r in self.reconciled],
                "grounding": self.grounding()}


@dataclass
class ForgeResult(RunResult):
    """The shared run result, with forge's plan and its report's reconciled sources."""

    report: ForgeReport
    plan: Plan | None = None

    @property
    def reconciled(self) -> list[Reconciled]:
        return self.report.reconciled


def forge(store: Store[ForgeApplyTx], scan: Scan,
          make_stage: Callable[[list[PlannedChunk]], ForgeStage],
          model_for_round: ModelForRound, options: ForgeRunOptions, *,
          report_file: ReportFile | None = None, progress: Progress | None = None,
          cost: Callable[[int, int], float | None] | None = None,
          now: Callable[[], datetime] = utc_now) -> ForgeResult:
    report_file = report_file or ReportFile(None)
    started = now()
    plan = plan_forge(store, scan)
    report = ForgeReport(stage="forge", run_id=new_run_id(started), model=options.model,
                         started_at=iso_utc(started), params=dict(options.params), cost=cost,
                         skipped_files=[{"path": s.path, "reason": s.reason}
                                        for s in scan.skipped], notes=list(scan.notes))
    if options.auto and plan.changed:
        stamp = iso_utc(now())
        report.reconciled = store.write(
            lambda tx: [reconcile_in(tx, s, at=stamp) for s in plan.changed],
            ChangeEntry("forge", {"run": report.run_id,
                                  "reconcile": [s.path for s in plan.changed]},
                        actor=report.run_id))
        plan = plan_forge(store, scan)
    report.plan = plan.as_dict()
    todo = list(plan.pending)[:options.max_rounds]
    run_options = RunOptions(
        model=options.model, auto=options.auto, calls=options.calls, output=options.output,
        accept_command=options.accept_command, params=options.params,
        planned_rounds=len(todo), proposals_of_every_round=True, parallel=options.parallel,
        umask=options.umask)
    result = run_stage(store, make_stage(todo), model_for_round, run_options,
                       report_file=report_file, progress=progress, cost=cost, now=now,
                       report=report)
    if report.stop_reason is StopReason.MAX_ROUNDS:
        report.stopped = ("every pending chunk forged" if len(todo) == len(plan.pending) else
                          f"max rounds ({len(todo)} of {len(plan.pending)} chunks)")
        report_file.write(report)
    return ForgeResult(report, result.report_path, plan)
