"""`python -m engine.dedup`: near-duplicate beliefs merged, contradictions made nogoods.

    python -m engine.dedup --candidates        list the candidate clusters (no model)
    python -m engine.dedup --model M           verdicts -> proposed-dedup.md
    python -m engine.dedup accept FILE         apply a verdicts file
    python -m engine.dedup --model M --auto --exhaust
    python -m engine.dedup undo ID             restore a merged belief

The flags become a DedupOptions (engine/dedup/stage.py) and its neighbour search
(engine/pairs/source.py); the run and accept are the shared ones (engine/stages/).
"""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from engine.cli import stage_cli as sc
from engine.cli.command import table
from engine.cli.stage_flags import candidate_flags, positive_int
from engine.dedup.stage import DEFAULT_BATCH, DEFAULT_MAX_CLUSTER, DEFAULT_THRESHOLD

if TYPE_CHECKING:
    from engine.dedup.stage import DedupOptions
    from engine.stages.stage import LoopStage

PROG = "python -m engine.dedup"
DEFAULT_OUTPUT = "proposed-dedup.md"

EXAMPLES = f"""\
examples:
  {PROG} --candidates
      list the candidate clusters; no model is called, no verdict is written
  {PROG} --model ollama:qwen3:8b
      one round of verdicts, written to {DEFAULT_OUTPUT} for review
  {PROG} accept {DEFAULT_OUTPUT}
      apply a verdicts file (merges, nogoods, recorded differences)
  {PROG} --model anthropic:claude-sonnet-4-5 --auto --exhaust
      judge every candidate cluster, round after round, and apply the verdicts
  {PROG} undo auth-jwt-check
      restore a merged belief and every justification edge the merge moved

""" + sc.RUN_EXIT_CODES


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--candidates", action="store_true",
                   help="list the candidate clusters and stop (no model, no verdicts)")
    candidate_flags(p, threshold=DEFAULT_THRESHOLD, what="near-duplicates")
    p.add_argument("--max-cluster", type=positive_int, default=DEFAULT_MAX_CLUSTER,
                   metavar="N", help=f"largest cluster (default {DEFAULT_MAX_CLUSTER})")
    p.add_argument("--batch", type=positive_int, default=DEFAULT_BATCH, metavar="N",
                   help=f"clusters per round (default {DEFAULT_BATCH})")


def dedup_options(args: argparse.Namespace) -> DedupOptions:
    from engine.dedup.stage import DedupOptions

    return DedupOptions(threshold=args.threshold, k=args.k, max_cluster=args.max_cluster,
                        by_id=args.by_id, batch=args.batch, domain=args.domain or "").check()


def cmd_candidates(call: sc.StageCall) -> int:
    from engine.dedup.stage import find_clusters

    options = dedup_options(call.args)
    clusters, _ = find_clusters(call.context.store, call.candidates(options, "dedup"),
                                options.max_cluster)
    if call.as_json:
        return call.print_json({"threshold": options.cutoff, "clusters": [
            {"members": list(c.members), "score": round(c.score, 4)} for c in clusters]})
    if clusters:
        call.say(table([(n, f"{c.score:.3f}", ", ".join(c.members))
                        for n, c in enumerate(clusters, 1)], ["cluster", "weakest", "members"]))
    call.say(f"{len(clusters)} candidate clusters at {options.cutoff:g} "
             f"({'id-token Jaccard' if options.by_id else 'cosine'})")
    return 0


def cmd_run(call: sc.StageCall) -> int:
    from engine.dedup.stage import DedupStage

    options = dedup_options(call.args)  # bad options fail before the model is built
    return sc.run_rounds(
        call, COMMAND, lambda call: DedupStage(options, call.candidates(options, "dedup")),
        params=sc.run_params(call.args, threshold=options.cutoff))


def cmd_undo(call: sc.StageCall) -> int:
    from engine.dedup.merge import undo

    change = undo(call.context.store, call.args.id)
    if call.as_json:
        return call.print_json(change.as_dict())
    call.say(f"restored {call.args.id}", *(f"IN   {bid}" for bid in change.went_in),
             *(f"OUT  {bid}" for bid in change.went_out))
    return 0


def _check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if not args.candidates:
        sc.check_mode_args(parser, args)


def _accept_stage(call: sc.StageCall) -> LoopStage:
    from engine.dedup.stage import DedupOptions, DedupStage
    from engine.pairs.source import CandidateSource

    return DedupStage(DedupOptions(), CandidateSource(DedupOptions()))


COMMAND = sc.StageCommand(
    PROG, sc.usage(PROG, "--candidates [options]", "--model SPEC [options]", "accept FILE",
                   "undo ID"),
    "Find beliefs that state the same claim; ask a model whether each cluster is the SAME "
    "claim, DIFFERENT claims, or a CONTRADICTION; merge duplicates and record nogoods.",
    EXAMPLES, default_output=DEFAULT_OUTPUT, add_arguments=add_arguments, check=_check,
    run=lambda call: (cmd_candidates if call.args.candidates else cmd_run)(call),
    subcommands={
        "accept": sc.accept_subcommand(
            PROG, "Validate the verdicts in FILE (a proposals file, perhaps edited) and apply "
                  "them in one transaction.", DEFAULT_OUTPUT, _accept_stage),
        "undo": sc.Subcommand(
            lambda: sc.subcommand_parser(
                PROG, "undo", "Restore a belief merged as a duplicate, and every antecedent "
                              "and outlist edge the merge moved.",
                f"example:\n  {PROG} undo auth-jwt-check",
                lambda p: p.add_argument("id", metavar="ID")),
            cmd_undo)})


main = sc.entry(COMMAND)
