"""`python -m engine.repair`: ask a chat model to repair the justifications review (or a
person's challenge) defeated: link a missing premise, soften the claim, abandon it, or
record the premise to research; `accept FILE` applies a repairs file later; `gaps` lists
what research recorded.

A thin skin over the shared stage machinery (engine/stages/, engine/cli/stage_cli.py).
Exit codes: 0 ok, 1 a run that ended in error, 2 bad input or usage.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import cast

from engine.cli.stage_cli import (
    StageCommand,
    Subcommand,
    Wiring,
    accept_parser,
    add_mode_flags,
    add_model_flags,
    add_output_flags,
    non_negative_int,
    positive_int,
    print_accept,
    print_run,
    progress_for,
    report_file,
    run_options,
    run_params,
    stage_main,
    subcommand_parser,
)
from engine.cli.support import print_json, table

PROG = "python -m engine.repair"
DEFAULT_OUTPUT = "proposed-repairs.md"

RUN_EXAMPLES = f"""\
examples:
  {PROG} --dry-run
      print the prompt round 1 would send; no model is called
  {PROG} --model ollama:qwen3:8b
      one round; the repairs go to {DEFAULT_OUTPUT}; nothing is written to the network
  {PROG} accept {DEFAULT_OUTPUT}
      apply a repairs file (see: {PROG} accept --help)
  {PROG} --model anthropic:claude-sonnet-4-5 --exhaust
      repair everything defeated, most depended-on first, applying as it goes
  {PROG} gaps
      the premises research said the network lacks

exit codes: 0 ok; 1 the run ended in error (the model failed after its tries; nothing of
that round was applied); 2 bad input or usage, or the store cannot be reached.
"""
ACCEPT_EXAMPLES = f"""\
example:
  {PROG} accept {DEFAULT_OUTPUT} --json
"""
GAPS_EXAMPLES = """\
example:
  {prog} gaps --limit 20
"""


def build_run_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        usage=f"{PROG} --model SPEC [options]\n       {PROG} --dry-run [options]\n"
              f"       {PROG} accept FILE [options]\n       {PROG} gaps [options]",
        description="Ask a chat model what to do with each justification review or a "
                    "challenge defeated: link the beliefs that supply what was missing, "
                    "soften the claim, abandon it, or record the premise to research; write "
                    "the repairs to a file, or apply them (--auto).",
        epilog=RUN_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False)
    add_model_flags(p)
    add_mode_flags(p, DEFAULT_OUTPUT)
    what = p.add_argument_group("what to show")
    what.add_argument("--budget", type=positive_int, default=10, metavar="N",
                      help="defeated justifications per round (default 10)")
    what.add_argument("--bridges", type=non_negative_int, default=5, metavar="K",
                      help="candidate bridges shown per justification (default 5)")
    what.add_argument("--no-embeddings", action="store_true",
                      help="find candidate bridges by their words only (else by meaning too, "
                           "when the embeddings extra is installed)")
    what.add_argument("--domain", metavar="TEXT", help="tell the model what the network is about")
    add_output_flags(p)
    return p


def build_accept_parser() -> argparse.ArgumentParser:
    return accept_parser(PROG, "Check the repairs in FILE (a repairs file, perhaps edited) "
                               "against the network and apply them in one transaction, "
                               "recorded as a repair run.", ACCEPT_EXAMPLES, "a repairs file")


def make_stage(args: argparse.Namespace, embedder=None):
    from engine.repair.stage import RepairSettings, RepairStage

    return RepairStage(RepairSettings(budget=getattr(args, "budget", 10),
                                      bridges=getattr(args, "bridges", 5),
                                      domain=getattr(args, "domain", None)), embedder=embedder)


def _embedder(args: argparse.Namespace, wiring: Wiring):
    if getattr(args, "no_embeddings", False):
        return None
    if wiring.make_embedder is not None:
        return wiring.make_embedder(args)
    from engine.cli.forge import make_embedder

    return make_embedder(args)


def cmd_repair(args: argparse.Namespace, wiring: Wiring) -> int:
    from engine.stages.run import run_stage

    binding = None if args.dry_run else wiring.build_model(args)  # fail before any work
    stage = make_stage(args, _embedder(args, wiring))
    with wiring.open_store() as store:
        if args.dry_run:
            shown = stage.read_round(store, 1)
            if shown.empty:
                print("nothing defeated is waiting for repair", file=wiring.err())
                return 0
            sys.stdout.write(shown.prompt.text)
            return 0
        options = run_options(args, binding, default_output=DEFAULT_OUTPUT,
                              accept_command=f"{PROG} accept", params=run_params(args))
        assert binding is not None  # made for every run but a dry one
        result = run_stage(store, stage, binding.model_for_round, options,
                           report_file=report_file(args, "repair"),
                           progress=progress_for(args, wiring), cost=binding.cost)
    return print_run(result, args, wiring, PROG)


def cmd_accept(args: argparse.Namespace, wiring: Wiring) -> int:
    from engine.stages.accept import accept

    with wiring.open_store() as store:
        result = accept(store, make_stage(args), Path(args.file))
    return print_accept(result, args)


def gaps_subcommand(prog: str) -> Subcommand:
    """`<prog> gaps [--limit N] [--json]`: the gaps research recorded (repair and forge)."""
    def build() -> argparse.ArgumentParser:
        return subcommand_parser(
            prog, "gaps", "List the premises repair's research said the network lacks, "
                          "newest first, with the belief each is for and its label.",
            GAPS_EXAMPLES.format(prog=prog),
            lambda p: p.add_argument("--limit", type=positive_int, default=50, metavar="N",
                                     help="at most N gaps (default 50)"))

    def run(args: argparse.Namespace, wiring: Wiring) -> int:
        from engine.repair.records import RepairTx

        with wiring.open_store() as store:
            gaps, total = store.read(lambda tx: cast(RepairTx, tx).gaps(args.limit))
        if args.json:
            print_json({"total": total, "gaps": [g.as_dict() for g in gaps]})
            return 0
        if not gaps:
            print("no gaps recorded")
            return 0
        print(table([(g.for_belief, g.justification, g.truth, g.text, g.at) for g in gaps],
                    ("for", "justification", "truth", "gap", "at")))
        print(f"{len(gaps)} of {total} gap(s)")
        return 0

    return Subcommand(build, run)


COMMAND = StageCommand(build_run_parser, lambda args, wiring: cmd_repair(args, wiring),
                       subcommands={"accept": Subcommand(build_accept_parser, cmd_accept),
                                    "gaps": gaps_subcommand(PROG)})


def main(argv: Sequence[str] | None = None, *, wiring: Wiring | None = None) -> int:
    return stage_main(COMMAND, argv, wiring or Wiring())
