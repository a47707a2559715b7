"""`python -m engine.negatives`: ask a chat model which beliefs state a problem (a bug, a
risk, a limitation, a gap, debt, an open issue), so `python -m engine list --negative` lists
them and derive's GATE proposals find them (ftl-reasons' `list-negative`); and
`python -m engine.negatives accept FILE` to apply a verdicts file later.

The flags become a NegativeSettings (engine/negatives/stage.py); the run and accept are the
shared ones. Exit codes: 0 ok, 1 a run that ended in error, 2 bad input or usage.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from engine.cli import stage_cli as sc
from engine.cli.arguments import arg, group
from engine.cli.stage_flags import budget_flag, domain_flag, id_list

if TYPE_CHECKING:
    from engine.graph import GraphTx
    from engine.stages.stage import LoopStage

PROG = "python -m engine.negatives"
DEFAULT_OUTPUT = "proposed-negatives.md"


ARGUMENTS = group(
    "what to classify", budget_flag(40, "beliefs"),
    arg("--ids", type=id_list, default=(), metavar="A,B", help="only these IN beliefs"),
    arg("--every", action="store_true",
        help="send every IN belief without a verdict, not only those whose text has a word "
             "that often marks a problem (fail, risk, missing, ...)"),
    arg("--all", dest="redo", action="store_true",
        help="judge again what has a verdict on its text as it is"),
    domain_flag())


def run_stage(call: sc.StageCall) -> LoopStage[GraphTx]:
    from engine.negatives.stage import NegativeSettings, NegativesStage

    a = call.args
    return NegativesStage(NegativeSettings(a.budget, a.ids, a.every, a.redo, a.domain))


def accept_stage(call: sc.StageCall) -> LoopStage[GraphTx]:
    from engine.negatives.stage import NegativesStage

    return NegativesStage()


def _not_due(details: Mapping[str, object]) -> str:
    return (f"nothing is due ({details.get('in', 0)} IN beliefs: {details.get('current', 0)} "
            f"with a verdict on their text, {details.get('no_problem_word', 0)} without a "
            "problem word; --every sends those too)")


COMMAND = sc.StageCommand(
    PROG, sc.usage(PROG, "--model SPEC [options]", "--dry-run [options]",
                   "accept FILE [options]"),
    "Ask a chat model which IN beliefs state a problem (bug, risk, limitation, gap, debt, open "
    "issue); write the verdicts to a file, or keep them (--auto): `list --negative` lists the "
    "negative ones and derive offers them to GATE proposals.",
    sc.run_examples(PROG, DEFAULT_OUTPUT, "verdicts", "keep the verdicts of a file",
                    ("--model anthropic:claude-sonnet-4-5 --auto --exhaust --every",
                     "judge every IN belief without a verdict, not only those with a problem "
                     "word")),
    default_output=DEFAULT_OUTPUT, add_arguments=ARGUMENTS,
    rounds=sc.Rounds(run_stage, _not_due),
    subcommands={"accept": sc.accept_subcommand(
        PROG, "Check the verdicts in FILE (a verdicts file, perhaps edited) against the "
              "network and keep them in one transaction, recorded as a negatives run.",
        f"{DEFAULT_OUTPUT} --json", accept_stage, file_help="a verdicts file")})


main = sc.entry(COMMAND)
