"""The flags the stage programs share, and the records they translate into: the model
(`--model`, `--structured`, `--timeout`), a run's mode, its output, how pairs of beliefs
are found (dedup, contradictions), which source files are read (forge, the pipeline,
premise review). Standard library and engine/cli/arguments.py only."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from engine.cli.arguments import positive_float, positive_int, share, whole

if TYPE_CHECKING:
    from engine.sources.reader import SourceOptions
    from engine.wiring.models import ModelSpec

Group = argparse.ArgumentParser | argparse._ArgumentGroup

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
def model_flags(p: Group, *, required: bool = False, about: str = "") -> None:
    p.add_argument("--model", metavar="SPEC", required=required,
                   help=about or "the chat model: ollama:<name>, anthropic:<name>, "
                        "openai:<name>, local[:<file.gguf>], py:<module>:<callable>, "
                        "replay:<report.json>")
    p.add_argument("--structured", action="store_true",
                   help="ask the provider for JSON restricted to the ids the round shows")
    p.add_argument("--timeout", type=positive_float, default=600.0, metavar="S",
                   help="seconds per model call before it is retried (default 600)")


def model_spec(args: argparse.Namespace) -> ModelSpec:
    from engine.wiring.models import ModelSpec

    return ModelSpec(args.model or "", args.timeout, args.structured)


# --- a run -------------------------------------------------------------------------------
def parallel_flag(group: Group) -> None:
    group.add_argument("--parallel", type=positive_int, default=1, metavar="N",
                       help="up to N model calls in flight at once; each round is still "
                            "checked and applied on its own, in order (default 1)")


# --dry-rounds of a stage that takes turns (review, premise review, repair)
TURNS_DRY_ROUNDS_HELP = ("stop after K consecutive dry rounds that show nothing for the first "
                         "time (default 2: as many as an item is shown without an answer)")


def mode_flags(p: argparse.ArgumentParser, default_output: str, *, dry_rounds_help: str,
               parallel: bool) -> None:
    """`parallel`: offer --parallel (not derive or repair, whose every round sees the last)."""
    mode = p.add_argument_group("mode")
    mode.add_argument("--auto", action="store_true", help="apply what is valid to the graph")
    mode.add_argument("--exhaust", action="store_true",
                      help="repeat rounds until nothing is left to do (implies --auto)")
    mode.add_argument("--max-rounds", type=positive_int, default=10, metavar="N",
                      help="at most N rounds with --exhaust (default 10)")
    mode.add_argument("--dry-rounds", type=positive_int, default=None, metavar="K",
                      help=dry_rounds_help)
    mode.add_argument("--dry-run", action="store_true",
                      help="print the prompt of round 1 and call no model")
    mode.add_argument("-o", "--output", metavar="FILE", default=None,
                      help=f"proposals file, without --auto (default {default_output})")
    if parallel:
        parallel_flag(mode)
    else:
        p.set_defaults(parallel=1)


def output_flags(p: argparse.ArgumentParser, *, json_help: str) -> None:
    out = p.add_argument_group("output")
    out.add_argument("--report-dir", default="reports", metavar="DIR",
                     help="where the JSON report goes (default reports/)")
    out.add_argument("--no-report", action="store_true", help="write no report")
    out.add_argument("--json", action="store_true", help=json_help)
    out.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    out.add_argument("--debug", action="store_true", help="show tracebacks")


def budget_flag(p: Group, default: int, items: str) -> None:
    """`--budget N`: how many `items` a round of a stage that judges one at a time shows."""
    p.add_argument("--budget", type=positive_int, default=default, metavar="N",
                   help=f"{items} per round (default {default})")


def domain_flag(p: Group, about: str = "what the network is about") -> None:
    """`--domain TEXT`, which the prompt passes on to the model."""
    p.add_argument("--domain", metavar="TEXT", help=f"tell the model {about}")


def embedding_model_flag(p: Group) -> None:
    p.add_argument("--embedding-model", default=None, metavar="NAME",
                   help="a local sentence-transformers model (default all-MiniLM-L6-v2)")


def candidate_flags(p: argparse.ArgumentParser, *, threshold: float, what: str) -> None:
    """How pairs of beliefs are found (dedup and contradictions): by meaning or id tokens."""
    from engine.pairs.source import DEFAULT_ID_THRESHOLD, DEFAULT_K

    g = p.add_argument_group("candidates")
    g.add_argument("--threshold", type=float, default=None, metavar="T",
                   help=f"cosine similarity at which two beliefs are {what} (default "
                        f"{threshold}; with --by-id, id-token Jaccard {DEFAULT_ID_THRESHOLD})")
    g.add_argument("--k", type=positive_int, default=DEFAULT_K, metavar="K",
                   help=f"nearest neighbours looked at per belief (default {DEFAULT_K})")
    g.add_argument("--by-id", action="store_true",
                   help="compare id tokens instead of embeddings (networks without them)")
    embedding_model_flag(g)
    domain_flag(g)


# --- sources (forge, the pipeline, premise review) ---------------------------------------
def root_flag(p: Group, default: str | None = None, help: str = "") -> None:
    p.add_argument("--root", default=default, metavar="DIR",
                   help=help or "source paths are stored relative to DIR (default: the "
                                "current folder, or the common folder of PATHS when one lies "
                                "outside it)")


def premise_check_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("validation")
    g.add_argument("--similar", type=share, default=0.92, metavar="C",
                   help="skip a premise whose claim has cosine similarity >= C to an existing "
                        "belief (a likely duplicate; default 0.92; needs embeddings)")
    g.add_argument("--max-claim-chars", type=positive_int, default=300, metavar="N",
                   help="skip a claim longer than N characters (default 300)")
    g.add_argument("--no-embeddings", action="store_true",
                   help="no nearest beliefs in the prompt and no --similar rule")


def source_flags(p: argparse.ArgumentParser) -> None:
    """The flags that say which files are read, how they are cut, and how premises are
    checked (forge and the pipeline)."""
    src = p.add_argument_group("sources")
    root_flag(src)
    filter_flags(src, "only files matching this gitignore-style glob (repeatable)",
                 "never files matching this glob (repeatable)")
    src.add_argument("--no-gitignore", action="store_true", help="ignore .gitignore files")
    src.add_argument("--tags", type=access_tags, metavar="TAGS", default=(),
                     help="access tags every premise forged from these sources carries "
                          "(comma-separated, e.g. hr,finance)")
    src.add_argument("--max-bytes", type=positive_int, default=2_000_000, metavar="N",
                     help="skip files larger than N bytes (default 2000000)")
    src.add_argument("--chunk-tokens", type=positive_int, default=600, metavar="N",
                     help="chunk budget in tokens, about 4 characters each (default 600)")
    prompt = p.add_argument_group("forge prompt")
    prompt.add_argument("--max-premises", type=positive_int, default=6, metavar="N",
                        help="at most N premises per chunk (default 6)")
    domain_flag(prompt, "what the files are about")
    premise_check_flags(p)


def filter_flags(p: Group, include: str = "as for forge", exclude: str = "as for forge"
                 ) -> None:
    p.add_argument("--include", action="append", metavar="GLOB", default=[], help=include)
    p.add_argument("--exclude", action="append", metavar="GLOB", default=[], help=exclude)


def source_options(args: argparse.Namespace) -> SourceOptions:
    """The files `source_flags` select, and how they are cut."""
    from engine.sources.reader import SourceOptions

    return SourceOptions(tuple(args.include), tuple(args.exclude),
                         gitignore=not args.no_gitignore, max_bytes=args.max_bytes,
                         chunk_tokens=args.chunk_tokens)
