"""`python -m engine.derive`: ask a chat model for new derived beliefs (`derive`), and
`python -m engine.derive accept FILE` to apply a proposals file later.

A thin skin: parse the flags, wire the store, the sampler and the model in (lazily, so the
providers and sentence-transformers load only when a run needs them), call one library
function (engine.derive.run.derive or engine.derive.accept.accept), render the result.
Exit codes: 0 ok, 1 a run that ended in error, 2 bad input or usage.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.cli.stage_cli import (
    ModelBinding,
    Wiring,
    accept_parser,
    add_mode_flags,
    add_model_flags,
    add_output_flags,
    build_model,
    check_mode_args,
    embedding_cache_dir,
    positive_int,
    print_accept,
    print_run,
    progress_for,
    report_file,
    run_params,
    share,
    StageCommand,
    Subcommand,
    stage_main,
)
from engine.derive.validate import ValidationRules
from engine.stages.calls import CallPolicy, default_is_transient
from engine.store import Store

__all__ = ["ModelBinding", "Wiring", "build_model", "main"]

PROG = "python -m engine.derive"
DEFAULT_OUTPUT = "proposed-derivations.md"

RUN_EXAMPLES = f"""\
examples:
  {PROG} --model ollama:qwen3:8b
      one round; the valid proposals go to {DEFAULT_OUTPUT} for review
  {PROG} --model anthropic:claude-sonnet-4-5 --exhaust --intra-cluster
      apply round after round, one cluster per round, until every cluster is dry
  {PROG} --dry-run --topic "auth token" --budget 50
      print the prompt round 1 would send; no model is called
  {PROG} accept {DEFAULT_OUTPUT}
      validate and apply a proposals file (see: {PROG} accept --help)

exit codes: 0 ok; 1 the run ended in error (the model failed after its tries; nothing of
that round was applied); 2 bad input or usage, or the store cannot be reached.
"""
ACCEPT_EXAMPLES = f"""\
example:
  {PROG} accept {DEFAULT_OUTPUT} --json
"""


def strategy_of(args: argparse.Namespace) -> str:
    if args.intra_cluster:
        return "intra-cluster"
    if args.cluster:
        return "cluster"
    return "random" if args.sample else "alphabetical"


def make_sampler(args: argparse.Namespace, store: Store, stderr=None):
    """The sampling strategy the flags ask for (engine.derive.sampling); the cluster ones get
    embeddings from the store, computed by the local sentence-transformers model where
    missing, and scikit-learn's KMeans (both imported here, only for them)."""
    from engine.derive.sampling import make_sampler as make

    strategy = strategy_of(args)
    vectors = clusterer = None
    if strategy in ("cluster", "intra-cluster"):
        from adapters.clustering import kmeans_clusterer
        from adapters.embeddings import SentenceTransformerEmbedder
        from adapters.vector_cache import NpyVectorCache
        from engine.embedding.cache import embedding_source

        stream = stderr or sys.stderr

        def progress(done: int, total: int) -> None:
            if not args.quiet:
                print(f"embeddings: {done}/{total} computed", file=stream, flush=True)

        vectors = embedding_source(store, SentenceTransformerEmbedder(args.embedding_model),
                                   cache=NpyVectorCache(embedding_cache_dir()),
                                   progress=progress)
        clusterer = kmeans_clusterer()
    return make(strategy, budget=args.budget, seed=args.seed, n_clusters=args.n_clusters,
                vectors=vectors, clusterer=clusterer)


# --- the parsers ---------------------------------------------------------------------
def _validation_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("validation")
    g.add_argument("--min-antecedents", type=positive_int, default=2, metavar="N",
                   help="fewest distinct antecedents a proposal may have (default 2)")
    g.add_argument("--out-similarity", type=share, default=0.5, metavar="J",
                   help="skip a proposal whose id-token Jaccard similarity to an OUT belief "
                        "is at least J (default 0.5)")
    g.add_argument("--max-depth", type=positive_int, default=8, metavar="D",
                   help="skip a proposal deeper than D (default 8)")


def build_run_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        usage=f"{PROG} --model SPEC [options]\n       {PROG} --dry-run [options]\n"
              f"       {PROG} accept FILE [options]",
        description="Ask a chat model to propose new derived beliefs from a sample of the "
                    "network; validate them; write them to a file, or apply them (--auto).",
        epilog=RUN_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    add_model_flags(p)
    add_mode_flags(p, DEFAULT_OUTPUT,
                   dry_rounds_help="stop after K consecutive dry rounds (default 1; the number "
                                   "of clusters with --intra-cluster)",
                   parallel=False)

    sampling = p.add_argument_group("sampling")
    sampling.add_argument("--budget", type=positive_int, default=300, metavar="N",
                          help="at most N belief lines per prompt (default 300)")
    sampling.add_argument("--sample", action="store_true",
                          help="seeded random windows, no belief twice before all were shown")
    sampling.add_argument("--seed", type=int, default=None, metavar="N",
                          help="seed for --sample and for clustering")
    sampling.add_argument("--cluster", action="store_true",
                          help="embedding clusters, slots in proportion to cluster size")
    sampling.add_argument("--intra-cluster", action="store_true",
                          help="each round gives the whole budget to one cluster, in turn")
    sampling.add_argument("--n-clusters", type=positive_int, default=None, metavar="K",
                          help="number of clusters (default: a rule from the network size)")
    sampling.add_argument("--embedding-model", default=None, metavar="NAME",
                          help="a local sentence-transformers model (default all-MiniLM-L6-v2)")
    sampling.add_argument("--domain", metavar="TEXT",
                          help="tell the model what the network is about")
    sampling.add_argument("--topic", metavar="WORDS",
                          help="only beliefs whose id or text contains one of these words")

    _validation_flags(p)
    add_output_flags(p)
    return p


def build_accept_parser() -> argparse.ArgumentParser:
    p = accept_parser(PROG, "Validate the proposals in FILE (a proposals file, perhaps edited) "
                            "and apply the valid ones in one transaction, recorded as a derive "
                            "run.", ACCEPT_EXAMPLES)
    _validation_flags(p)
    return p


def check_run_args(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Conflicts argparse cannot see; each is a usage error (exit 2)."""
    if args.sample and (args.cluster or args.intra_cluster):
        p.error("--sample and --cluster/--intra-cluster are different strategies; pick one")
    if (args.n_clusters is not None or args.embedding_model) and not (
            args.cluster or args.intra_cluster):
        p.error("--n-clusters and --embedding-model need --cluster or --intra-cluster")
    check_mode_args(p, args)


# --- the commands --------------------------------------------------------------------
def _rules(args: argparse.Namespace) -> ValidationRules:
    return ValidationRules(args.min_antecedents, args.out_similarity, args.max_depth)


def derive_options(args: argparse.Namespace, binding: ModelBinding | None, sampler: Any = None):
    from engine.derive.run import DeriveOptions

    output = None
    if not (args.auto or args.exhaust):
        output = Path(args.output or DEFAULT_OUTPUT)
    params = run_params(args, strategy=strategy_of(args))
    if params.get("seed") is None and getattr(sampler, "seed", None) is not None:
        params["seed"] = sampler.seed  # the seed a sampler drew when none was given
    return DeriveOptions(
        model=args.model or "",
        budget=args.budget,
        domain=args.domain,
        topic=args.topic,
        auto=args.auto or args.exhaust,
        exhaust=args.exhaust,
        max_rounds=args.max_rounds,
        dry_rounds=args.dry_rounds,
        intra_cluster=args.intra_cluster,
        rules=_rules(args),
        calls=CallPolicy(
            timeout=args.timeout,
            is_transient=binding.is_transient if binding else default_is_transient),
        output=output,
        params=params,
    )


def cmd_derive(args: argparse.Namespace, wiring: Wiring) -> int:
    from engine.derive.run import derive, preview_prompt

    binding = None if args.dry_run else wiring.build_model(args)  # fail before any work
    with wiring.open_store() as store:
        sampler = (wiring.make_sampler or make_sampler)(args, store)
        options = derive_options(args, binding, sampler)
        if args.dry_run:
            sys.stdout.write(preview_prompt(store, sampler, options).text)
            return 0
        assert binding is not None  # made for every run but a dry one
        result = derive(store, binding.model_for_round, sampler, options,
                        report=report_file(args, "derive"), progress=progress_for(args, wiring),
                        cost=binding.cost)
    return print_run(result, args, wiring, PROG)


def cmd_accept(args: argparse.Namespace, wiring: Wiring) -> int:
    from engine.derive.accept import accept

    with wiring.open_store() as store:
        result = accept(store, Path(args.file), _rules(args))
    return print_accept(result, args)


COMMAND = StageCommand(build_run_parser, lambda args, wiring: cmd_derive(args, wiring),
                       check=lambda p, args: check_run_args(p, args),
                       subcommands={"accept": Subcommand(build_accept_parser, cmd_accept)})


def main(argv: Sequence[str] | None = None, *, wiring: Wiring | None = None) -> int:
    return stage_main(COMMAND, argv, wiring or Wiring())
