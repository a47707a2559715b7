"""`python -m engine.forge`: premises from source files, each grounded in a quote
(`forge PATHS`), `accept FILE`, and the staleness commands `status` and `stale`.

A thin skin: the StageCommand below and forge's own flags; the source reader, the embedder
and the model are wired in lazily (engine/cli/stage_parts.py); one library call per command
(engine.forge.*), its result rendered.
Exit codes: 0 ok, 1 a run that ended in error, 2 bad input or usage.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.cli import stage_cli as sc
from engine.cli.stage_cli import FORGE_OUTPUT, make_embedder, make_reader, source_flags
from engine.cli.support import print_listing, shorten
from engine.errors import InvalidInput
from engine.sources.status import OUT_LIMIT
from engine.store import Store

# Re-exported: the source flags, reader and embedder live in engine/cli/stage_parts.py (the
# pipeline wires them too).
__all__ = ["main", "make_embedder", "make_reader", "own_files", "source_flags", "stage_factory"]
own_files = sc.forge_own_files
stage_factory = sc.forge_stage_factory

PROG = "python -m engine.forge"
DEFAULT_OUTPUT = FORGE_OUTPUT

USAGE = sc.usage(PROG, "PATHS... --model SPEC [options]", "PATHS... --dry-run",
                 "accept FILE | status [PATHS...] | stale [--retract] | gaps")
DESCRIPTION = ("Read source files, cut them into chunks by structure, and ask a chat model "
               "for premises each grounded in a quote of its chunk; write them to a file, or "
               "add them (--auto).")


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
    mode.add_argument("--max-rounds", type=sc.positive_int, default=None, metavar="N",
                      help="forge at most N chunks in this run (the rest stay pending)")
    mode.add_argument("-o", "--output", metavar="FILE", default=None,
                      help=f"proposals file, without --auto (default {DEFAULT_OUTPUT})")
    sc.add_parallel_flag(mode)
    source_flags(p)


def _accept_arguments(p: argparse.ArgumentParser) -> None:
    sc.root_flag(p)
    sc.premise_check_flags(p)


def _status_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATHS", help="folders to look for new files in")
    sc.root_flag(p)
    p.add_argument("--include", action="append", metavar="GLOB", help="as for forge")
    p.add_argument("--exclude", action="append", metavar="GLOB", help="as for forge")


def build_status_parser() -> argparse.ArgumentParser:
    return sc.subcommand_parser(
        PROG, "status", "Hash every forged source again: unchanged, changed or missing; with "
                        "PATHS, also the files there not forged yet (new).",
        f"example:\n  {PROG} status docs/ src/ --json\n", _status_arguments,
        json_help="print the sources as JSON")


def _stale_arguments(p: argparse.ArgumentParser) -> None:
    sc.root_flag(p)
    p.add_argument("--retract", action="store_true",
                   help="re-pin what moved, retract what is gone, restore what stands again")
    p.add_argument("--missing", action="store_true",
                   help="with --retract: retract the beliefs of missing files too")
    p.add_argument("--yes", action="store_true",
                   help=f"with --retract: go ahead when more than {OUT_LIMIT} beliefs would go "
                        "OUT (without it, the what-if is shown and nothing written)")


def build_stale_parser() -> argparse.ArgumentParser:
    return sc.subcommand_parser(
        PROG, "stale", "The forged beliefs whose own lines or quote no longer read as pinned "
                       "(moved or gone), or whose file is missing; --retract re-pins what "
                       "moved, retracts what is gone (reason `source changed: <path>`) and "
                       "restores what stands again, in one transaction; a missing file's "
                       "beliefs only with --missing.",
        f"examples:\n  {PROG} stale\n  {PROG} stale --retract --json\n"
        f"  {PROG} stale --retract --missing --yes\n", _stale_arguments)


def check_run_args(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if not args.dry_run and not args.model:
        p.error("--model is required (or --dry-run to see the chunks and the first prompt)")
    if args.output is not None and args.auto:
        p.error("-o/--output is for runs without --auto")


# --- the commands --------------------------------------------------------------------
def forge_options(args: argparse.Namespace, binding: sc.ModelBinding, embedder: Any) -> Any:
    from engine.forge.run import ForgeRunOptions
    from engine.stages.calls import CallPolicy

    return ForgeRunOptions(
        model=args.model, auto=args.auto, max_rounds=args.max_rounds,
        calls=CallPolicy(timeout=args.timeout, is_transient=binding.is_transient),
        output=None if args.auto else Path(args.output or DEFAULT_OUTPUT),
        accept_command=f"{PROG} accept", parallel=args.parallel,
        params=sc.run_params(args, embeddings=getattr(embedder, "model_name", None)))


def print_dry_run(store: Store, scan: Any, make_stage: Any) -> None:
    from engine.forge.run import plan_forge

    plan = plan_forge(store, scan)
    print(f"{len(scan.sources)} source(s), {plan.chunks} chunk(s), {len(plan.pending)} not "
          f"forged yet; {len(plan.new)} new, {len(plan.changed)} changed")
    for s in scan.skipped:
        print(f"skipped {s.path}: {s.reason}")
    for p in plan.pending:
        c = p.chunk
        title = f", {shorten(c.title, 50)}" if c.title else ""
        print(f"chunk {c.path}:{c.start}-{c.end} ({c.kind}{title})")
    if plan.pending:
        print("\n--- the first prompt ---")
        sys.stdout.write(make_stage(list(plan.pending)).read_round(store, 1).prompt.text)


def record_forge_root(store: Store, root: str) -> str:
    """A forge run that wrote is a sourced write: the first records its root (as `add
    --source` does); a root that is not the recorded one is said, not moved."""
    from engine.change_records import ChangeEntry

    recorded = store.read(lambda tx: tx.project_root())
    if not recorded:
        store.write(lambda tx: tx.save_project_root(root), ChangeEntry("init", {"root": root}))
        return ""
    if recorded != root:
        return (f"this run's root {root} is not the memory's root {recorded}: `sources` reads "
                f"files under {recorded} (`python -m engine init --root DIR` moves it)")
    return ""


def _run_root(args: argparse.Namespace, store: Any) -> None:
    """Without --root, the memory's recorded root when every path given lies under it, so a
    run from a subfolder (`cd docs && eem forge .`) pins paths as `sources` reads them;
    otherwise forge_root's choice (the current folder, or the paths' common folder)."""
    if getattr(args, "root", None):
        return
    recorded = store.read(lambda tx: tx.project_root())
    if not recorded:
        return
    here = Path.cwd()
    given = [Path(p).expanduser() for p in args.paths]
    if all((p if p.is_absolute() else here / p).resolve().is_relative_to(recorded)
           for p in given):
        args.root = recorded


def cmd_forge(args: argparse.Namespace, wiring: sc.Wiring) -> int:
    from engine.forge.run import forge

    binding = None if args.dry_run else wiring.build_model(args)  # fail before any work
    with wiring.open_store() as store:
        _run_root(args, store)
        reader = (wiring.make_reader or make_reader)(args)
        scan = reader.scan(args.paths)
        for note in scan.notes:
            print(f"note: {note}", file=wiring.err())
        embedder = (wiring.make_embedder or make_embedder)(args)
        make_stage = sc.forge_stage_factory(args, reader, embedder)
        if args.dry_run:
            print_dry_run(store, scan, make_stage)
            return 0
        assert binding is not None  # made for every run but a dry one
        result = forge(store, scan, make_stage, binding.model_for_round,
                       forge_options(args, binding, embedder),
                       report_file=sc.report_file(args, "forge"),
                       progress=sc.progress_for(args, wiring), cost=binding.cost)
        if args.auto:
            note = record_forge_root(store, str(sc.forge_root(args)))
            if note:
                print(f"note: {note}", file=wiring.err())
    if not args.json:
        for r in result.reconciled:
            print(f"changed {r.path}: {len(r.kept)} premise(s) kept (re-pinned), "
                  f"{len(r.restored)} restored, {len(r.retracted)} retracted")
        g, plan = result.report.grounding(), result.report.plan
        print(f"{plan['sources']} source(s), {plan['chunks']} chunk(s), {plan['pending']} to "
              f"forge; {g['proposed']} premise(s) proposed, {g['not_grounded']} not grounded")
    return sc.print_run(result, args, wiring, PROG)


def accept_stage(args: argparse.Namespace, wiring: sc.Wiring) -> Any:
    """A ForgeStage with no chunks: it checks a file's premises (each quote grounded again in
    its source as it is now) and adds them; their paths are read under --root, else the
    memory's recorded root (where a run under it read them), else the current folder."""
    if not getattr(args, "root", None):
        with wiring.open_store() as store:
            _recorded_root(args, store)
    reader = (wiring.make_reader or make_reader)(args)
    embedder = (wiring.make_embedder or make_embedder)(args)
    return sc.forge_stage_factory(args, reader, embedder)([])


def _recorded_root(args: argparse.Namespace, store: Any) -> None:
    """Without --root, the root the memory recorded (its first sourced write, or `init
    --root`), so status and stale answer the same from any folder."""
    if not getattr(args, "root", None):
        args.root = store.read(lambda tx: tx.project_root()) or None


def cmd_status(args: argparse.Namespace, wiring: sc.Wiring) -> int:
    from engine.sources.staleness import source_states

    with wiring.open_store() as store:
        _recorded_root(args, store)
        reader = (wiring.make_reader or make_reader)(args)
        states = source_states(store, reader, args.paths)
    if not print_listing(states, as_json=args.json, empty="no sources forged yet",
                         row=lambda s: (s.status, s.path, s.size if s.size is not None else ""),
                         headers=("status", "path", "bytes")):
        return 0
    counts = {k: sum(1 for s in states if s.status == k)
              for k in ("new", "changed", "unchanged", "missing")}
    print(", ".join(f"{v} {k}" for k, v in counts.items()))
    return 0


def cmd_stale(args: argparse.Namespace, wiring: sc.Wiring) -> int:
    from engine.cli.source_report import print_retraction
    from engine.clock import now_iso
    from engine.sources.staleness import stale_beliefs
    from engine.sources.status import retract_stale_sourced

    if (args.missing or args.yes) and not args.retract:
        raise InvalidInput("--missing and --yes go with --retract", field="retract")
    with wiring.open_store() as store:
        _recorded_root(args, store)
        reader = (wiring.make_reader or make_reader)(args)
        if args.retract:
            return print_retraction(
                retract_stale_sourced(store, reader, at=now_iso(), missing=args.missing,
                                      yes=args.yes), args, f"{PROG} stale --retract")
        stale = stale_beliefs(store, reader)
    if print_listing(stale, as_json=args.json, json_key="stale",
                     empty="no stale beliefs: every forged belief's lines read as pinned",
                     row=lambda s: (s.id, s.truth, f"{s.path} ({s.state})", s.now),
                     headers=("belief", "truth", "source", "now")):
        print(f"{len(stale)} stale belief(s); `{PROG} stale --retract` re-pins what moved and "
              f"retracts what is gone (`--missing` also a missing file's)")
    return 0


COMMAND = sc.StageCommand(
    PROG, USAGE, DESCRIPTION, RUN_EXAMPLES,
    default_output=DEFAULT_OUTPUT, mode_flags=False,
    add_arguments=add_arguments, check=check_run_args, run=cmd_forge,
    subcommands={
        "accept": sc.accept_subcommand(
            PROG, "Validate the premises in FILE (a proposals file, perhaps edited; each quote "
                  "is grounded again in its source as it is now) and add the valid ones in one "
                  "transaction, recorded as a forge run.",
            f"example:\n  {PROG} accept {DEFAULT_OUTPUT} --json\n", accept_stage,
            add_arguments=_accept_arguments,
            params=lambda args: {"similar": args.similar,
                                 "root": str(sc.forge_root(args))}),
        "status": sc.Subcommand(build_status_parser, cmd_status),
        "stale": sc.Subcommand(build_stale_parser, cmd_stale),
        "gaps": sc.gaps_subcommand(PROG)})


def main(argv: Sequence[str] | None = None, *, wiring: sc.Wiring | None = None,
         prog: str = PROG) -> int:
    return sc.stage_main(COMMAND, argv, wiring or sc.Wiring(), prog)
