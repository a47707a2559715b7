"""`python -m engine.review`: ask a chat model to judge the justifications of the derived
beliefs that are due for review (with `--premises`, the premises against their sources),
and `python -m engine.review accept FILE` to apply a verdicts file later.

The flags become a ReviewSettings (engine/review/stage.py) or, with --premises or on a
premise verdicts file, a PremiseSettings and a source reader (engine/review_premises/);
the run and accept are the shared ones (engine/stages/). Exit codes: 0 ok, 1 a run that
ended in error, 2 bad input or usage.
"""
from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from engine.cli import stage_cli as sc
from engine.cli.arguments import arg, group
from engine.cli.stage_flags import budget_flag, domain_flag, id_list, positive_int, root_flag
from engine.cli.stage_flags import whole
from engine.review.due import DEPENDENCY, ORDERS

if TYPE_CHECKING:
    from engine.graph import GraphTx
    from engine.stages.stage import LoopStage

PROG = "python -m engine.review"
DEFAULT_OUTPUT = "proposed-review.md"

RUN_EXAMPLES = sc.run_examples(
    PROG, DEFAULT_OUTPUT, "verdicts", "apply a verdicts file",
    ("--model anthropic:claude-sonnet-4-5 --auto --exhaust",
     "review everything due, shallowest first, applying as it goes"),
    ("--model ollama:qwen3:8b --auto --order impact --budget 10",
     "spend the round on the unreviewed beliefs the most others rest on"),
    ("--premises --root . --model ollama:qwen3:8b --auto",
     "check premises against the source lines they are pinned to, most depended-on first"),
    dry_run="--dry-run --budget 20")


ACCEPT_ARGUMENTS = (
    arg("--apply-suggestions", action="store_true",
        help="apply suggested narrowings and ALL->ANY splits (the original is kept, defeated "
             "with reason `superseded by review`)"),
    arg("--premises", action="store_true",
        help="check premises' claims against their pinned source lines instead (confirmed: "
             "verified and re-pinned; misread: retracted; partial: the narrower claim "
             "suggested)"),
    root_flag(".", "with --premises: source paths are relative to DIR (default: the current "
                   "folder)"),
    arg("--source-tokens", type=positive_int, default=1000, metavar="N",
        help="with --premises: source lines shown per premise, in tokens (default 1000; a "
             "chunk over it is split and said so)"))
ARGUMENTS = group(
    "what to review", budget_flag(20, "beliefs"),
    arg("--ids", type=id_list, default=(), metavar="A,B",
        help="review only these IN derived beliefs (those without a current review; with "
             "--all, each of them), none waiting for another"),
    arg("--min-depth", type=whole, metavar="D",
        help="only derived beliefs at depth D or deeper (default 0; not with --premises: a "
             "premise is at depth 0)"),
    arg("--all", dest="review_all", action="store_true",
        help="review again what already has a current review"),
    arg("--order", choices=ORDERS, default=None,
        help="which due derived beliefs a round takes first: dependency (default: shallowest "
             "first) or impact (the most load-bearing: those the most beliefs rest on, "
             "directly or through others; what waits on an unreviewed belief still waits)"),
    arg("--no-wait", dest="wait", action="store_false",
        help="review a belief whatever it rests on (by default a belief waits until the "
             "derived beliefs it rests on are reviewed)"),
    domain_flag(), *ACCEPT_ARGUMENTS)


def premise_stage(call: sc.StageCall, *, budget: int = 20, ids: tuple[str, ...] = (),
                  review_all: bool = False, domain: str | None = None) -> LoopStage[GraphTx]:
    from engine.review_premises.stage import PremiseReviewStage, PremiseSettings
    from engine.sources.reader import SourceOptions

    a = call.args
    return PremiseReviewStage(call.parts.reader(Path(a.root), SourceOptions()), PremiseSettings(
        budget, ids, review_all, a.apply_suggestions, domain, source_tokens=a.source_tokens))


def run_stage(call: sc.StageCall) -> LoopStage[GraphTx]:
    from engine.review.stage import ReviewSettings, ReviewStage

    a = call.args
    if a.premises:
        return premise_stage(call, budget=a.budget, ids=a.ids, review_all=a.review_all,
                             domain=a.domain)
    return ReviewStage(ReviewSettings(a.budget, a.ids, a.review_all, a.apply_suggestions,
                                      a.domain, a.min_depth or 0, a.wait,
                                      a.order or DEPENDENCY))


def accept_stage(call: sc.StageCall) -> LoopStage[GraphTx]:
    from engine.review.stage import ReviewSettings, ReviewStage
    from engine.review_premises.proposals_file import holds_premise_verdicts

    if call.args.premises or holds_premise_verdicts(Path(call.args.file)):
        return premise_stage(call)
    return ReviewStage(ReviewSettings(apply_suggestions=call.args.apply_suggestions))


def _not_due(details: Mapping[str, object]) -> str:
    """Nothing due; with --premises, why the premises that name a source are not, counted."""
    from engine.review_premises.due import DUE

    if details.get("mode") != "premises":
        return "nothing is due for review"
    skip = {"strategy", "mode", "due", "with_source", "split", DUE}
    counts = ", ".join(f"{k.replace('_', ' ')}: {v}" for k, v in details.items()
                       if k not in skip and v)
    return (f"nothing is due for review ({details.get('with_source', 0)} premises name a "
            f"source" + (f"; {counts}" if counts else "") + ")")


def check_args(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    from engine.errors import InvalidInput

    sc.check_mode_args(p, args)
    if args.premises and not args.wait:
        raise InvalidInput("--no-wait is for derived beliefs: no premise waits for another",
                           field="no_wait")
    if args.premises and args.order is not None:
        raise InvalidInput("--order is for derived beliefs: --premises checks premises most "
                           "depended-on first", field="order", value=args.order)
    if args.premises and args.min_depth is not None:
        raise InvalidInput("--min-depth is for derived beliefs: every premise is at depth 0 "
                           "(--premises checks premises most depended-on first)",
                           field="min_depth", value=str(args.min_depth))


COMMAND = sc.StageCommand(
    PROG, sc.usage(PROG, "--model SPEC [options]", "--dry-run [options]",
                   "accept FILE [options]"),
    "Ask a chat model to judge each justification of the derived beliefs due for review; "
    "write the verdicts to a file, or apply them (--auto): an unsound justification gets a "
    "defeater in its outlist.", RUN_EXAMPLES,
    default_output=DEFAULT_OUTPUT, add_arguments=ARGUMENTS,
    rounds=sc.Rounds(run_stage, _not_due), check=check_args,
    dry_rounds_help=sc.TURNS_DRY_ROUNDS_HELP,
    subcommands={"accept": sc.accept_subcommand(
        PROG, "Check the verdicts in FILE (a verdicts file, perhaps edited) against the "
              "network and apply them in one transaction, recorded as a review run.",
        f"{DEFAULT_OUTPUT} --apply-suggestions --json", accept_stage,
        add_arguments=ACCEPT_ARGUMENTS,
        params=lambda call: {"apply_suggestions": call.args.apply_suggestions},
        file_help="a verdicts file")})


main = sc.entry(COMMAND)
