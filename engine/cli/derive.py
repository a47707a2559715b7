"""`python -m engine.derive`: ask a chat model for new derived beliefs (`derive`), and
`python -m engine.derive accept FILE` to apply a proposals file later.

The flags become a DeriveOptions and a SamplerOptions (engine/derive/options.py); the
sampler and the model are wired in (engine/wiring/) only when a run needs them; the run
is engine/derive/run.derive, accept the shared one. Exit codes: 0 ok, 1 a run that ended
in error, 2 bad input or usage.
"""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from engine.cli import stage_cli as sc
from engine.cli.command import some_ids, table
from engine.cli.arguments import arg, each, group
from engine.cli.stage_flags import domain_flag, embedding_model_flag, model_spec, positive_int
from engine.cli.stage_flags import sampling_strategy, share

if TYPE_CHECKING:
    from engine.graph import GraphTx
    from engine.derive.options import SamplerOptions
    from engine.derive.validate import ValidationRules
    from engine.stages.stage import LoopStage

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

""" + sc.RUN_EXIT_CODES


TOPIC = arg("--topic", metavar="WORDS",
            help="only beliefs whose id or text contains one of these words")
VALIDATION = group(
    "validation",
    arg("--min-antecedents", type=positive_int, default=2, metavar="N",
        help="fewest distinct antecedents a proposal may have (default 2)"),
    arg("--out-similarity", type=share, default=0.5, metavar="J",
        help="skip a proposal whose id-token Jaccard similarity to an OUT belief is at least J "
             "(default 0.5)"),
    arg("--max-depth", type=positive_int, default=8, metavar="D",
        help="skip a proposal deeper than D (default 8)"))
RUN_ARGUMENTS = (
    group("sampling",
          arg("--budget", type=positive_int, default=300, metavar="N",
              help="at most N belief lines per prompt (default 300)"),
          arg("--sample", action="store_true",
              help="seeded random windows, no belief twice before all were shown"),
          arg("--seed", type=int, default=None, metavar="N",
              help="seed for --sample and for clustering"),
          arg("--cluster", action="store_true",
              help="embedding clusters, slots in proportion to cluster size"),
          arg("--intra-cluster", action="store_true",
              help="each round gives the whole budget to one cluster, in turn"),
          arg("--n-clusters", type=positive_int, default=None, metavar="K",
              help="number of clusters (default: a rule from the network size)"),
          embedding_model_flag, domain_flag(), TOPIC),
    VALIDATION)


def check_run_args(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Conflicts argparse cannot see; each is a usage error (exit 2)."""
    if args.sample and (args.cluster or args.intra_cluster):
        p.error("--sample and --cluster/--intra-cluster are different strategies; pick one")
    if (args.n_clusters is not None or args.embedding_model) and not (
            args.cluster or args.intra_cluster):
        p.error("--n-clusters and --embedding-model need --cluster or --intra-cluster")
    sc.check_mode_args(p, args)


def _rules(args: argparse.Namespace) -> ValidationRules:
    from engine.derive.validate import ValidationRules

    return ValidationRules(args.min_antecedents, args.out_similarity, args.max_depth)


def sampler_options(args: argparse.Namespace) -> SamplerOptions:
    from engine.derive.options import SamplerOptions

    return SamplerOptions(sampling_strategy(args), args.budget, args.seed, args.n_clusters,
                          args.embedding_model)


def cmd_derive(call: sc.StageCall) -> int:
    """The model first (a bad one fails before any work), then the sampler over the store
    and the run (engine/derive/run.derive); --dry-run prints round 1's prompt instead."""
    from engine.derive.options import DeriveOptions
    from engine.derive.run import derive, preview_prompt

    a = call.args
    binding = None if a.dry_run else call.parts.model(model_spec(a))
    sampling = sampler_options(a)

    def computed(done: int, total: int) -> None:
        if not a.quiet:
            call.note(f"embeddings: {done}/{total} computed")

    sampler = call.parts.sampler(call.context.store, sampling, cache=call.vector_cache(),
                                 progress=computed)
    options = DeriveOptions(
        **sc.run_fields(call, COMMAND, params=sc.run_params(a, strategy=sampling.strategy),
                        is_transient=binding.is_transient if binding else None),
        budget=a.budget, domain=a.domain, topic=a.topic, intra_cluster=a.intra_cluster,
        rules=_rules(a))
    if binding is None:
        call.write(preview_prompt(call.context.store, sampler, options).text)
        return 0
    return sc.print_run(call, derive(call.context.store, binding.model_for_round, sampler,
                                     options, report=sc.report_file(call, "derive"),
                                     progress=sc.progress(call), cost=binding.cost))


def cmd_list_clusters(call: sc.StageCall) -> int:
    """The clusters a --cluster or --intra-cluster run samples from, fitted by its sampler."""
    from engine.derive.options import SamplerOptions
    from engine.derive.sampling.listing import list_clusters

    a = call.args
    sampling = SamplerOptions("intra-cluster" if a.intra_cluster else "cluster", a.budget,
                              a.seed, a.n_clusters, a.embedding_model)
    sampler = call.parts.sampler(call.context.store, sampling, cache=call.vector_cache())
    found = list_clusters(call.context.store, sampler, a.topic)
    if call.emit(found):
        return 0
    if not found.clusters:
        call.say("no IN premises to cluster")
        return 0
    call.say(f"{len(found.clusters)} clusters of {found.pool} IN premises (seed {found.seed}):",
             table([(n, len(m), some_ids(list(m))) for n, m in enumerate(found.clusters)],
                   ["cluster", "size", "members"]))
    return 0


def accept_stage(call: sc.StageCall) -> LoopStage[GraphTx]:
    from engine.derive.options import DeriveOptions
    from engine.derive.stage import DeriveStage

    return DeriveStage(None, DeriveOptions(rules=_rules(call.args)))


COMMAND = sc.StageCommand(
    PROG, sc.usage(PROG, "--model SPEC [options]", "--dry-run [options]",
                   "accept FILE [options]"),
    "Ask a chat model to propose new derived beliefs from a sample of the network; validate "
    "them; write them to a file, or apply them (--auto).", RUN_EXAMPLES,
    default_output=DEFAULT_OUTPUT, add_arguments=RUN_ARGUMENTS,
    dry_rounds_help="stop after K consecutive dry rounds (default 1; the number of clusters "
                    "with --intra-cluster)",
    parallel=False, check=check_run_args, run=cmd_derive,
    subcommands={"list-clusters": sc.Subcommand(
        lambda: sc.subcommand_parser(
            PROG, "list-clusters", "List the embedding clusters --cluster and "
                                   "--intra-cluster runs sample from (the IN premises, "
                                   "clustered as a run clusters them); nothing is written.",
            f"example:\n  {PROG} list-clusters --n-clusters 8 --json\n",
            each(arg("--intra-cluster", action="store_true",
                     help="as --intra-cluster runs fit them (the same clusters: listed for the "
                          "run's flags)"),
                 arg("--budget", type=positive_int, default=300, metavar="N",
                     help="the run's --budget: k follows it when --n-clusters is not given "
                          "(default 300)"),
                 arg("--seed", type=int, default=None, metavar="N",
                     help="the KMeans seed (default 0, as a run without --seed)"),
                 arg("--n-clusters", type=positive_int, default=None, metavar="K",
                     help="number of clusters (default: the run's rule from the pool size)"),
                 embedding_model_flag, TOPIC)),
        cmd_list_clusters),
                 "accept": sc.accept_subcommand(
        PROG, "Validate the proposals in FILE (a proposals file, perhaps edited) and apply the "
              "valid ones in one transaction, recorded as a derive run.",
        f"{DEFAULT_OUTPUT} --json", accept_stage, add_arguments=VALIDATION,
        params=lambda call: {"min_antecedents": call.args.min_antecedents,
                             "out_similarity": call.args.out_similarity,
                             "max_depth": call.args.max_depth})})


main = sc.entry(COMMAND)
