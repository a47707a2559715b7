"""`python -m engine.dedup`: near-duplicate beliefs merged, contradictions made nogoods.

    python -m engine.dedup --candidates        list the candidate clusters (no model)
    python -m engine.dedup --model M           verdicts -> proposed-dedup.md
    python -m engine.dedup accept FILE         apply a verdicts file
    python -m engine.dedup --model M --auto --exhaust
    python -m engine.dedup undo ID             restore a merged belief

A thin skin over engine.dedup (the stage) and engine.stages (the run loop, accept): the
StageCommand below and dedup's own flags, `--candidates` and `undo`.
"""
from __future__ import annotations

import argparse
from collections.abc import Sequence

from engine.cli import stage_cli as sc
from engine.cli.support import print_json, table
from engine.dedup.stage import (
    DEFAULT_BATCH,
    DEFAULT_MAX_CLUSTER,
    DEFAULT_THRESHOLD,
    CandidateSource,
    DedupOptions,
    DedupStage,
    find_clusters,
)

PROG = "python -m engine.dedup"
DEFAULT_OUTPUT = "proposed-dedup.md"

USAGE = sc.usage(PROG, "--candidates [options]", "--model SPEC [options]", "accept FILE",
                 "undo ID")
DESCRIPTION = ("Find beliefs that state the same claim; ask a model whether each cluster is "
               "the SAME claim, DIFFERENT claims, or a CONTRADICTION; merge duplicates and "
               "record nogoods.")


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
    sc.add_candidate_flags(p, threshold=DEFAULT_THRESHOLD, what="near-duplicates")
    p.add_argument("--max-cluster", type=sc.positive_int, default=DEFAULT_MAX_CLUSTER,
                   metavar="N", help=f"largest cluster (default {DEFAULT_MAX_CLUSTER})")
    p.add_argument("--batch", type=sc.positive_int, default=DEFAULT_BATCH, metavar="N",
                   help=f"clusters per round (default {DEFAULT_BATCH})")


def dedup_options(args: argparse.Namespace) -> DedupOptions:
    return DedupOptions(threshold=args.threshold, k=args.k, max_cluster=args.max_cluster,
                        by_id=args.by_id, batch=args.batch, domain=args.domain or "").check()


def cmd_candidates(args: argparse.Namespace, wiring: sc.Wiring) -> int:
    options = dedup_options(args)
    with wiring.open_store() as store:
        clusters, _ = find_clusters(store, sc.candidate_source(args, options, wiring))
    if args.json:
        print_json({"threshold": options.cutoff, "clusters": [
            {"members": list(c.members), "score": round(c.score, 4)} for c in clusters]})
        return 0
    if clusters:
        print(table([(n, f"{c.score:.3f}", ", ".join(c.members))
                     for n, c in enumerate(clusters, 1)], ["cluster", "weakest", "members"]))
    print(f"{len(clusters)} candidate clusters at {options.cutoff:g} "
          f"({'id-token Jaccard' if options.by_id else 'cosine'})")
    return 0


def cmd_run(args: argparse.Namespace, wiring: sc.Wiring) -> int:
    options = dedup_options(args)  # bad options fail before the model is built
    return sc.run_rounds(
        COMMAND, "dedup", args, wiring,
        lambda store: DedupStage(options, sc.candidate_source(args, options, wiring)),
        params=sc.run_params(args, threshold=options.cutoff))


def cmd_undo(args: argparse.Namespace, wiring: sc.Wiring) -> int:
    from engine.dedup.merge import undo

    with wiring.open_store() as store:
        change = undo(store, args.id)
    if args.json:
        print_json(change.as_dict())
        return 0
    print(f"restored {args.id}")
    for bid in change.went_in:
        print(f"IN   {bid}")
    for bid in change.went_out:
        print(f"OUT  {bid}")
    return 0


def _check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if not args.candidates:
        sc.check_mode_args(parser, args)


COMMAND = sc.StageCommand(
    PROG, USAGE, DESCRIPTION, EXAMPLES,
    default_output=DEFAULT_OUTPUT, add_arguments=add_arguments, check=_check,
    run=lambda args, wiring: (cmd_candidates if args.candidates else cmd_run)(args, wiring),
    subcommands={
        "accept": sc.accept_subcommand(
            PROG, "Validate the verdicts in FILE (a proposals file, perhaps edited) and apply "
                  "them in one transaction.", f"example:\n  {PROG} accept {DEFAULT_OUTPUT}",
            lambda args, wiring: DedupStage(DedupOptions(), CandidateSource(DedupOptions()))),
        "undo": sc.Subcommand(
            lambda: sc.subcommand_parser(
                PROG, "undo", "Restore a belief merged as a duplicate, and every antecedent "
                              "and outlist edge the merge moved.",
                f"example:\n  {PROG} undo auth-jwt-check",
                lambda p: p.add_argument("id", metavar="ID")),
            cmd_undo)})


def main(argv: Sequence[str] | None = None, *, wiring: sc.Wiring | None = None,
         prog: str = PROG) -> int:
    return sc.stage_main(COMMAND, argv, wiring or sc.Wiring(), prog)
