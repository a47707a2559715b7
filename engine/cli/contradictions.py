"""`python -m engine.contradictions`: pairs of beliefs that cannot both hold become nogoods.

Candidate pairs: close in meaning (the neighbour search of engine/pairs/source.py at a lower
threshold than dedup's) or resting on a common antecedent. The flags become a
ContradictionOptions and a Near (engine/contradictions/stage.py, engine/pairs/source.py).
"""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from engine.cli import stage_cli as sc
from engine.cli.arguments import arg
from engine.cli.stage_flags import candidate_flags, positive_int
from engine.contradictions.stage import DEFAULT_BATCH, DEFAULT_MAX_SIBLINGS, DEFAULT_THRESHOLD

if TYPE_CHECKING:
    from engine.graph import GraphTx
    from engine.stages.stage import LoopStage

PROG = "python -m engine.contradictions"
DEFAULT_OUTPUT = "proposed-contradictions.md"

EXAMPLES = f"""\
examples:
  {PROG} --model ollama:qwen3:8b
      one round of pairs; the verdicts go to {DEFAULT_OUTPUT} for review
  {PROG} --model anthropic:claude-sonnet-4-5 --auto --exhaust
      every candidate pair, round after round; contradictions become nogoods at once
  {PROG} accept {DEFAULT_OUTPUT}
      record the nogoods of a verdicts file

""" + sc.RUN_EXIT_CODES


ARGUMENTS = (
    candidate_flags(threshold=DEFAULT_THRESHOLD, what="close in meaning"),
    arg("--no-meaning", action="store_true",
        help="only pairs that share an antecedent (no neighbour search)"),
    arg("--no-siblings", action="store_true",
        help="only pairs close in meaning (not those sharing an antecedent)"),
    arg("--max-siblings", type=positive_int, default=DEFAULT_MAX_SIBLINGS, metavar="N",
        help="pair the beliefs resting on one antecedent only when there are at most N "
             f"(default {DEFAULT_MAX_SIBLINGS})"),
    arg("--between", nargs="+", metavar="NAME", default=[],
        help="only pairs across namespaces: NAME against ours, or NAME NAME2"),
    arg("--batch", type=positive_int, default=DEFAULT_BATCH, metavar="N",
        help=f"pairs per round (default {DEFAULT_BATCH})"))


def run_stage(call: sc.StageCall) -> LoopStage[GraphTx]:
    from engine.contradictions.stage import ContradictionOptions, ContradictionsStage, PairSource
    from engine.pairs.source import Near

    a = call.args
    options = ContradictionOptions(a.batch, a.max_siblings, not a.no_siblings, a.domain or "",
                                   tuple(a.between))
    meaning = None
    if not a.no_meaning:
        near = Near(a.threshold, a.k, a.by_id, by_meaning=DEFAULT_THRESHOLD).check()
        meaning = call.candidates(near, "contradictions")
    return ContradictionsStage(options, PairSource(meaning, options))


def accept_stage(call: sc.StageCall) -> LoopStage[GraphTx]:
    from engine.contradictions.stage import ContradictionOptions, ContradictionsStage, PairSource

    options = ContradictionOptions()
    return ContradictionsStage(options, PairSource(None, options))


def _check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.no_meaning and args.no_siblings:
        parser.error("--no-meaning and --no-siblings leave no candidate pairs")
    sc.check_mode_args(parser, args)


COMMAND = sc.StageCommand(
    PROG, sc.usage(PROG, "--model SPEC [options]", "accept FILE"),
    "Ask a model which pairs of close or sibling beliefs cannot both hold, and record those "
    "as nogoods (the least entrenched assumption goes OUT).", EXAMPLES,
    default_output=DEFAULT_OUTPUT, add_arguments=ARGUMENTS, check=_check,
    rounds=sc.Rounds(run_stage),
    subcommands={"accept": sc.accept_subcommand(
        PROG, "Validate the verdicts in FILE and record its contradictions as nogoods, in one "
              "transaction.", DEFAULT_OUTPUT, accept_stage)})


main = sc.entry(COMMAND)
