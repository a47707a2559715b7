"""The reading commands of `python -m engine`: `compact` (a token-budgeted summary for an
agent's context, or into a CLAUDE.md with --write) and `summarize` (a belief standing for a
group). engine/cli/tms.py's table takes these COMMANDS."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from engine.cli.command import Command, report_change
from engine.cli.support import print_json, split_ids
from engine.cli.visible_to import seen_by, visible_to_flag
from engine.errors import InvalidInput


def _positive(text: str) -> int:
    from engine.cli.stage_cli import positive_int

    return positive_int(text)


def _non_negative(text: str) -> int:
    from engine.cli.stage_cli import non_negative_int

    return non_negative_int(text)


def cmd_compact(store: Any, args: argparse.Namespace) -> int:
    from engine.cli.meaning import by_meaning, embedder_for
    from engine.reading.compact import CompactOptions, compact
    from engine.reading.compact.build import check_options
    from engine.reading.compact.markers import write_compact

    options = CompactOptions(budget=args.budget, topic=tuple(args.topic or ()),
                             around=args.around, steps=args.steps,
                             namespace=args.namespace)
    check_options(options)
    if args.semantic and not options.topic:
        raise InvalidInput("--semantic goes with --topic", field="semantic")
    embedder = embedder_for(args)
    result = by_meaning(store, embedder, args,
                        lambda: compact(seen_by(store, args), options, embedder=embedder))
    written = write_compact(args.write, result.text) if args.write else None
    if args.json:
        print_json({**result.as_dict(), "written": str(written) if written else None})
    elif written:
        print(f"wrote {written}: {result.tokens} of {result.budget} tokens between the "
              "eem:compact markers")
    else:
        sys.stdout.write(result.text)
    return 0


def cmd_summarize(store: Any, args: argparse.Namespace) -> int:
    from engine.memory.summaries import summarize

    return report_change(summarize(store, args.id, args.text, split_ids(args.over)), args)


def _compact_arguments(p: argparse.ArgumentParser) -> None:
    from engine.reading.compact.build import DEFAULT_BUDGET

    p.add_argument("--budget", type=_positive, default=DEFAULT_BUDGET, metavar="TOKENS",
                   help=f"at most this many tokens, footer included (default {DEFAULT_BUDGET})")
    scope = p.add_mutually_exclusive_group()
    scope.add_argument("--topic", nargs="+", metavar="WORD",
                       help="only the beliefs that bear on these words, found as search "
                            "ranks them")
    p.add_argument("--semantic", action="store_true",
                   help="with --topic: by meaning as well (the beliefs' embeddings)")
    scope.add_argument("--around", metavar="ID",
                       help="only beliefs within --steps justification steps of ID")
    scope.add_argument("--namespace", metavar="NAME",
                       help="only the beliefs of this imported agent's namespace")
    p.add_argument("--steps", type=_non_negative, default=2, metavar="N",
                   help="with --around: steps up and down (default 2)")
    visible_to_flag(p)
    p.add_argument("--write", metavar="FILE",
                   help="put the summary between <!-- eem:compact --> and "
                        "<!-- /eem:compact --> in FILE (markers appended when absent)")


def _summarize_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id")
    p.add_argument("text")
    p.add_argument("--over", required=True, metavar="A,B,C",
                   help="the beliefs it stands for (an ALL justification over them)")


COMMANDS: dict[str, Command] = {
    "compact": Command(
        cmd_compact, "a token-budgeted summary of the network for an agent's context",
        "compact --budget 800 --write CLAUDE.md", _compact_arguments),
    "summarize": Command(
        cmd_summarize, "add a summary belief that stands for a group while it is IN",
        "summarize auth-summary 'Auth validates JWTs synchronously' "
        "--over auth-uses-jwt,auth-sync-check", _summarize_arguments),
}
