"""`python -m engine.repair`: ask a chat model to repair the justifications review (or a
person's challenge) defeated: link a missing premise, soften the claim, abandon it, or
record the premise to research; `accept FILE` applies a repairs file later; `gaps` lists
what research recorded.

A thin skin over the shared stage machinery (engine/stages/, engine/cli/stage_cli.py): the
StageCommand below, the repair flags and the RepairStage they configure.
Exit codes: 0 ok, 1 a run that ended in error, 2 bad input or usage.
"""
from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from engine.cli import stage_cli as sc

PROG = "python -m engine.repair"
DEFAULT_OUTPUT = "proposed-repairs.md"

USAGE = sc.usage(PROG, "--model SPEC [options]", "--dry-run [options]",
                 "accept FILE [options]", "gaps [options]")
DESCRIPTION = ("Ask a chat model what to do with each justification review or a challenge "
               "defeated: link the beliefs that supply what was missing, soften the claim, "
               "abandon it, or record the premise to research; write the repairs to a file, "
               "or apply them (--auto).")

RUN_EXAMPLES = sc.run_examples(
    PROG, DEFAULT_OUTPUT, "repairs", "apply a repairs file",
    ("--model anthropic:claude-sonnet-4-5 --exhaust",
     "repair everything defeated, most depended-on first, applying as it goes"),
    ("gaps", "the premises research said the network lacks"))
ACCEPT_EXAMPLES = sc.accept_examples(PROG, DEFAULT_OUTPUT)


def add_arguments(p: argparse.ArgumentParser) -> None:
    what = p.add_argument_group("what to show")
    sc.budget_flag(what, 10, "defeated justifications")
    what.add_argument("--bridges", type=sc.non_negative_int, default=5, metavar="K",
                      help="candidate bridges shown per justification (default 5)")
    what.add_argument("--no-embeddings", action="store_true",
                      help="find candidate bridges by their words only (else by meaning too, "
                           "when the embeddings extra is installed)")
    sc.domain_flag(what)


def make_stage(args: argparse.Namespace, embedder: Any = None) -> Any:
    from engine.repair.stage import RepairSettings, RepairStage

    return RepairStage(RepairSettings(budget=getattr(args, "budget", 10),
                                      bridges=getattr(args, "bridges", 5),
                                      domain=getattr(args, "domain", None)), embedder=embedder)


def _embedder(args: argparse.Namespace, wiring: sc.Wiring) -> Any:
    if getattr(args, "no_embeddings", False):
        return None
    return (wiring.make_embedder or sc.make_embedder)(args)


COMMAND = sc.StageCommand(
    PROG, USAGE, DESCRIPTION, RUN_EXAMPLES,
    default_output=DEFAULT_OUTPUT, add_arguments=add_arguments,
    rounds=sc.Rounds("repair", lambda args, wiring: make_stage(args, _embedder(args, wiring)),
                     "nothing defeated is waiting for repair"),
    dry_rounds_help=sc.TURNS_DRY_ROUNDS_HELP,
    # No --parallel: a link or a soften changes what later rounds show (bridges that came IN,
    # justifications rewired to a reworded belief), so each round must see the last.
    parallel=False,
    subcommands={
        "accept": sc.accept_subcommand(
            PROG, "Check the repairs in FILE (a repairs file, perhaps edited) against the "
                  "network and apply them in one transaction, recorded as a repair run.",
            ACCEPT_EXAMPLES, lambda args, wiring: make_stage(args), file_help="a repairs file"),
        "gaps": sc.gaps_subcommand(PROG)})


def main(argv: Sequence[str] | None = None, *, wiring: sc.Wiring | None = None,
         prog: str = PROG) -> int:
    return sc.stage_main(COMMAND, argv, wiring or sc.Wiring(), prog)
