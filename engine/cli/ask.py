"""`python -m engine.ask "QUESTION"`: answer a question from the network, with citations
that are checked; `--context-only` prints what the model would be shown and calls none;
`--stale` lists earlier answers whose cited beliefs changed since.

A thin skin over the shared stage machinery (engine/stages/, engine/cli/stage_cli.py): the
ask flags, the AskStage they configure, one round of run_stage. Exit codes: 0 an answer
(`insufficient` included), 2 bad input, a model that failed (one Error: line, nothing
printed as an answer) or a store that cannot be reached.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from engine.cli import stage_cli as sc
from engine.cli.meaning import by_meaning, embedder_for
from engine.cli.stage_cli import AskModel, Wiring, build_ask_model
from engine.cli.stage_cli import ask_backend as backend_for
from engine.cli.support import print_json
from engine.cli.visible_to import asked_through, seen_by, visible_to_flag
from engine.embedding.upkeep import require_current_embeddings
from engine.tokens import ESTIMATE

# Re-exported: the ask model's wiring lives in engine/cli/stage_parts.py (the MCP tool builds
# it too).
__all__ = ["AskModel", "backend_for", "build_ask_model", "main"]

PROG = "python -m engine.ask"

USAGE = sc.usage(PROG, '"QUESTION" --model SPEC [options]',
                 '"QUESTION" --context-only [options]', "--stale [--json]")
DESCRIPTION = ("Answer a question from the belief network: retrieval (search, support, "
               "dependents) packed to a token budget, read-only tools, and an answer whose "
               "every citation is checked. Writes no belief.")


EXAMPLES = f"""\
examples:
  {PROG} "why is auth slow?" --context-only
      what the model would be shown (search, support, dependents); no model is called
  {PROG} "why is auth slow?" --model ollama:qwen3:8b
      the answer, each cited belief with its label, depth and text, and the gaps
  {PROG} "what do we know about the cache?" --model anthropic:claude-sonnet-4-5 --json
  {PROG} --stale
      earlier answers whose cited beliefs changed label or text since

exit codes: 0 an answer (status answered or insufficient); 2 bad input, the model failed or
gave no usable answer after one retry (one Error: line), or the store cannot be reached.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    from engine.ask.retrieval import DEFAULT_BUDGET
    from engine.ask.stage import MAX_TOOL_ROUNDS

    p.add_argument("question", nargs="?", help="the question, in quotes")
    p.add_argument("--budget", type=sc.positive_int, default=DEFAULT_BUDGET, metavar="TOKENS",
                   help=f"tokens of retrieved beliefs shown to the model (default "
                        f"{DEFAULT_BUDGET})")
    p.add_argument("--max-tool-rounds", type=sc.non_negative_int, default=MAX_TOOL_ROUNDS,
                   metavar="N", help=f"rounds of tool calls allowed (default {MAX_TOOL_ROUNDS})")
    p.add_argument("--semantic", action="store_true",
                   help="rank by meaning as well (the beliefs' embeddings; a few missing are "
                        "computed first, more: `eem embed` computes them)")
    sc.domain_flag(p)
    p.add_argument("--context-only", action="store_true",
                   help="print the retrieval bundle and call no model")
    p.add_argument("--stale", action="store_true",
                   help="list earlier answers whose cited beliefs changed since")
    visible_to_flag(p)


def check_args(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.stale:
        if args.question:
            p.error("--stale takes no question")
        if args.visible_to is not None:
            p.error("--stale lists every earlier answer, which --visible-to cannot filter")
        return
    if not args.question or not args.question.strip():
        p.error("give a question (in quotes), or --stale")
    if not args.context_only and not args.model:
        p.error("--model is required (or --context-only to print what it would be shown)")


def _embedder(args: argparse.Namespace, wiring: Wiring) -> Any:
    if not args.semantic:
        return None
    make = wiring.extra.get("make_embedder")
    return make() if make is not None else embedder_for(args)


def cmd_context(args: argparse.Namespace, wiring: Wiring) -> int:
    from engine.ask.retrieval import retrieve

    embedder = _embedder(args, wiring)
    with wiring.open_store() as store:
        bundle = by_meaning(store, embedder, args, lambda: retrieve(
            seen_by(store, args), args.question, budget=args.budget, counter=ESTIMATE,
            embedder=embedder), stream=wiring.err())
    if args.json:
        print_json(bundle.as_dict())
    else:
        sys.stdout.write(bundle.text())
        print(f"-- {bundle.tokens} of {bundle.budget} tokens, counted by {bundle.estimator}",
              file=wiring.err())
    return 0


def cmd_stale(args: argparse.Namespace, wiring: Wiring) -> int:
    with wiring.open_store() as store:
        stale = store.read(lambda tx: tx.stale_citations())
    if args.json:
        print_json({"stale": [s.as_dict() for s in stale]})
        return 0
    if not stale:
        print("no earlier answer cites a belief that changed since")
        return 0
    current = None
    for s in stale:
        if s.run_id != current:
            current = s.run_id
            print(f"{s.run_id} ({s.started_at}): {s.question}")
        what = []
        if s.truth_then != s.truth_now:
            what.append(f"{s.truth_then} -> {s.truth_now}")
        if s.text_changed:
            what.append("text changed")
        print(f"  {s.id} (cited as {s.role}): {', '.join(what)}")
    return 0


def cmd_ask(args: argparse.Namespace, wiring: Wiring) -> int:
    from engine.ask.run import ask

    build = wiring.extra.get("build_ask_model", build_ask_model)
    model: AskModel = build(args, wiring)  # fail before any work
    backend = backend_for(model, args, wiring)
    embedder = _embedder(args, wiring)
    with wiring.open_store() as store:
        if embedder is not None:  # the bundle and the search tool both rank by meaning
            by_meaning(store, embedder, args, lambda: require_current_embeddings(
                store, embedder.model_name), stream=wiring.err())
        result = ask(asked_through(store, args), args.question, backend, budget=args.budget,
                     max_tool_rounds=args.max_tool_rounds, domain=args.domain,
                     embedder=embedder, params=sc.run_params(args),
                     report_file=sc.report_file(args, "ask"),
                     progress=sc.progress_for(args, wiring))
    return print_answer(result, args)


def print_answer(result: Any, args: argparse.Namespace) -> int:
    from engine.reading.compact.lines import depth_text

    answer, cited = result.answer, result.cited
    if args.json:
        print_json(result.as_dict())
        return 0
    print(f"{answer.status}: {answer.answer}")
    if answer.citations:
        print("\ncited:")
        for c in answer.citations:
            b = cited.get(c.id)
            if b is None:
                continue
            print(f"  {c.role:<11} {b.id} [{b.truth.value}, depth {depth_text(b.depth)}]: "
                  f"{' '.join(b.text.split())}")
    if answer.gaps:
        print("\ngaps:")
        for g in answer.gaps:
            print(f"  - {g}")
    if answer.dropped or answer.problems:
        print("\nleft out (still wrong after one retry):")
        for d in answer.dropped:
            print(f"  - {d['id'] or '?'}: {d['reason']}")
        for problem in answer.problems:
            print(f"  - {problem}")
    path = result.run.report_path
    print(f"\nrun {result.run_id}" + (f"; report: {path}" if path else ""))
    return 0


def _run(args: argparse.Namespace, wiring: Wiring) -> int:
    if args.stale:
        return cmd_stale(args, wiring)
    return (cmd_context if args.context_only else cmd_ask)(args, wiring)


COMMAND = sc.StageCommand(
    PROG, USAGE, DESCRIPTION, EXAMPLES, add_arguments=add_arguments,
    check=check_args, run=_run,
    json_help="print JSON")


def main(argv: Sequence[str] | None = None, *, wiring: Wiring | None = None,
         prog: str = PROG) -> int:
    return sc.stage_main(COMMAND, argv, wiring or Wiring(), prog)
