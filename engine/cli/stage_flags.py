"""The flags the stage programs share, and the records they translate into: the model
(`--model`, `--structured`, `--timeout`), a run's mode, its output, how pairs of beliefs
are found (dedup, contradictions), which source files are read (forge, the pipeline,
premise review). Standard library and engine/cli/arguments.py only."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from engine.cli.arguments import Arguments, arg, each, group, positive_float, positive_int, share
from engine.cli.arguments import whole

if TYPE_CHECKING:
    from engine.sources.reader import SourceOptions
    from engine.wiring.models import ModelSpec

__all__ = ["positive_float", "positive_int", "share", "whole"]


def id_list(text: str) -> tuple[str, ...]:
    """`--ids A,B`: belief ids separated by commas, each checked, repeats dropped."""
    from engine.errors import InvalidInput
    from engine.model import check_id

    ids = tuple(dict.fromkeys(i.strip() for i in text.split(",") if i.strip()))
    if not ids:
        raise argparse.ArgumentTypeError("give belief ids separated by commas")
    try:
        for i in ids:
            check_id(i)
    except InvalidInput as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return ids


def access_tags(text: str) -> tuple[str, ...]:
    from engine.errors import InvalidInput
    from engine.tms.access import parse_tags

    try:
        return parse_tags(text, field="tags")
    except InvalidInput as e:
        raise argparse.ArgumentTypeError(str(e)) from None


# --- the model ---------------------------------------------------------------------------
def model_flags(*, required: bool = False, about: str = "") -> Arguments:
    return each(
        arg("--model", metavar="SPEC", required=required,
            help=about or "the chat model: ollama:<name>, anthropic:<name>, openai:<name>, "
                          "local[:<file.gguf>], py:<module>:<callable>, replay:<report.json>"),
        arg("--structured", action="store_true",
            help="ask the provider for JSON restricted to the ids the round shows"),
        arg("--timeout", type=positive_float, default=600.0, metavar="S",
            help="seconds per model call before it is retried (default 600)"))


def model_spec(args: argparse.Namespace) -> ModelSpec:
    from engine.wiring.models import ModelSpec

    return ModelSpec(args.model or "", args.timeout, args.structured)


def sampling_strategy(args: argparse.Namespace) -> str:
    """The sampler derive's flags (--sample, --cluster, --intra-cluster) choose."""
    return ("intra-cluster" if args.intra_cluster else "cluster" if args.cluster
            else "random" if args.sample else "alphabetical")


# --- a run -------------------------------------------------------------------------------
parallel_flag = arg("--parallel", type=positive_int, default=1, metavar="N",
                    help="up to N model calls in flight at once; each round is still checked "
                         "and applied on its own, in order (default 1)")
# --dry-rounds of a stage that takes turns (review, premise review, repair)
TURNS_DRY_ROUNDS_HELP = ("stop after K consecutive dry rounds that show nothing for the first "
                         "time (default 2: as many as an item is shown without an answer)")


def mode_flags(p: argparse.ArgumentParser, default_output: str, *, dry_rounds_help: str,
               parallel: bool) -> None:
    """`parallel`: offer --parallel (not derive or repair, whose every round sees the last)."""
    group("mode", arg("--auto", action="store_true", help="apply what is valid to the graph"),
          arg("--exhaust", action="store_true",
              help="repeat rounds until nothing is left to do (implies --auto)"),
          arg("--max-rounds", type=positive_int, default=10, metavar="N",
              help="at most N rounds with --exhaust (default 10)"),
          arg("--dry-rounds", type=positive_int, default=None, metavar="K",
              help=dry_rounds_help),
          arg("--dry-run", action="store_true",
              help="print the prompt of round 1 and call no model"),
          arg("-o", "--output", metavar="FILE", default=None,
              help=f"proposals file, without --auto (default {default_output})"),
          *([parallel_flag] if parallel else []))(p)
    if not parallel:
        p.set_defaults(parallel=1)


def output_flags(json_help: str) -> Arguments:
    return group("output", arg("--report-dir", default="reports", metavar="DIR",
                               help="where the JSON report goes (default reports/)"),
                 arg("--no-report", action="store_true", help="write no report"),
                 arg("--json", action="store_true", help=json_help),
                 arg("--quiet", action="store_true", help="no progress lines on stderr"),
                 arg("--debug", action="store_true", help="show tracebacks"))


def budget_flag(default: int, items: str) -> Arguments:
    """`--budget N`: how many `items` a round of a stage that judges one at a time shows."""
    return arg("--budget", type=positive_int, default=default, metavar="N",
               help=f"{items} per round (default {default})")


def domain_flag(about: str = "what the network is about") -> Arguments:
    """`--domain TEXT`, which the prompt passes on to the model."""
    return arg("--domain", metavar="TEXT", help=f"tell the model {about}")


embedding_model_flag = arg("--embedding-model", default=None, metavar="NAME",
                           help="a local sentence-transformers model (default all-MiniLM-L6-v2)")


def candidate_flags(*, threshold: float, what: str) -> Arguments:
    """How pairs of beliefs are found (dedup and contradictions): by meaning or id tokens."""
    from engine.pairs.source import DEFAULT_ID_THRESHOLD, DEFAULT_K

    return group(
        "candidates",
        arg("--threshold", type=float, default=None, metavar="T",
            help=f"cosine similarity at which two beliefs are {what} (default {threshold}; "
                 f"with --by-id, id-token Jaccard {DEFAULT_ID_THRESHOLD})"),
        arg("--k", type=positive_int, default=DEFAULT_K, metavar="K",
            help=f"nearest neighbours looked at per belief (default {DEFAULT_K})"),
        arg("--by-id", action="store_true",
            help="compare id tokens instead of embeddings (networks without them)"),
        embedding_model_flag, domain_flag())


# --- sources (forge, the pipeline, premise review) ---------------------------------------
def root_flag(default: str | None = None, help: str = "") -> Arguments:
    return arg("--root", default=default, metavar="DIR",
               help=help or "source paths are stored relative to DIR (default: the current "
                            "folder, or the common folder of PATHS when one lies outside it)")


premise_check_flags = group(
    "validation",
    arg("--similar", type=share, default=0.92, metavar="C",
        help="skip a premise whose claim has cosine similarity >= C to an existing belief (a "
             "likely duplicate; default 0.92; needs embeddings)"),
    arg("--max-claim-chars", type=positive_int, default=300, metavar="N",
        help="skip a claim longer than N characters (default 300)"),
    arg("--no-embeddings", action="store_true",
        help="no nearest beliefs in the prompt and no --similar rule"))


def filter_flags(include: str = "as for forge", exclude: str = "as for forge") -> Arguments:
    return each(arg("--include", action="append", metavar="GLOB", default=[], help=include),
                arg("--exclude", action="append", metavar="GLOB", default=[], help=exclude))


# The flags that say which files are read, how they are cut, and how premises are checked
# (forge and the pipeline).
source_flags = each(
    group("sources", root_flag(),
          filter_flags("only files matching this gitignore-style glob (repeatable)",
                       "never files matching this glob (repeatable)"),
          arg("--no-gitignore", action="store_true", help="ignore .gitignore files"),
          arg("--tags", type=access_tags, metavar="TAGS", default=(),
              help="access tags every premise forged from these sources carries "
                   "(comma-separated, e.g. hr,finance)"),
          arg("--max-bytes", type=positive_int, default=2_000_000, metavar="N",
              help="skip files larger than N bytes (default 2000000)"),
          arg("--chunk-tokens", type=positive_int, default=600, metavar="N",
              help="chunk budget in tokens, about 4 characters each (default 600)")),
    group("forge prompt", arg("--max-premises", type=positive_int, default=6, metavar="N",
                              help="at most N premises per chunk (default 6)"),
          domain_flag("what the files are about")),
    premise_check_flags)


def source_options(args: argparse.Namespace) -> SourceOptions:
    """The files `source_flags` select, and how they are cut."""
    from engine.sources.reader import SourceOptions

    return SourceOptions(tuple(args.include), tuple(args.exclude),
                         gitignore=not args.no_gitignore, max_bytes=args.max_bytes,
                         chunk_tokens=args.chunk_tokens)
