"""`python -m engine.repair`: ask a chat model to repair the justifications review (or a
person's challenge) defeated: link a missing premise, soften the claim, abandon it, or
record the premise to research; `accept FILE` applies a repairs file later; `gaps` lists
what research recorded.

The flags become a RepairSettings (engine/repair/stage.py); the embedder that finds bridges
by meaning is wired in when installed. Exit codes: 0 ok, 1 a run that ended in error, 2 bad
input or usage.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from engine.cli import stage_cli as sc
from engine.cli.arguments import arg, group
from engine.cli.stage_flags import budget_flag, domain_flag, whole

if TYPE_CHECKING:
    from engine.graph import GraphTx
    from engine.stages.stage import LoopStage

PROG = "python -m engine.repair"
DEFAULT_OUTPUT = "proposed-repairs.md"


ARGUMENTS = group(
    "what to show", budget_flag(10, "defeated justifications"),
    arg("--bridges", type=whole, default=5, metavar="K",
        help="candidate bridges shown per justification (default 5)"),
    arg("--no-embeddings", action="store_true",
        help="find candidate bridges by their words only (else by meaning too, when the "
             "embeddings extra is installed)"),
    domain_flag())


def run_stage(call: sc.StageCall) -> LoopStage[GraphTx]:
    from engine.repair.stage import RepairSettings, RepairStage

    a = call.args
    return RepairStage(RepairSettings(a.budget, a.bridges, a.domain),
                       embedder=None if a.no_embeddings else call.parts.optional_embedder())


def accept_stage(call: sc.StageCall) -> LoopStage[GraphTx]:
    from engine.repair.stage import RepairStage

    return RepairStage()


COMMAND = sc.StageCommand(
    PROG, sc.usage(PROG, "--model SPEC [options]", "--dry-run [options]",
                   "accept FILE [options]", "gaps [options]"),
    "Ask a chat model what to do with each justification review or a challenge defeated: "
    "link the beliefs that supply what was missing, soften the claim, abandon it, or record "
    "the premise to research; write the repairs to a file, or apply them (--auto).",
    sc.run_examples(PROG, DEFAULT_OUTPUT, "repairs", "apply a repairs file",
                    ("--model anthropic:claude-sonnet-4-5 --exhaust",
                     "repair everything defeated, most depended-on first, applying as it goes"),
                    ("gaps", "the premises research said the network lacks")),
    default_output=DEFAULT_OUTPUT, add_arguments=ARGUMENTS,
    rounds=sc.Rounds(run_stage, "nothing defeated is waiting for repair"),
    dry_rounds_help=sc.TURNS_DRY_ROUNDS_HELP,
    # No --parallel: a link or a soften changes what later rounds show (bridges that came IN,
    # justifications rewired to a reworded belief), so each round must see the last.
    parallel=False,
    subcommands={
        "accept": sc.accept_subcommand(
            PROG, "Check the repairs in FILE (a repairs file, perhaps edited) against the "
                  "network and apply them in one transaction, recorded as a repair run.",
            f"{DEFAULT_OUTPUT} --json", accept_stage, file_help="a repairs file"),
        "gaps": sc.gaps_subcommand(PROG)})


main = sc.entry(COMMAND)
