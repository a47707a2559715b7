"""`python -m engine.derive`: ask a chat model for new derived beliefs (`derive`), and
`python -m engine.derive accept FILE` to apply a proposals file later.

A thin skin: the StageCommand below and derive's own flags; the sampler and the model are
wired in lazily (engine/cli/stage_parts.py), so the providers and sentence-transformers load
only when a run needs them; the run and accept are the shared ones (engine/stages/).
Exit codes: 0 ok, 1 a run that ended in error, 2 bad input or usage.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from engine.cli import stage_cli as sc
from engine.cli.stage_cli import ModelBinding, Wiring, build_model, make_sampler, strategy_of
from engine.derive.options import DeriveOptions
from engine.derive.stage import DeriveStage
from engine.derive.validate import ValidationRules

# Re-exported: tests and older callers take these from here.
__all__ = ["ModelBinding", "Wiring", "build_model", "main", "make_sampler", "strategy_of"]

PROG = "python -m engine.derive"
DEFAULT_OUTPUT = "proposed-derivations.md"

USAGE = sc.usage(PROG, "--model SPEC [options]", "--dry-run [options]", "accept FILE [options]")
DESCRIPTION = ("Ask a chat model to propose new derived beliefs from a sample of the "
               "network; validate them; write them to a file, or apply them (--auto).")


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

""" + sc.RUN_EXIT_CODES
ACCEPT_EXAMPLES = sc.accept_examples(PROG, DEFAULT_OUTPUT)


# --- the parsers ---------------------------------------------------------------------
def _validation_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("validation")
    g.add_argument("--min-antecedents", type=sc.positive_int, default=2, metavar="N",
                   help="fewest distinct antecedents a proposal may have (default 2)")
    g.add_argument("--out-similarity", type=sc.share, default=0.5, metavar="J",
                   help="skip a proposal whose id-token Jaccard similarity to an OUT belief "
                        "is at least J (default 0.5)")
    g.add_argument("--max-depth", type=sc.positive_int, default=8, metavar="D",
                   help="skip a proposal deeper than D (default 8)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    sampling = p.add_argument_group("sampling")
    sampling.add_argument("--budget", type=sc.positive_int, default=300, metavar="N",
                          help="at most N belief lines per prompt (default 300)")
    sampling.add_argument("--sample", action="store_true",
                          help="seeded random windows, no belief twice before all were shown")
    sampling.add_argument("--seed", type=int, default=None, metavar="N",
                          help="seed for --sample and for clustering")
    sampling.add_argument("--cluster", action="store_true",
                          help="embedding clusters, slots in proportion to cluster size")
    sampling.add_argument("--intra-cluster", action="store_true",
                          help="each round gives the whole budget to one cluster, in turn")
    sampling.add_argument("--n-clusters", type=sc.positive_int, default=None, metavar="K",
                          help="number of clusters (default: a rule from the network size)")
    sc.embedding_model_flag(sampling)
    sc.domain_flag(sampling)
    sampling.add_argument("--topic", metavar="WORDS",
                          help="only beliefs whose id or text contains one of these words")
    _validation_flags(p)


def check_run_args(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Conflicts argparse cannot see; each is a usage error (exit 2)."""
    if args.sample and (args.cluster or args.intra_cluster):
        p.error("--sample and --cluster/--intra-cluster are different strategies; pick one")
    if (args.n_clusters is not None or args.embedding_model) and not (
            args.cluster or args.intra_cluster):
        p.error("--n-clusters and --embedding-model need --cluster or --intra-cluster")
    sc.check_mode_args(p, args)


# --- the commands --------------------------------------------------------------------
def _rules(args: argparse.Namespace) -> ValidationRules:
    return ValidationRules(args.min_antecedents, args.out_similarity, args.max_depth)


def derive_options(args: argparse.Namespace, binding: ModelBinding | None,
                   sampler: Any) -> DeriveOptions:
    """The run the flags ask for, with the seed a sampler drew when none was given."""
    params = sc.run_params(args, strategy=sc.strategy_of(args))
    if params.get("seed") is None and getattr(sampler, "seed", None) is not None:
        params["seed"] = sampler.seed
    return sc.run_options(args, binding, default_output=DEFAULT_OUTPUT,
                          accept_command=f"{PROG} accept", params=params,
                          dry_rounds=None,  # None: derive's default (k with --intra-cluster)
                          kind=DeriveOptions, budget=args.budget, domain=args.domain,
                          topic=args.topic, intra_cluster=args.intra_cluster,
                          rules=_rules(args))


def cmd_derive(args: argparse.Namespace, wiring: sc.Wiring) -> int:
    """The model first (a bad one fails before any work), then the sampler over the store
    and the run (engine/derive/run.derive); --dry-run prints round 1's prompt instead."""
    from engine.derive.run import derive, preview_prompt

    binding = None if args.dry_run else wiring.build_model(args)
    with wiring.open_store() as store:
        sampler = (wiring.make_sampler or sc.make_sampler)(args, store)
        options = derive_options(args, binding, sampler)
        if binding is None:
            sys.stdout.write(preview_prompt(store, sampler, options).text)
            return 0
        result = derive(store, binding.model_for_round, sampler, options,
                        report=sc.report_file(args, "derive"),
                        progress=sc.progress_for(args, wiring), cost=binding.cost)
    return sc.print_run(result, args, wiring, PROG)


COMMAND = sc.StageCommand(
    PROG, USAGE, DESCRIPTION, RUN_EXAMPLES,
    default_output=DEFAULT_OUTPUT, add_arguments=add_arguments,
    dry_rounds_help="stop after K consecutive dry rounds (default 1; the number of clusters "
                    "with --intra-cluster)",
    parallel=False, check=check_run_args, run=cmd_derive,
    subcommands={"accept": sc.accept_subcommand(
        PROG, "Validate the proposals in FILE (a proposals file, perhaps edited) and apply the "
              "valid ones in one transaction, recorded as a derive run.", ACCEPT_EXAMPLES,
        lambda args, wiring: DeriveStage(None, DeriveOptions(rules=_rules(args))),
        add_arguments=_validation_flags,
        params=lambda args: {"min_antecedents": args.min_antecedents,
                             "out_similarity": args.out_similarity,
                             "max_depth": args.max_depth})})


def main(argv: Sequence[str] | None = None, *, wiring: sc.Wiring | None = None,
         prog: str = PROG) -> int:
    return sc.stage_main(COMMAND, argv, wiring or sc.Wiring(), prog)
