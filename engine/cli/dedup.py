"""`python -m engine.dedup`: near-duplicate beliefs merged, contradictions made nogoods.

    python -m engine.dedup --candidates        list the candidate clusters (no model)
    python -m engine.dedup --model M           verdicts -> proposed-dedup.md
    python -m engine.dedup accept FILE         apply a verdicts file
    python -m engine.dedup --model M --auto --exhaust
    python -m engine.dedup undo ID             restore a merged belief

A thin skin over engine.dedup (the stage) and engine.stages (the run loop, accept).
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from engine.cli.stage_cli import (
    StageCommand,
    Subcommand,
    Wiring,
    accept_parser,
    add_mode_flags,
    add_model_flags,
    add_output_flags,
    check_mode_args,
    embedding_cache_dir,
    positive_int,
    print_accept,
    print_run,
    progress_for,
    report_file,
    run_options,
    run_params,
    stage_main,
    subcommand_parser,
)
from engine.cli.support import print_json, table
from engine.dedup.stage import (
    DEFAULT_BATCH,
    DEFAULT_ID_THRESHOLD,
    DEFAULT_K,
    DEFAULT_MAX_CLUSTER,
    DEFAULT_THRESHOLD,
    CandidateSource,
    DedupOptions,
    DedupStage,
    find_clusters,
)

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

exit codes: 0 ok; 1 the run ended in error; 2 bad input or usage, or no store.
"""


def add_candidate_flags(p: argparse.ArgumentParser, *, threshold: float, what: str) -> None:
    g = p.add_argument_group("candidates")
    g.add_argument("--threshold", type=float, default=None, metavar="T",
                   help=f"cosine similarity at which two beliefs are {what} (default "
                        f"{threshold}; with --by-id, id-token Jaccard {DEFAULT_ID_THRESHOLD})")
    g.add_argument("--k", type=positive_int, default=DEFAULT_K, metavar="K",
                   help=f"nearest neighbours looked at per belief (default {DEFAULT_K})")
    g.add_argument("--by-id", action="store_true",
                   help="compare id tokens instead of embeddings (networks without them)")
    g.add_argument("--embedding-model", default=None, metavar="NAME",
                   help="a local sentence-transformers model (default all-MiniLM-L6-v2)")
    g.add_argument("--domain", metavar="TEXT", help="tell the model what the network is about")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        usage=f"{PROG} --candidates [options]\n       {PROG} --model SPEC [options]\n"
              f"       {PROG} accept FILE\n       {PROG} undo ID",
        description="Find beliefs that state the same claim; ask a model whether each "
                    "cluster is the SAME claim, DIFFERENT claims, or a CONTRADICTION; merge "
                    "duplicates and record nogoods.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False)
    p.add_argument("--candidates", action="store_true",
                   help="list the candidate clusters and stop (no model, no verdicts)")
    add_model_flags(p)
    add_mode_flags(p, DEFAULT_OUTPUT)
    add_candidate_flags(p, threshold=DEFAULT_THRESHOLD, what="near-duplicates")
    p.add_argument("--max-cluster", type=positive_int, default=DEFAULT_MAX_CLUSTER, metavar="N",
                   help=f"largest cluster (default {DEFAULT_MAX_CLUSTER})")
    p.add_argument("--batch", type=positive_int, default=DEFAULT_BATCH, metavar="N",
                   help=f"clusters per round (default {DEFAULT_BATCH})")
    add_output_flags(p)
    return p


def candidate_source(args: argparse.Namespace, options: DedupOptions, wiring: Wiring,
                     stage_name: str = "dedup") -> CandidateSource:
    """The neighbour search: embeddings from the store, computed by the local
    sentence-transformers model where missing (imported only when needed)."""
    embedder = cache = None
    if not options.by_id:
        make = wiring.extra.get("embedder")
        if make is not None:
            embedder = make(args)
        else:
            from adapters.embeddings import SentenceTransformerEmbedder
            from adapters.vector_cache import NpyVectorCache

            embedder = SentenceTransformerEmbedder(args.embedding_model)
            cache = NpyVectorCache(embedding_cache_dir())
    return CandidateSource(options, embedder=embedder, cache=cache, stage=stage_name)


def dedup_options(args: argparse.Namespace) -> DedupOptions:
    return DedupOptions(threshold=args.threshold, k=args.k, max_cluster=args.max_cluster,
                        by_id=args.by_id, batch=args.batch, domain=args.domain or "").check()


def cmd_candidates(args: argparse.Namespace, wiring: Wiring) -> int:
    options = dedup_options(args)
    with wiring.open_store() as store:
        clusters, _ = find_clusters(store, candidate_source(args, options, wiring))
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


def cmd_run(args: argparse.Namespace, wiring: Wiring) -> int:
    from engine.stages.run import run_stage

    options = dedup_options(args)
    binding = None if args.dry_run else wiring.build_model(args)  # fail before any work
    with wiring.open_store() as store:
        stage = DedupStage(options, candidate_source(args, options, wiring))
        if args.dry_run:
            sys.stdout.write(stage.read_round(store, 1).prompt.text)
            return 0
        assert binding is not None  # made for every run but a dry one
        result = run_stage(store, stage, binding.model_for_round,
                           run_options(args, binding, default_output=DEFAULT_OUTPUT,
                                       accept_command=f"{PROG} accept",
                                       params=run_params(args, threshold=options.cutoff)),
                           report_file=report_file(args, "dedup"),
                           progress=progress_for(args, wiring), cost=binding.cost)
    return print_run(result, args, wiring, PROG)


def cmd_accept(args: argparse.Namespace, wiring: Wiring) -> int:
    from engine.stages.accept import accept

    stage = DedupStage(DedupOptions(), CandidateSource(DedupOptions()))
    with wiring.open_store() as store:
        result = accept(store, stage, Path(args.file))
    return print_accept(result, args)


def cmd_undo(args: argparse.Namespace, wiring: Wiring) -> int:
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


def build_accept_parser() -> argparse.ArgumentParser:
    return accept_parser(PROG, "Validate the verdicts in FILE (a proposals file, perhaps "
                               "edited) and apply them in one transaction.",
                         f"example:\n  {PROG} accept {DEFAULT_OUTPUT}")


def build_undo_parser() -> argparse.ArgumentParser:
    return subcommand_parser(PROG, "undo", "Restore a belief merged as a duplicate, and every "
                                           "antecedent and outlist edge the merge moved.",
                             f"example:\n  {PROG} undo auth-jwt-check",
                             lambda p: p.add_argument("id", metavar="ID"))


def _check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if not args.candidates:
        check_mode_args(parser, args)


def _run(args: argparse.Namespace, wiring: Wiring) -> int:
    return cmd_candidates(args, wiring) if args.candidates else cmd_run(args, wiring)


COMMAND = StageCommand(build_parser, _run, check=_check, subcommands={
    "accept": Subcommand(build_accept_parser, cmd_accept),
    "undo": Subcommand(build_undo_parser, cmd_undo)})


def main(argv: Sequence[str] | None = None, *, wiring: Wiring | None = None) -> int:
    return stage_main(COMMAND, argv, wiring or Wiring())
