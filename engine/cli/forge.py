"""`python -m engine.forge`: premises from source files, each grounded in a quote
(`forge PATHS`), `accept FILE`, and the staleness commands `status` and `stale`.

The flags become a ForgeSettings and a ForgeRunOptions (engine/forge/), the files read a
SourceOptions under the root engine/forge/roots.py chooses; the reader, the embedder and
the model are wired in (engine/wiring/). Exit codes: 0 ok, 1 a run that ended in error, 2
bad input or usage.
"""
from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from engine.cli import stage_cli as sc
from engine.cli.command import shorten, table
from engine.cli.arguments import arg, group
from engine.cli.stage_flags import filter_flags, model_spec, parallel_flag, positive_int
from engine.cli.stage_flags import premise_check_flags, root_flag, source_flags, source_options
from engine.defaults import SOURCES_OUT_LIMIT
from engine.sources.reader import SourceOptions

if TYPE_CHECKING:
    from engine.forge.prompt import PromptOptions
    from engine.forge.run import Plan
    from engine.forge.stage import ForgeSettings, ForgeStage
    from engine.sources.reader import Scan
    from engine.wiring.forge import ForgeFiles

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
ARGUMENTS = (
    arg("paths", nargs="+", metavar="PATHS", help="files and folders to read"),
    group("mode", arg("--auto", action="store_true", help="add the valid premises to the graph"),
          arg("--dry-run", action="store_true",
              help="show the sources, chunks and the first prompt; call no model"),
          arg("--max-rounds", type=positive_int, default=None, metavar="N",
              help="forge at most N chunks in this run (the rest stay pending)"),
          arg("-o", "--output", metavar="FILE", default=None,
              help=f"proposals file, without --auto (default {DEFAULT_OUTPUT})"),
          parallel_flag),
    source_flags)
STATUS_ARGUMENTS = (
    arg("paths", nargs="*", metavar="PATHS", help="folders to look for new files in"),
    root_flag(), filter_flags())
STALE_ARGUMENTS = (
    root_flag(),
    arg("--retract", action="store_true",
        help="re-pin what moved, retract what is gone, restore what stands again"),
    arg("--missing", action="store_true",
        help="with --retract: retract the beliefs of missing files too"),
    arg("--yes", action="store_true",
        help=f"with --retract: go ahead when more than {SOURCES_OUT_LIMIT} beliefs would go "
             "OUT (without it, the what-if is shown and nothing written)"))


def check_run_args(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if not args.dry_run and not args.model:
        p.error("--model is required (or --dry-run to see the chunks and the first prompt)")
    if args.output is not None and args.auto:
        p.error("-o/--output is for runs without --auto")


# --- the commands --------------------------------------------------------------------
def _files(call: sc.StageCall, paths: Sequence[str] = (),
           sources: SourceOptions | None = None) -> ForgeFiles:
    """Where accept, status and stale read (forge_files), as --root says."""
    from engine.wiring.forge import forge_files

    return forge_files(call.context.store, call.parts, call.folder, root=call.args.root,
                       paths=paths, sources=sources or SourceOptions())


def _settings(args: argparse.Namespace, prompt: PromptOptions | None = None,
              tags: tuple[str, ...] = ()) -> ForgeSettings:
    from engine.forge.prompt import PromptOptions
    from engine.forge.stage import ForgeSettings
    from engine.forge.validate import ForgeRules

    return ForgeSettings(prompt or PromptOptions(), ForgeRules(args.max_claim_chars,
                                                               args.similar), tags)


def print_dry_run(call: sc.StageCall, scan: Scan, plan: Plan, first_prompt: str) -> None:
    call.say(f"{len(scan.sources)} source(s), {plan.chunks} chunk(s), {len(plan.pending)} not "
             f"forged yet; {len(plan.new)} new, {len(plan.changed)} changed",
             *(f"skipped {s.path}: {s.reason}" for s in scan.skipped),
             *(f"chunk {c.path}:{c.start}-{c.end} ({c.kind}"
               + (f", {shorten(c.title, 50)}" if c.title else "") + ")"
               for c in (p.chunk for p in plan.pending)))
    if plan.pending:
        call.say("\n--- the first prompt ---")
        call.write(first_prompt)


def cmd_forge(call: sc.StageCall) -> int:
    from engine.forge.prompt import PromptOptions
    from engine.forge.roots import record_root
    from engine.forge.run import ForgeRunOptions, forge, plan_forge
    from engine.stages.calls import CallPolicy
    from engine.wiring.forge import forge_files, forge_stages

    a, store = call.args, call.context.store
    binding = None if a.dry_run else call.parts.model(model_spec(a))  # fail before any work
    files = forge_files(store, call.parts, call.folder, root=a.root, paths=a.paths, run=True,
                        sources=source_options(a), output=a.output, report_dir=a.report_dir)
    scan = files.reader.scan(a.paths)
    for note in scan.notes:
        call.note(f"note: {note}")
    embedder = None if a.no_embeddings else call.parts.optional_embedder()
    make_stage = forge_stages(files.reader, _settings(a, PromptOptions(a.max_premises,
                                                                       a.domain), a.tags),
                              embedder)
    if binding is None:
        plan = plan_forge(store, scan)
        print_dry_run(call, scan, plan, make_stage(list(plan.pending)).read_round(
            store, 1).prompt.text if plan.pending else "")
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
    recorded = record_root(store, files.root) if a.auto else ""
    if recorded:
        call.note(f"note: this run's root {files.root} is not the memory's root {recorded}: "
                  f"`sources` reads files under {recorded} (`{call.program()} init --root DIR` "
                  "moves it)")
    if not a.json:
        call.say(*(f"changed {r.path}: {len(r.kept)} premise(s) kept (re-pinned), "
                   f"{len(r.restored)} restored, {len(r.retracted)} retracted"
                   for r in result.reconciled))
        g, counts = result.report.grounding(), result.report.plan
        call.say(f"{counts['sources']} source(s), {counts['chunks']} chunk(s), "
                 f"{counts['pending']} to forge; {g['proposed']} premise(s) proposed, "
                 f"{g['not_grounded']} not grounded")
    return sc.print_run(call, result)


def accept_stage(call: sc.StageCall) -> ForgeStage:
    """A ForgeStage with no chunks: it checks a file's premises (each quote grounded again in
    its source as it is now) and adds them; their paths are read under --root, else the
    memory's recorded root (where a run under it read them), else the current folder."""
    from engine.wiring.forge import forge_stages

    embedder = None if call.args.no_embeddings else call.parts.optional_embedder()
    return forge_stages(_files(call).reader, _settings(call.args), embedder)([])


def cmd_status(call: sc.StageCall) -> int:
    from engine.sources.staleness import source_states

    a = call.args
    files = _files(call, a.paths, SourceOptions(tuple(a.include), tuple(a.exclude)))
    states = source_states(call.context.store, files.reader, a.paths)
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
    from engine.sources.staleness import stale_beliefs
    from engine.sources.status import retract_stale_sourced

    a, store = call.args, call.context.store
    if (a.missing or a.yes) and not a.retract:
        raise InvalidInput("--missing and --yes go with --retract", field="retract")
    reader = _files(call).reader
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
    RUN_EXAMPLES,
    add_arguments=ARGUMENTS, check=check_run_args, run=cmd_forge,
    subcommands={
        "accept": sc.accept_subcommand(
            PROG, "Validate the premises in FILE (a proposals file, perhaps edited; each quote "
                  "is grounded again in its source as it is now) and add the valid ones in one "
                  "transaction, recorded as a forge run.", f"{DEFAULT_OUTPUT} --json",
            accept_stage, add_arguments=(root_flag(), premise_check_flags),
            params=lambda call: {"similar": call.args.similar,
                                 "root": str(_files(call).root)}),
        "status": sc.Subcommand(lambda: sc.subcommand_parser(
            PROG, "status", "Hash every forged source again: unchanged, changed or missing; "
                            "with PATHS, also the files there not forged yet (new).",
            f"example:\n  {PROG} status docs/ src/ --json\n", STATUS_ARGUMENTS,
            json_help="print the sources as JSON"), cmd_status),
        "stale": sc.Subcommand(lambda: sc.subcommand_parser(
            PROG, "stale", "The forged beliefs whose own lines or quote no longer read as "
                           "pinned (moved or gone), or whose file is missing; --retract re-pins "
                           "what moved, retracts what is gone (reason `source changed: <path>`) "
                           "and restores what stands again, in one transaction; a missing "
                           "file's beliefs only with --missing.",
            f"examples:\n  {PROG} stale\n  {PROG} stale --retract --json\n"
            f"  {PROG} stale --retract --missing --yes\n", STALE_ARGUMENTS), cmd_stale),
        "gaps": sc.gaps_subcommand(PROG)})


main = sc.entry(COMMAND)
