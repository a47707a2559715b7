"""`python -m engine.dedup`: near-duplicate beliefs merged, contradictions made nogoods (the
forms: EXAMPLES). The flags become a DedupOptions (engine/dedup/stage.py) and its neighbour
search (engine/pairs/source.py); the run and accept are the shared ones (engine/stages/).
"""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from engine.cli import stage_cli as sc
from engine.cli.command import table
from engine.cli.arguments import arg
from engine.cli.stage_flags import candidate_flags, positive_int
from engine.dedup.auto import DEFAULT_AUTO_THRESHOLD
from engine.dedup.stage import DEFAULT_BATCH, DEFAULT_MAX_CLUSTER, DEFAULT_THRESHOLD

if TYPE_CHECKING:
    from engine.graph import GraphTx
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
  {PROG} --auto --threshold 0.97
      no model: what merging every cluster at cosine >= 0.97 would do (nothing written)
  {PROG} --auto --threshold 0.97 --yes
      ... and merge them (each undone by `undo ID`)
  {PROG} undo auth-jwt-check
      restore a merged belief and every justification edge the merge moved

""" + sc.RUN_EXIT_CODES


ARGUMENTS = (
    arg("--candidates", action="store_true",
        help="list the candidate clusters and stop (no model, no verdicts)"),
    candidate_flags(threshold=DEFAULT_THRESHOLD, what="near-duplicates"),
    arg("--max-cluster", type=positive_int, default=DEFAULT_MAX_CLUSTER, metavar="N",
        help=f"largest cluster (default {DEFAULT_MAX_CLUSTER})"),
    arg("--batch", type=positive_int, default=DEFAULT_BATCH, metavar="N",
        help=f"clusters per round (default {DEFAULT_BATCH})"),
    arg("--yes", action="store_true",
        help=f"with --auto and no --model: merge every candidate cluster at or above the "
             f"threshold (default {DEFAULT_AUTO_THRESHOLD} then) without a model; without "
             "--yes that prints what it would do, writing nothing"))


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


def without_model(args: argparse.Namespace) -> bool:
    """`--auto` with no --model (nor --dry-run): merges above the threshold, no model."""
    return bool(args.auto and not args.model and not args.dry_run and not args.candidates)


def cmd_auto_merge(call: sc.StageCall) -> int:
    import dataclasses

    from engine.dedup.auto import auto_merge
    from engine.dedup.stage import find_clusters

    a = call.args
    options = dataclasses.replace(dedup_options(a), threshold=a.threshold
                                  if a.threshold is not None else DEFAULT_AUTO_THRESHOLD)
    clusters, shas = find_clusters(call.context.store, call.candidates(options, "dedup"),
                                   options.max_cluster)
    done = auto_merge(call.context.store, clusters, shas, options.cutoff, write=a.yes)
    if call.emit(done):
        return 0
    verb = "merged" if done.written else "would merge"
    call.say(f"{verb} {len(done.merges)} beliefs at {options.cutoff:g} and above "
             f"({'id-token Jaccard' if options.by_id else 'cosine'}), no model:")
    if done.merges:
        call.say(table([(m.merged, m.kept, f"{m.score:.3f}") for m in done.merges],
                       ["merged", "into", "weakest"]))
    call.say(*(f"left {', '.join(members)}: {why}" for members, why in done.skipped),
             *(f"OUT  {b}" for b in sorted(done.change.went_out)),
             *(f"IN   {b}" for b in sorted(done.change.went_in)))
    if not done.written and done.merges:
        call.say(f"nothing written: `{call.context.prog} --auto --threshold "
                 f"{options.cutoff:g} --yes` merges them (each undone by `undo ID`)")
    return 0


def cmd_undo(call: sc.StageCall) -> int:
    from engine.dedup.merge import undo

    change = undo(call.context.store, call.args.id)
    if call.as_json:
        return call.print_json(change.as_dict())
    call.say(f"restored {call.args.id}", *(f"IN   {bid}" for bid in change.went_in),
             *(f"OUT  {bid}" for bid in change.went_out))
    return 0


def _check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.yes and not without_model(args):
        parser.error("--yes goes with --auto and no --model (merging without a model)")
    if without_model(args):
        if args.exhaust or args.output is not None:
            parser.error("--auto without --model merges in one step: no --exhaust or -o")
        return
    if not args.candidates:
        sc.check_mode_args(parser, args)


def _accept_stage(call: sc.StageCall) -> LoopStage[GraphTx]:
    from engine.dedup.stage import DedupOptions, DedupStage
    from engine.pairs.source import CandidateSource

    return DedupStage(DedupOptions(), CandidateSource(DedupOptions()))


COMMAND = sc.StageCommand(
    PROG, sc.usage(PROG, "--candidates [options]", "--model SPEC [options]", "accept FILE",
                   "undo ID"),
    "Find beliefs that state the same claim; ask a model whether each cluster is the SAME "
    "claim, DIFFERENT claims, or a CONTRADICTION; merge duplicates and record nogoods.",
    EXAMPLES, default_output=DEFAULT_OUTPUT, add_arguments=ARGUMENTS, check=_check,
    run=lambda call: (cmd_candidates if call.args.candidates else
                      cmd_auto_merge if without_model(call.args) else cmd_run)(call),
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
