"""`python -m engine.forge`: premises from source files, each grounded in a quote
(`forge PATHS`), `accept FILE`, and the staleness commands `status` and `stale`.

A thin skin: parse the flags, wire the store, the source reader, the embedder and the model in
(lazily), call one library function (engine.forge.*), render the result.
Exit codes: 0 ok, 1 a run that ended in error, 2 bad input or usage.
"""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.cli.stage_cli import (ModelBinding, StageCommand, Subcommand, Wiring, accept_parser,
                                  subcommand_parser,
                                  add_model_flags, add_parallel_flag, stage_main,
                                  add_output_flags, positive_int, print_accept,
                                  print_run, progress_for, report_file, run_params, share)
from engine.cli.support import print_json, shorten, table
from engine.stages.calls import CallPolicy
from engine.store import Store

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

exit codes: 0 ok; 1 the run ended in error (nothing of that round was applied); 2 bad input
or usage, or the store cannot be reached.
"""



def root_of(args: argparse.Namespace) -> Path:
    """--root; without it the current folder, unless a path given lies outside it: then the
    common folder of the paths given (so `forge /elsewhere/docs` works from anywhere)."""
    if getattr(args, "root", None):
        return Path(args.root).resolve()
    here = Path.cwd().resolve()
    given = [Path(p).resolve() for p in getattr(args, "paths", None) or ()]
    if all(p.is_relative_to(here) for p in given):
        return here
    return Path(os.path.commonpath([p if p.is_dir() else p.parent for p in given]))


def own_files(args: argparse.Namespace) -> tuple[str, ...]:
    """Gitignore patterns for what forge itself writes under the root (the proposals file,
    the reports folder), so a later run does not read them as sources."""
    root = root_of(args)
    out = []
    for path, folder in ((getattr(args, "output", None) or DEFAULT_OUTPUT, False),
                         (getattr(args, "report_dir", None) or "reports", True)):
        try:
            rel = Path(path).resolve().relative_to(root).as_posix()
        except ValueError:
            continue
        out.append("/" + rel + ("/" if folder else ""))
    return tuple(out)


def make_reader(args: argparse.Namespace):
    from adapters.sources.reader import FileSourceReader
    from adapters.sources.walk import Filters

    exclude = tuple(getattr(args, "exclude", None) or ()) + own_files(args)
    return FileSourceReader(
        root_of(args), Filters(tuple(getattr(args, "include", None) or ()), exclude,
                                 gitignore=not getattr(args, "no_gitignore", False)),
        max_bytes=getattr(args, "max_bytes", 2_000_000),
        chunk_tokens=getattr(args, "chunk_tokens", 600))


def make_embedder(args: argparse.Namespace):
    """all-MiniLM-L6-v2 when the embeddings extra is installed (nearest beliefs in the prompt,
    the --similar rule); None with --no-embeddings or without the extra."""
    if getattr(args, "no_embeddings", False):
        return None
    import importlib.util

    if importlib.util.find_spec("sentence_transformers") is None:
        return None
    from adapters.embeddings import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder()


# --- the parsers ---------------------------------------------------------------------
def _root_flag(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    p.add_argument("--root", default=None, metavar="DIR",
                   help="source paths are stored relative to DIR (default: the current folder, "
                        "or the common folder of PATHS when one lies outside it)")


def _check_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("validation")
    g.add_argument("--similar", type=share, default=0.92, metavar="C",
                   help="skip a premise whose claim has cosine similarity >= C to an existing "
                        "belief (a likely duplicate; default 0.92; needs embeddings)")
    g.add_argument("--max-claim-chars", type=positive_int, default=300, metavar="N",
                   help="skip a claim longer than N characters (default 300)")
    g.add_argument("--no-embeddings", action="store_true",
                   help="no nearest beliefs in the prompt and no --similar rule")


def source_flags(p: argparse.ArgumentParser) -> None:
    """The flags that say which files are read, how they are cut, and how premises are
    checked (forge and the pipeline)."""
    src = p.add_argument_group("sources")
    _root_flag(src)
    src.add_argument("--include", action="append", metavar="GLOB",
                     help="only files matching this gitignore-style glob (repeatable)")
    src.add_argument("--exclude", action="append", metavar="GLOB",
                     help="never files matching this glob (repeatable)")
    src.add_argument("--no-gitignore", action="store_true", help="ignore .gitignore files")
    src.add_argument("--tags", type=_access_tags, metavar="TAGS",
                     help="access tags every premise forged from these sources carries "
                          "(comma-separated, e.g. hr,finance)")
    src.add_argument("--max-bytes", type=positive_int, default=2_000_000, metavar="N",
                     help="skip files larger than N bytes (default 2000000)")
    src.add_argument("--chunk-tokens", type=positive_int, default=600, metavar="N",
                     help="chunk budget in tokens, about 4 characters each (default 600)")
    prompt = p.add_argument_group("forge prompt")
    prompt.add_argument("--max-premises", type=positive_int, default=6, metavar="N",
                        help="at most N premises per chunk (default 6)")
    prompt.add_argument("--domain", metavar="TEXT", help="tell the model what the files are about")
    _check_flags(p)


def build_run_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        usage=f"{PROG} PATHS... --model SPEC [options]\n       {PROG} PATHS... --dry-run\n"
              f"       {PROG} accept FILE | status [PATHS...] | stale [--retract]",
        description="Read source files, cut them into chunks by structure, and ask a chat "
                    "model for premises each grounded in a quote of its chunk; write them to "
                    "a file, or add them (--auto).",
        epilog=RUN_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False)
    p.add_argument("paths", nargs="+", metavar="PATHS", help="files and folders to read")
    add_model_flags(p)
    mode = p.add_argument_group("mode")
    mode.add_argument("--auto", action="store_true", help="add the valid premises to the graph")
    mode.add_argument("--dry-run", action="store_true",
                      help="show the sources, chunks and the first prompt; call no model")
    mode.add_argument("--max-rounds", type=positive_int, default=None, metavar="N",
                      help="forge at most N chunks in this run (the rest stay pending)")
    mode.add_argument("-o", "--output", metavar="FILE", default=None,
                      help=f"proposals file, without --auto (default {DEFAULT_OUTPUT})")
    add_parallel_flag(mode)
    source_flags(p)
    add_output_flags(p)
    return p


def build_accept_parser() -> argparse.ArgumentParser:
    p = accept_parser(PROG, "Validate the premises in FILE (a proposals file, perhaps edited; "
                            "each quote is grounded again in its source as it is now) and add "
                            "the valid ones in one transaction, recorded as a forge run.",
                      f"example:\n  {PROG} accept {DEFAULT_OUTPUT} --json\n")
    _root_flag(p)
    _check_flags(p)
    return p


def _status_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATHS", help="folders to look for new files in")
    _root_flag(p)
    p.add_argument("--include", action="append", metavar="GLOB", help="as for forge")
    p.add_argument("--exclude", action="append", metavar="GLOB", help="as for forge")


def build_status_parser() -> argparse.ArgumentParser:
    return subcommand_parser(
        PROG, "status", "Hash every forged source again: unchanged, changed or missing; with "
                        "PATHS, also the files there not forged yet (new).",
        f"example:\n  {PROG} status docs/ src/ --json\n", _status_arguments,
        json_help="print the sources as JSON")


def _stale_arguments(p: argparse.ArgumentParser) -> None:
    _root_flag(p)
    p.add_argument("--retract", action="store_true", help="retract the stale beliefs")


def build_stale_parser() -> argparse.ArgumentParser:
    return subcommand_parser(
        PROG, "stale", "The beliefs drawn from changed or missing sources, with what happened "
                       "to each quote; --retract retracts them in one transaction (reason "
                       "`source changed: <path>`) and what rested on them goes OUT.",
        f"examples:\n  {PROG} stale\n  {PROG} stale --retract --json\n", _stale_arguments)


def check_run_args(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if not args.dry_run and not args.model:
        p.error("--model is required (or --dry-run to see the chunks and the first prompt)")
    if args.output is not None and args.auto:
        p.error("-o/--output is for runs without --auto")


def _access_tags(text: str) -> tuple[str, ...]:
    from engine.access import parse_tags
    from engine.errors import InvalidInput

    try:
        return parse_tags(text, field="tags")
    except InvalidInput as e:
        raise argparse.ArgumentTypeError(str(e)) from None


# --- the commands --------------------------------------------------------------------
def _settings(args: argparse.Namespace):
    from engine.forge.prompt import PromptOptions
    from engine.forge.stage import ForgeSettings
    from engine.forge.validate import ForgeRules

    return ForgeSettings(PromptOptions(getattr(args, "max_premises", 6),
                                       getattr(args, "domain", None)),
                         ForgeRules(args.max_claim_chars, args.similar),
                         getattr(args, "tags", None) or ())


def stage_factory(args: argparse.Namespace, reader, embedder):
    from engine.forge.stage import ForgeStage
    from engine.stages.run import iso_utc, utc_now

    settings = _settings(args)
    return lambda plan: ForgeStage(plan, reader, lambda: iso_utc(utc_now()), settings, embedder)


def forge_options(args: argparse.Namespace, binding: ModelBinding, embedder):
    from engine.forge.run import ForgeRunOptions

    return ForgeRunOptions(
        model=args.model, auto=args.auto, max_rounds=args.max_rounds,
        calls=CallPolicy(timeout=args.timeout, is_transient=binding.is_transient),
        output=None if args.auto else Path(args.output or DEFAULT_OUTPUT),
        accept_command=f"{PROG} accept", parallel=args.parallel,
        params=run_params(args, embeddings=getattr(embedder, "model_name", None)))


def print_dry_run(store: Store, scan, make_stage) -> None:
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


def cmd_forge(args: argparse.Namespace, wiring: Wiring) -> int:
    from engine.forge.run import forge

    binding = None if args.dry_run else wiring.build_model(args)  # fail before any work
    reader = (wiring.make_reader or make_reader)(args)
    scan = reader.scan(args.paths)
    for note in scan.notes:
        print(f"note: {note}", file=wiring.err())
    embedder = (wiring.make_embedder or make_embedder)(args)
    make_stage = stage_factory(args, reader, embedder)
    with wiring.open_store() as store:
        if args.dry_run:
            print_dry_run(store, scan, make_stage)
            return 0
        assert binding is not None  # made for every run but a dry one
        result = forge(store, scan, make_stage, binding.model_for_round,
                       forge_options(args, binding, embedder),
                       report_file=report_file(args, "forge"),
                       progress=progress_for(args, wiring), cost=binding.cost)
    if not args.json:
        for r in result.reconciled:
            print(f"changed {r.path}: {len(r.kept)} premise(s) kept (re-pinned), "
                  f"{len(r.restored)} restored, {len(r.retracted)} retracted")
        g, plan = result.report.grounding(), result.report.plan
        print(f"{plan['sources']} source(s), {plan['chunks']} chunk(s), {plan['pending']} to "
              f"forge; {g['proposed']} premise(s) proposed, {g['not_grounded']} not grounded")
    return print_run(result, args, wiring, PROG)


def cmd_accept(args: argparse.Namespace, wiring: Wiring) -> int:
    from engine.stages.accept import accept

    reader = (wiring.make_reader or make_reader)(args)
    make_stage = stage_factory(args, reader, (wiring.make_embedder or make_embedder)(args))
    with wiring.open_store() as store:
        result = accept(store, make_stage([]), Path(args.file),
                        params={"similar": args.similar, "root": str(root_of(args))})
    return print_accept(result, args)


def cmd_status(args: argparse.Namespace, wiring: Wiring) -> int:
    from engine.forge.staleness import source_states

    reader = (wiring.make_reader or make_reader)(args)
    with wiring.open_store() as store:
        states = source_states(store, reader, args.paths)
    if args.json:
        print_json([s.as_dict() for s in states])
        return 0
    if not states:
        print("no sources forged yet")
        return 0
    print(table([(s.status, s.path, s.size if s.size is not None else "") for s in states],
                ("status", "path", "bytes")))
    counts = {k: sum(1 for s in states if s.status == k)
              for k in ("new", "changed", "unchanged", "missing")}
    print(", ".join(f"{v} {k}" for k, v in counts.items()))
    return 0


def cmd_stale(args: argparse.Namespace, wiring: Wiring) -> int:
    from engine.forge.staleness import retract_stale, stale_beliefs
    from engine.model import Change
    from engine.stages.run import iso_utc, utc_now

    reader = (wiring.make_reader or make_reader)(args)
    with wiring.open_store() as store:
        if args.retract:
            stale, change = retract_stale(store, reader, at=iso_utc(utc_now()))
        else:
            stale, change = stale_beliefs(store, reader), Change()
    if args.json:
        out: dict[str, Any] = {"stale": [s.as_dict() for s in stale]}
        if args.retract:
            out["change"] = change.as_dict()
        print_json(out)
        return 0
    if not stale:
        print("no stale beliefs: every forged source is unchanged")
        return 0
    print(table([(s.id, s.truth, f"{s.path} ({s.source_status})", s.now) for s in stale],
                ("belief", "truth", "source", "now")))
    if args.retract:
        print(f"retracted {len(stale)} belief(s); went OUT: {len(change.went_out)}"
              + (f" ({', '.join(change.went_out[:20])}"
                 f"{' ...' if len(change.went_out) > 20 else ''})"
                 if change.went_out else ""))
    else:
        print(f"{len(stale)} stale belief(s); `{PROG} stale --retract` takes them down")
    return 0


def gaps_subcommand(prog: str) -> Subcommand:
    """The premises repair's research said the network lacks: what forge might look for."""
    from engine.cli.repair import gaps_subcommand as listing

    return listing(prog)


COMMAND = StageCommand(build_run_parser, lambda args, wiring: cmd_forge(args, wiring),
                       check=lambda p, args: check_run_args(p, args), subcommands={
                           "accept": Subcommand(build_accept_parser, cmd_accept),
                           "status": Subcommand(build_status_parser, cmd_status),
                           "stale": Subcommand(build_stale_parser, cmd_stale),
                           "gaps": gaps_subcommand(PROG)})


def main(argv: Sequence[str] | None = None, *, wiring: Wiring | None = None) -> int:
    return stage_main(COMMAND, argv, wiring or Wiring())
