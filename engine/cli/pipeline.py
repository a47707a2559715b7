"""`python -m engine.pipeline PATHS --model M`: forge the sources, then derive (--exhaust),
review (--exhaust; with `--review-apply never` one round of verdicts to a file), repair of
what review defeated, review of what repair produced, and dedup, pass after pass, until a
pass adds, defeats, repairs and merges nothing
(or --max-passes). One line per stage as it finishes, one summary table, one report per
stage as usual.

The stages are a list built here (STAGES); a stage missing from this build is named in the
output, not silently dropped. Exit codes: 0 ok, 1 a stage ended in error, 2 bad input.
"""
from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.cli import stage_cli as sc
from engine.cli.support import print_json, table
from engine.pipeline.passes import ERROR, PipelineStage, StageOutcome, run_pipeline
from engine.stages.calls import CallPolicy
from engine.stages.stage import Action
from engine.store import Store

PROG = "python -m engine.pipeline"
REVIEW_APPLY = ("never", "auto")
REVIEW_OUTPUT = "proposed-review.md"
# Stages of the loop not in this build yet; named in the output so a reader knows.
NOT_WIRED: tuple[str, ...] = ()

EXAMPLES = f"""\
examples:
  {PROG} docs/ src/ --model ollama:qwen3:8b
      forge, then derive/review/repair/review/dedup until a pass changes nothing
  {PROG} scripts/example-sources --model local --max-passes 2 --max-rounds 2
  {PROG} docs/ --model local --review-apply never
      review's verdicts go to {REVIEW_OUTPUT} instead of the graph

exit codes: 0 ok; 1 a stage ended in error; 2 bad input or usage.
"""


@dataclass(frozen=True)
class Models:
    """One chat model, seen the way each stage talks to it."""

    forge: Any  # ModelForRound for JSON replies
    derive: Any  # ModelForRound for derive's markdown proposals
    is_transient: Callable[[BaseException], bool]


def build_models(args: argparse.Namespace) -> Models:
    """One chat model for every stage: each round's contract says how it must answer
    (derive's markdown, forge's JSON), and the back-end honours it."""
    binding = sc.build_model(args)
    return Models(binding.model_for_round, binding.model_for_round, binding.is_transient)


@dataclass
class Wiring(sc.Wiring):
    """The stage commands' wiring, with one model for every stage."""

    build_models: Callable[[argparse.Namespace], Models] = build_models


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATHS", help="files and folders to forge")
    p.add_argument("--model", metavar="SPEC", required=True, help="the chat model (as derive)")
    p.add_argument("--structured", action="store_true", help="structured output (as derive)")
    p.add_argument("--timeout", type=sc.positive_float, default=600.0, metavar="S",
                   help="seconds per model call (default 600)")
    loop = p.add_argument_group("passes")
    loop.add_argument("--max-passes", type=sc.positive_int, default=5, metavar="N",
                      help="at most N passes of derive/review/dedup (default 5)")
    loop.add_argument("--max-rounds", type=sc.positive_int, default=10, metavar="N",
                      help="at most N rounds per derive run (default 10)")
    loop.add_argument("--budget", type=sc.positive_int, default=300, metavar="N",
                      help="derive's belief lines per prompt (default 300)")
    loop.add_argument("--sample", action="store_true", help="derive's random windows")
    loop.add_argument("--cluster", action="store_true", help="derive's embedding clusters")
    loop.add_argument("--intra-cluster", action="store_true",
                      help="derive's one cluster per round")
    loop.add_argument("--review-apply", choices=REVIEW_APPLY, default="auto",
                      help="auto: apply review's verdicts as it goes (default); never: one "
                           "round of verdicts per pass to --review-output, applied by nobody "
                           "(for a model too weak to judge)")
    loop.add_argument("--review-output", metavar="FILE", default=REVIEW_OUTPUT,
                      help=f"the verdicts file of --review-apply never (default {REVIEW_OUTPUT})")
    sc.source_flags(p)


def _rounds_progress(args: argparse.Namespace, wiring: "Wiring") -> Any:
    return sc.progress_for(args, wiring)


def forge_stage(args: argparse.Namespace, models: Models, reader, embedder,
                wiring: "Wiring") -> PipelineStage:
    from engine.forge.run import ForgeRunOptions, forge

    make_stage = sc.forge_stage_factory(args, reader, embedder)

    def run(store: Store) -> StageOutcome:
        result = forge(store, reader.scan(args.paths), make_stage, models.forge,
                       ForgeRunOptions(model=args.model, auto=True,
                                       calls=CallPolicy(timeout=args.timeout,
                                                        is_transient=models.is_transient),
                                       params={"pipeline": True, "paths": list(args.paths)}),
                       report_file=sc.report_file(args, "forge"),
                       progress=_rounds_progress(args, wiring))
        t = result.report.totals
        return StageOutcome(
            "forge", result.status.value, rounds=t.rounds,
            added=t.applied + sum(len(r.restored) for r in result.reconciled),
            defeated=sum(len(r.retracted) for r in result.reconciled), seconds=t.seconds,
            report=str(result.report_path) if result.report_path else None, error=result.error,
            note=f"{result.report.grounding()['not_grounded']} not grounded")

    return PipelineStage("forge", run)


def _sampler_args(args: argparse.Namespace) -> argparse.Namespace:
    return argparse.Namespace(intra_cluster=args.intra_cluster, cluster=args.cluster,
                              sample=args.sample, budget=args.budget, seed=None,
                              n_clusters=None, embedding_model=None, quiet=True)


def derive_stage(args: argparse.Namespace, models: Models, wiring: Wiring) -> PipelineStage:
    from engine.derive.run import DeriveOptions, derive

    def run(store: Store) -> StageOutcome:
        sargs = _sampler_args(args)
        sampler = (wiring.make_sampler or sc.make_sampler)(sargs, store)
        options = DeriveOptions(
            model=args.model, budget=args.budget, auto=True, exhaust=True,
            max_rounds=args.max_rounds, intra_cluster=args.intra_cluster,
            calls=CallPolicy(timeout=args.timeout, is_transient=models.is_transient),
            params={"pipeline": True, "strategy": sc.strategy_of(sargs)})
        report = sc.report_file(args, "derive")
        result = derive(store, models.derive, sampler, options, report=report,
                        progress=_rounds_progress(args, wiring))
        t = result.report.totals
        return StageOutcome("derive", result.status.value, rounds=t.rounds, added=t.applied,
                            seconds=t.seconds, report=str(report.path) if report.path
                            else None, error=result.error, note=f"stopped: {result.stopped}")

    return PipelineStage("derive", run)


def review_stage(args: argparse.Namespace, models: Models, wiring: Wiring, *,
                 after_repair: bool = False) -> PipelineStage:
    """`after_repair`: the review of what repair produced; with `--review-apply never`
    repair did nothing, so it is skipped (the verdicts file is the first review's)."""
    from engine.review.stage import ReviewSettings, ReviewStage
    from engine.stages.run import RunOptions, run_stage

    applies = args.review_apply == "auto"
    output = None if applies else Path(args.review_output)
    accept = f"python -m engine.review accept {output}"

    def run(store: Store) -> StageOutcome:
        if after_repair and not applies:
            return StageOutcome("review", note="skipped: nothing was repaired")
        options = RunOptions(
            model=args.model, auto=applies, exhaust=applies, max_rounds=args.max_rounds,
            calls=CallPolicy(timeout=args.timeout, is_transient=models.is_transient),
            output=output, accept_command=accept if output else "",
            params={"pipeline": True, "review_apply": args.review_apply})
        report = sc.report_file(args, "review")
        result = run_stage(store, ReviewStage(ReviewSettings()), models.derive, options,
                           report_file=report, progress=_rounds_progress(args, wiring))
        t = result.report.totals
        defeated = sum(r.count(Action.DEFEATED) for r in result.rounds)
        note = f"{t.applied} judged"
        if not applies:
            note = (f"{t.valid} verdict(s) in {result.proposals_file or output}, not applied "
                    f"(--review-apply never; apply them with: {accept})")
        return StageOutcome("review", result.status.value, rounds=t.rounds,
                            defeated=defeated, seconds=t.seconds,
                            report=str(report.path) if report.path else None,
                            error=result.error, note=note)

    return PipelineStage("review", run)


def repair_stage(args: argparse.Namespace, models: Models, embedder,
                 wiring: Wiring) -> PipelineStage:
    """Repair of what review defeated: applied as it goes, like review with --review-apply
    auto; with `never` nothing is defeated in the graph, so there is nothing to repair."""
    from engine.repair.stage import RepairStage
    from engine.stages.run import RunOptions, run_stage

    def run(store: Store) -> StageOutcome:
        if args.review_apply != "auto":
            return StageOutcome("repair", note="skipped: review's verdicts are not applied")
        options = RunOptions(
            model=args.model, auto=True, exhaust=True, max_rounds=args.max_rounds,
            calls=CallPolicy(timeout=args.timeout, is_transient=models.is_transient),
            params={"pipeline": True})
        report = sc.report_file(args, "repair")
        result = run_stage(store, RepairStage(embedder=embedder), models.derive, options,
                           report_file=report, progress=_rounds_progress(args, wiring))
        t = result.report.totals
        repaired = sum(r.count(Action.LINKED) + r.count(Action.SOFTENED) for r in result.rounds)
        return StageOutcome("repair", result.status.value, rounds=t.rounds, repaired=repaired,
                            seconds=t.seconds, report=str(report.path) if report.path else None,
                            error=result.error, note=f"{t.applied} repair(s) applied")

    return PipelineStage("repair", run)


def dedup_stage(args: argparse.Namespace, models: Models, embedder,
                wiring: Wiring) -> PipelineStage:
    """Near-duplicates among what the pass produced: by meaning when embeddings are at
    hand, by id tokens otherwise (--no-embeddings)."""
    from engine.dedup.stage import CandidateSource, DedupOptions, DedupStage
    from engine.stages.run import RunOptions, run_stage

    def run(store: Store) -> StageOutcome:
        options = DedupOptions(by_id=embedder is None).check()
        cache = None if embedder is None else sc.vector_cache()
        stage = DedupStage(options, CandidateSource(options, embedder=embedder, cache=cache))
        run_options = RunOptions(
            model=args.model, auto=True, exhaust=True, max_rounds=args.max_rounds,
            calls=CallPolicy(timeout=args.timeout, is_transient=models.is_transient),
            params={"pipeline": True, "threshold": options.cutoff, "by_id": options.by_id})
        report = sc.report_file(args, "dedup")
        result = run_stage(store, stage, models.derive, run_options, report_file=report,
                           progress=_rounds_progress(args, wiring))
        t = result.report.totals
        merged = sum(r.count(Action.MERGED) for r in result.rounds)
        return StageOutcome("dedup", result.status.value, rounds=t.rounds, merged=merged,
                            seconds=t.seconds, report=str(report.path) if report.path else None,
                            error=result.error, note=f"{t.applied} verdict(s) applied")

    return PipelineStage("dedup", run)


class StderrProgress:
    def __init__(self, stream):
        self.stream = stream

    def stage_finished(self, n_pass: int, o: StageOutcome) -> None:
        where = "pass 0" if n_pass == 0 else f"pass {n_pass}"
        line = (f"{where} {o.stage}: {o.status}, {o.rounds} round(s), {o.added} added, "
                f"{o.defeated} defeated, {o.repaired} repaired, {o.merged} merged, "
                f"{o.seconds:.1f} s")
        if o.note:
            line += f"; {o.note}"
        if o.error:
            line += f"; error: {o.error}"
        print(line, file=self.stream, flush=True)


def cmd_pipeline(args: argparse.Namespace, wiring: Wiring) -> int:
    models = wiring.build_models(args)
    reader = (wiring.make_reader or sc.make_reader)(args)
    embedder = (wiring.make_embedder or sc.make_embedder)(args)
    first = [forge_stage(args, models, reader, embedder, wiring)]
    # review, then repair, then review of what repair produced (its links, its rewordings)
    loop = [derive_stage(args, models, wiring), review_stage(args, models, wiring),
            repair_stage(args, models, embedder, wiring),
            review_stage(args, models, wiring, after_repair=True),
            dedup_stage(args, models, embedder, wiring)]
    progress = None if args.quiet else StderrProgress(wiring.err())
    with wiring.open_store() as store:
        result = run_pipeline(store, first, loop, max_passes=args.max_passes, progress=progress)
    if args.json:
        print_json({**result.as_dict(), "not_wired": list(NOT_WIRED)})
    else:
        rows = [(p, o.stage, o.status, o.rounds, o.added, o.defeated, o.repaired, o.merged,
                 f"{o.seconds:.1f}", o.report or "") for p, o in result.outcomes]
        print(table(rows, ("pass", "stage", "status", "rounds", "added", "defeated",
                           "repaired", "merged", "seconds", "report")))
        print(f"pipeline: {result.status}, stopped: {result.stopped}")
        if NOT_WIRED:  # stages of the loop a build may lack, named so a reader knows
            print(f"not in this build yet: {', '.join(NOT_WIRED)}")
    if result.status == ERROR:
        failed = next(o for _, o in reversed(result.outcomes) if o.status == ERROR)
        print(f"Error: {failed.stage}: {failed.error}", file=wiring.err())
        return 1
    return 0


COMMAND = sc.StageCommand(
    prog=PROG, usage=f"{PROG} PATHS... --model SPEC [options]",
    description="Forge premises from source files, then derive, review, repair (and review "
                "what it produced) and dedup, repeating until a pass changes nothing.",
    epilog=EXAMPLES, model_flags=False, add_arguments=add_arguments,
    check=lambda parser, args: None, run=lambda args, wiring: cmd_pipeline(args, wiring))
build_parser = COMMAND.build_parser


def main(argv: Sequence[str] | None = None, *, wiring: Wiring | None = None,
         prog: str = PROG) -> int:
    return sc.stage_main(COMMAND, argv, wiring or Wiring(), prog)
