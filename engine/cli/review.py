"""`python -m engine.review`: ask a chat model to judge the justifications of the derived
beliefs that are due for review, and `python -m engine.review accept FILE` to apply a
verdicts file later.

A thin skin over the shared stage machinery (engine/stages/, engine/cli/stage_cli.py): the
StageCommand below, the review flags and the ReviewStage they configure.
Exit codes: 0 ok, 1 a run that ended in error, 2 bad input or usage.
"""
from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from engine.cli import stage_cli as sc
from engine.errors import InvalidInput
from engine.model import check_id

PROG = "python -m engine.review"
DEFAULT_OUTPUT = "proposed-review.md"

USAGE = (f"{PROG} --model SPEC [options]\n       {PROG} --dry-run [options]\n"
         f"       {PROG} accept FILE [options]")
DESCRIPTION = ("Ask a chat model to judge each justification of the derived beliefs due for "
               "review; write the verdicts to a file, or apply them (--auto): an unsound "
               "justification gets a defeater in its outlist.")


RUN_EXAMPLES = f"""\
examples:
  {PROG} --dry-run --budget 20
      print the prompt round 1 would send; no model is called
  {PROG} --model ollama:qwen3:8b
      one round; the verdicts go to {DEFAULT_OUTPUT}; nothing is written to the network
  {PROG} accept {DEFAULT_OUTPUT}
      apply a verdicts file (see: {PROG} accept --help)
  {PROG} --model anthropic:claude-sonnet-4-5 --auto --exhaust
      review everything due, shallowest first, applying as it goes

exit codes: 0 ok; 1 the run ended in error (the model failed after its tries; nothing of
that round was applied); 2 bad input or usage, or the store cannot be reached.
"""
ACCEPT_EXAMPLES = f"""\
example:
  {PROG} accept {DEFAULT_OUTPUT} --apply-suggestions --json
"""


def id_list(text: str) -> tuple[str, ...]:
    ids = tuple(dict.fromkeys(i.strip() for i in text.split(",") if i.strip()))
    if not ids:
        raise argparse.ArgumentTypeError("give belief ids separated by commas")
    try:
        for i in ids:
            check_id(i)
    except InvalidInput as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return ids


def _suggestion_flag(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    p.add_argument("--apply-suggestions", action="store_true",
                   help="apply suggested narrowings and ALL->ANY splits (the original is kept, "
                        "defeated with reason `superseded by review`)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    what = p.add_argument_group("what to review")
    what.add_argument("--budget", type=sc.positive_int, default=20, metavar="N",
                      help="beliefs per round (default 20)")
    what.add_argument("--ids", type=id_list, default=(), metavar="A,B",
                      help="review only these IN derived beliefs (those without a current "
                           "review; with --all, each of them), none waiting for another")
    what.add_argument("--min-depth", type=sc.non_negative_int, default=0, metavar="D",
                      help="only beliefs at depth D or deeper")
    what.add_argument("--all", dest="review_all", action="store_true",
                      help="review again what already has a current review")
    what.add_argument("--domain", metavar="TEXT", help="tell the model what the network is about")
    _suggestion_flag(what)


def make_stage(args: argparse.Namespace, wiring: Any = None) -> Any:
    from engine.review.stage import ReviewSettings, ReviewStage

    return ReviewStage(ReviewSettings(
        budget=getattr(args, "budget", 20), ids=tuple(getattr(args, "ids", ())),
        min_depth=getattr(args, "min_depth", 0), review_all=getattr(args, "review_all", False),
        apply_suggestions=args.apply_suggestions, domain=getattr(args, "domain", None)))


def cmd_review(args: argparse.Namespace, wiring: sc.Wiring) -> int:
    stage = make_stage(args)
    return sc.run_rounds(COMMAND, "review", args, wiring, lambda store: stage,
                         nothing_due="nothing is due for review")


COMMAND = sc.StageCommand(
    PROG, USAGE, DESCRIPTION, RUN_EXAMPLES,
    default_output=DEFAULT_OUTPUT, add_arguments=add_arguments,
    run=cmd_review,
    subcommands={"accept": sc.accept_subcommand(
        PROG, "Check the verdicts in FILE (a verdicts file, perhaps edited) against the "
              "network and apply them in one transaction, recorded as a review run.",
        ACCEPT_EXAMPLES, make_stage, add_arguments=_suggestion_flag,
        params=lambda args: {"apply_suggestions": args.apply_suggestions},
        file_help="a verdicts file")})


def main(argv: Sequence[str] | None = None, *, wiring: sc.Wiring | None = None) -> int:
    return sc.stage_main(COMMAND, argv, wiring or sc.Wiring())
