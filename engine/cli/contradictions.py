"""`python -m engine.contradictions`: pairs of beliefs that cannot both hold become nogoods.

    python -m engine.contradictions --model M            verdicts -> proposed-contradictions.md
    python -m engine.contradictions --model M --auto     record the nogoods now
    python -m engine.contradictions accept FILE

Candidate pairs: close in meaning (dedup's neighbour search at a lower threshold) or resting
on a common antecedent. A thin skin over engine.contradictions and engine.stages: the
StageCommand below and the contradictions flags.
"""
from __future__ import annotations

import argparse
from collections.abc import Sequence

from engine.cli import stage_cli as sc
from engine.contradictions.stage import (
    DEFAULT_BATCH,
    DEFAULT_MAX_SIBLINGS,
    DEFAULT_THRESHOLD,
    ContradictionOptions,
    ContradictionsStage,
    PairSource,
)
from engine.dedup.stage import DedupOptions

PROG = "python -m engine.contradictions"
DEFAULT_OUTPUT = "proposed-contradictions.md"

USAGE = sc.usage(PROG, "--model SPEC [options]", "accept FILE")
DESCRIPTION = ("Ask a model which pairs of close or sibling beliefs cannot both hold, and "
               "record those as nogoods (the least entrenched assumption goes OUT).")


EXAMPLES = f"""\
examples:
  {PROG} --model ollama:qwen3:8b
      one round of pairs; the verdicts go to {DEFAULT_OUTPUT} for review
  {PROG} --model anthropic:claude-sonnet-4-5 --auto --exhaust
      every candidate pair, round after round; contradictions become nogoods at once
  {PROG} accept {DEFAULT_OUTPUT}
      record the nogoods of a verdicts file

""" + sc.RUN_EXIT_CODES


def add_arguments(p: argparse.ArgumentParser) -> None:
    sc.add_candidate_flags(p, threshold=DEFAULT_THRESHOLD, what="close in meaning")
    p.add_argument("--no-meaning", action="store_true",
                   help="only pairs that share an antecedent (no neighbour search)")
    p.add_argument("--no-siblings", action="store_true",
                   help="only pairs close in meaning (not those sharing an antecedent)")
    p.add_argument("--max-siblings", type=sc.positive_int, default=DEFAULT_MAX_SIBLINGS,
                   metavar="N", help="pair the beliefs resting on one antecedent only when "
                                     f"there are at most N (default {DEFAULT_MAX_SIBLINGS})")
    p.add_argument("--between", nargs="+", metavar="NAME",
                   help="only pairs across namespaces: NAME against ours, or NAME NAME2")
    p.add_argument("--batch", type=sc.positive_int, default=DEFAULT_BATCH, metavar="N",
                   help=f"pairs per round (default {DEFAULT_BATCH})")


def make_stage(args: argparse.Namespace, wiring: sc.Wiring) -> ContradictionsStage:
    options = ContradictionOptions(batch=args.batch, max_siblings=args.max_siblings,
                                   siblings=not args.no_siblings, domain=args.domain or "",
                                   between=tuple(args.between or ()))
    meaning = None
    if not args.no_meaning:
        near = DedupOptions(threshold=args.threshold if args.threshold is not None
                            else (None if args.by_id else DEFAULT_THRESHOLD),
                            k=args.k, by_id=args.by_id).check()
        meaning = sc.candidate_source(args, near, wiring, stage_name="contradictions")
    return ContradictionsStage(options, PairSource(meaning, options))


def accept_stage(args: argparse.Namespace, wiring: sc.Wiring) -> ContradictionsStage:
    options = ContradictionOptions()
    return ContradictionsStage(options, PairSource(None, options))


def cmd_run(args: argparse.Namespace, wiring: sc.Wiring) -> int:
    return sc.run_rounds(COMMAND, "contradictions", args, wiring,
                         lambda store: make_stage(args, wiring))


def _check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.no_meaning and args.no_siblings:
        parser.error("--no-meaning and --no-siblings leave no candidate pairs")
    sc.check_mode_args(parser, args)


COMMAND = sc.StageCommand(
    PROG, USAGE, DESCRIPTION, EXAMPLES,
    default_output=DEFAULT_OUTPUT, add_arguments=add_arguments, check=_check,
    run=lambda args, wiring: cmd_run(args, wiring),
    subcommands={"accept": sc.accept_subcommand(
        PROG, "Validate the verdicts in FILE and record its contradictions as nogoods, in one "
              "transaction.", f"example:\n  {PROG} accept {DEFAULT_OUTPUT}", accept_stage)})


def main(argv: Sequence[str] | None = None, *, wiring: sc.Wiring | None = None,
         prog: str = PROG) -> int:
    return sc.stage_main(COMMAND, argv, wiring or sc.Wiring(), prog)
