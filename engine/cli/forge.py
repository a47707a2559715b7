"""`python -m engine.forge`: premises from source files, each grounded in a quote
(`forge PATHS`), `accept FILE`, and the staleness commands `status` and `stale`.

The flags become a ForgeSettings and a ForgeRunOptions (engine/forge/), the files read a
SourceOptions under the root engine/forge/roots.py chooses; the reader, the embedder and
the model are wired in (engine/wiring/). Exit codes: 0 ok, 1 a run that ended in error, 2
bad input or usage.
"""
from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from engine.cli import stage_cli as sc
from engine.cli.command import shorten, table
from engine.cli.stage_flags import (
    filter_flags,
    model_spec,
    parallel_flag,
    positive_int,
    premise_check_flags,
    root_flag,
    source_flags,
    source_options,
)
from engine.defaults import SOURCES_OUT_LIMIT

if TYPE_CHECKING:
    from engine.embedding.cache import Embedder
    from engine.forge.prompt import PromptOptions
    from engine.forge.run import Plan
    from engine.forge.stage import ForgeStage, PlannedChunk
    from engine.service.context import Context
    from engine.sources.reader import Scan, SourceOptions, SourceReader
    from engine.wiring.parts import StageParts

PROG = "python -m engine.forge"
DEFAULT_OUTPUT = "proposed-premises.md"

RUN_EXAMPLES = f"""\
examples:
  {PROG} docs/ src/ --dry-run
      the sources, their chunks, what is skipped and why, and the first prompt; no model
  {PROG} docs/ --model ollama:qwen3:8b
      premises for every chunk not forged yet -> {DEFAULT_OUTPUT}, for review
  {PROG} docs/ src/ --model local --auto --include '*.md' --exclude 'docs/old/**'
      extract and add; a chunk already forged with the same text is not sent again
  {PROG} accept {DEFAULT_OUTPUT}
  {PROG} status docs/           new, changed, unchanged and missing sources
  {PROG} stale --retract        take down the beliefs of changed or missing sources

""" + sc.RUN_EXIT_CODES


# --- the parsers ---------------------------------------------------------------------
def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATHS", help="files and folders to read")
    mode = p.add_argument_group("mode")
    mode.add_argument("--auto", action="store_true", help="add the valid premises to the graph")
    mode.add_argument("--dry-run", action="store_true",
                      help="show the sources, chunks and the first prompt; call no model")
    mode.add_argument("--max-rounds", type=positive_int, default=None, metavar="N",
                      help="forge at most N chunks in this run (the rest stay pending)")
    mode.add_argument("-o", "--output", metavar="FILE", default=None,
                      help=f"proposals file, without --auto (default {DEFAULT_OUTPUT})")
    parallel_flag(mode)
    source_flags(p)


def _accept_arguments(p: argparse.ArgumentParser) -> None:
    root_flag(p)
    premise_check_flags(p)


def _status_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATHS", help="folders to look for new files in")
    root_flag(p)
    filter_flags(p)


def _stale_arguments(p: argparse.ArgumentParser) -> None:
    root_flag(p)
    p.add_argument("--retract", action="store_true",
                   help="re-pin what moved, retract what is gone, restore what stands again")
    p.add_argument("--missing", action="store_true",
                   help="with --retract: retract the beliefs of missing files too")
    p.add_argument("--yes", action="store_true",
                   help=f"with --retract: go ahead when more than {SOURCES_OUT_LIMIT} beliefs "
                        "would go OUT (without it, the what-if is shown and nothing written)")


def check_run_args(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if not args.dry_run and not args.model:
        p.error("--model is required (or --dry-run to see the chunks and the first prompt)")
    if args.output is not None and args.auto:
        p.error("-o/--output is for runs without --auto")


# --- the wiring ----------------------------------------------------------------------
def own_files(call: sc.StageCall, root: Path, output: str | None = None,
              report_dir: str = "reports") -> tuple[str, ...]:
    """What forge itself writes under `root` (the proposals file, the reports folder), left
    out of what its reader walks, so a later run does not read them."""
    from engine.forge.roots import own_files

    return own_files(root, call.folder, (output or DEFAULT_OUTPUT, False), (report_dir, True))


def _reader(call: sc.StageCall, root: Path, options: SourceOptions | None = None
            ) -> SourceReader:
    from engine.sources.reader import SourceOptions

    return call.parts.reader(root, options or SourceOptions(exclude=own_files(call, root)))


def stage_factory(call: sc.StageCall, reader: SourceReader, embedder: Embedder | None, *,
                  prompt: PromptOptions | None = None, tags: tuple[str, ...] = ()
                  ) -> Callable[[list[PlannedChunk]], ForgeStage]:
    """The ForgeStage of a plan's pending chunks, as the flags configure it."""
    from engine.clock import now_iso
    from engine.forge.prompt import PromptOptions
    from engine.forge.stage import ForgeSettings, ForgeStage
    from engine.forge.validate import ForgeRules

    a = call.args
    settings = ForgeSettings(prompt or PromptOptions(), ForgeRules(a.max_claim_chars, a.similar),
                             tags)
    return lambda plan: ForgeStage(plan, reader, now_iso, settings, embedder)


def _embedder(call: sc.StageCall) -> Embedder | None:
    return None if call.args.no_embeddings else call.parts.optional_embedder()


# --- the commands --------------------------------------------------------------------
def print_dry_run(call: sc.StageCall, scan: Scan, plan: Plan, first_prompt: str) -> None:
    call.say(f"{len(scan.sources)} source(s), {plan.chunks} chunk(s), {len(plan.pending)} not "
             f"forged yet; {len(plan.new)} new, {len(plan.changed)} changed",
             *(f"skipped {s.path}: {s.reason}" for s in scan.skipped))
    for p in plan.pending:
        c = p.chunk
        title = f", {shorten(c.title, 50)}" if c.title else ""
        call.say(f"chunk {c.path}:{c.start}-{c.end} ({c.kind}{title})")
    if plan.pending:
        call.say("\n--- the first prompt ---")
        call.write(first_prompt)


def cmd_forge(call: sc.StageCall) -> int:
    from engine.forge.prompt import PromptOptions
    from engine.forge.roots import record_root, run_root
    from engine.forge.run import ForgeRunOptions, forge, plan_forge
    from engine.stages.calls import CallPolicy

    a, store = call.args, call.context.store
    binding = None if a.dry_run else call.parts.model(model_spec(a))  # fail before any work
    root = run_root(store, a.root, a.paths, call.folder)
    reader = _reader(call, root, source_options(
        a, own=own_files(call, root, a.output, a.report_dir)))
    scan = reader.scan(a.paths)
    for note in scan.notes:
        call.note(f"note: {note}")
    embedder = _embedder(call)
    make_stage = stage_factory(call, reader, embedder,
                               prompt=PromptOptions(a.max_premises, a.domain), tags=a.tags)
    if binding is None:
        plan = plan_forge(store, scan)
        first = make_stage(list(plan.pending)).read_round(store, 1).prompt.text \
            if plan.pending else ""
        print_dry_run(call, scan, plan, first)
        return 0
    output = None if a.auto else Path(a.output or DEFAULT_OUTPUT)
    result = forge(store, scan, make_stage, binding.model_for_round, ForgeRunOptions(
        model=a.model, auto=a.auto, max_rounds=a.max_rounds,
        calls=CallPolicy(timeout=a.timeout, is_transient=binding.is_transient), output=output,
        accept_command=call.command(f"accept {output}") if output else "",
        parallel=a.parallel, umask=call.context.umask,
        params=sc.run_params(a, embeddings=embedder.model_name if embedder else None)),
        report_file=sc.report_file(call, "forge"), progress=sc.progress(call),
        cost=binding.cost)
    if a.auto:
        recorded = record_root(store, root)
        if recorded:
            call.note(f"note: this run's root {root} is not the memory's root {recorded}: "
                      f"`sources` reads files under {recorded} (`{call.program()} init --root "
                      "DIR` moves it)")
    if not a.json:
        for r in result.reconciled:
            call.say(f"changed {r.path}: {len(r.kept)} premise(s) kept (re-pinned), "
                     f"{len(r.restored)} restored, {len(r.retracted)} retracted")
        g, plan_counts = result.report.grounding(), result.report.plan
        call.say(f"{plan_counts['sources']} source(s), {plan_counts['chunks']} chunk(s), "
                 f"{plan_counts['pending']} to forge; {g['proposed']} premise(s) proposed, "
                 f"{g['not_grounded']} not grounded")
    return sc.print_run(call, result)


def accept_stage(call: sc.StageCall) -> ForgeStage:
    """A ForgeStage with no chunks: it checks a file's premises (each quote grounded again in
    its source as it is now) and adds them; their paths are read under --root, else the
    memory's recorded root (where a run under it read them), else the current folder."""
    root = accept_root(call)
    return stage_factory(call, _reader(call, root), _embedder(call))([])


def accept_root(call: sc.StageCall) -> Path:
    from engine.forge.roots import read_root

    return read_root(call.context.store, call.args.root, call.folder)


def cmd_status(call: sc.StageCall) -> int:
    from engine.forge.roots import read_root
    from engine.sources.reader import SourceOptions
    from engine.sources.staleness import source_states

    a = call.args
    root = read_root(call.context.store, a.root, call.folder, a.paths)
    reader = _reader(call, root, SourceOptions(tuple(a.include),
                                               tuple(a.exclude) + own_files(call, root)))
    states = source_states(call.context.store, reader, a.paths)
    if call.as_json:
        return call.print_json([s.as_dict() for s in states])
    if not states:
        call.say("no sources forged yet")
        return 0
    counts = {k: sum(1 for s in states if s.status == k)
              for k in ("new", "changed", "unchanged", "missing")}
    call.say(table([(s.status, s.path, s.size if s.size is not None else "") for s in states],
                   ("status", "path", "bytes")),
             ", ".join(f"{v} {k}" for k, v in counts.items()))
    return 0


def cmd_stale(call: sc.StageCall) -> int:
    from engine.cli.sources import print_retraction
    from engine.clock import now_iso
    from engine.errors import InvalidInput
    from engine.forge.roots import read_root
    from engine.sources.staleness import stale_beliefs
    from engine.sources.status import retract_stale_sourced

    a, store = call.args, call.context.store
    if (a.missing or a.yes) and not a.retract:
        raise InvalidInput("--missing and --yes go with --retract", field="retract")
    reader = _reader(call, read_root(store, a.root, call.folder))
    if a.retract:
        return print_retraction(call, retract_stale_sourced(
            store, reader, at=now_iso(), missing=a.missing, yes=a.yes),
            call.command("stale --retract"))
    stale = stale_beliefs(store, reader)
    if call.as_json:
        return call.print_json({"stale": [s.as_dict() for s in stale]})
    if not stale:
        call.say("no stale beliefs: every forged belief's lines read as pinned")
        return 0
    call.say(table([(s.id, s.truth, f"{s.path} ({s.state})", s.now) for s in stale],
                   ("belief", "truth", "source", "now")),
             f"{len(stale)} stale belief(s); `{call.command('stale --retract')}` re-pins what "
             "moved and retracts what is gone (`--missing` also a missing file's)")
    return 0


COMMAND = sc.StageCommand(
    PROG, sc.usage(PROG, "PATHS... --model SPEC [options]", "PATHS... --dry-run",
                   "accept FILE | status [PATHS...] | stale [--retract] | gaps"),
    "Read source files, cut them into chunks by structure, and ask a chat model for premises "
    "each grounded in a quote of its chunk; write them to a file, or add them (--auto).",
    RUN_EXAMPLES, default_output=DEFAULT_OUTPUT, mode_flags=False,
    add_arguments=add_arguments, check=check_run_args, run=cmd_forge,
    subcommands={
        "accept": sc.accept_subcommand(
            PROG, "Validate the premises in FILE (a proposals file, perhaps edited; each quote "
                  "is grounded again in its source as it is now) and add the valid ones in one "
                  "transaction, recorded as a forge run.", f"{DEFAULT_OUTPUT} --json",
            accept_stage, add_arguments=_accept_arguments,
            params=lambda call: {"similar": call.args.similar,
                                 "root": str(accept_root(call))}),
        "status": sc.Subcommand(lambda: sc.subcommand_parser(
            PROG, "status", "Hash every forged source again: unchanged, changed or missing; "
                            "with PATHS, also the files there not forged yet (new).",
            f"example:\n  {PROG} status docs/ src/ --json\n", _status_arguments,
            json_help="print the sources as JSON"), cmd_status),
        "stale": sc.Subcommand(lambda: sc.subcommand_parser(
            PROG, "stale", "The forged beliefs whose own lines or quote no longer read as "
                           "pinned (moved or gone), or whose file is missing; --retract re-pins "
                           "what moved, retracts what is gone (reason `source changed: <path>`) "
                           "and restores what stands again, in one transaction; a missing "
                           "file's beliefs only with --missing.",
            f"examples:\n  {PROG} stale\n  {PROG} stale --retract --json\n"
            f"  {PROG} stale --retract --missing --yes\n", _stale_arguments), cmd_stale),
        "gaps": sc.gaps_subcommand(PROG)})


def main(argv: Sequence[str] | None = None, *, prog: str = PROG, context: Context | None = None,
         parts: StageParts | None = None) -> int:
    return sc.stage_main(COMMAND, argv, prog, context=context, parts=parts)
