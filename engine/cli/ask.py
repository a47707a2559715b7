"""`python -m engine.ask "QUESTION"`: answer a question from the network, with citations
that are checked; `--context-only` prints what the model would be shown and calls none;
`--stale` lists earlier answers whose cited beliefs changed since.

One call each: engine/ask/run.ask (the AskStage, one round of the shared loop, with the
model engine/wiring/models.py wires for ask), engine/ask/retrieval.retrieve, the store's
stale citations. Exit codes: 0 an answer (`insufficient` included), 2 bad input, a model
that failed (one Error: line, nothing printed as an answer) or a store that cannot be
reached.
"""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from engine.cli import stage_cli as sc
from engine.cli.arguments import arg, each, visible_to_flag
from engine.cli.stage_flags import domain_flag, model_spec, positive_int, whole

if TYPE_CHECKING:
    from engine.graph import GraphTx
    from engine.ask.run import AskResult
    from engine.embedding.cache import Embedder
    from engine.service.context import Context
    from engine.store import Store

PROG = "python -m engine.ask"

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

    each(arg("question", nargs="?", help="the question, in quotes"),
         arg("--budget", type=positive_int, default=DEFAULT_BUDGET, metavar="TOKENS",
             help=f"tokens of retrieved beliefs shown to the model (default {DEFAULT_BUDGET})"),
         arg("--max-tool-rounds", type=whole, default=MAX_TOOL_ROUNDS, metavar="N",
             help=f"rounds of tool calls allowed (default {MAX_TOOL_ROUNDS})"),
         arg("--semantic", action="store_true",
             help="rank by meaning as well (the local embedding model)"),
         domain_flag(),
         arg("--context-only", action="store_true",
             help="print the retrieval bundle and call no model"),
         arg("--stale", action="store_true",
             help="list earlier answers whose cited beliefs changed since"),
         visible_to_flag)(p)


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


def _context(call: sc.StageCall) -> Context:
    """The call's Context, its embedder the program's parts' (a test's fixed one)."""
    import dataclasses

    parts = call.parts
    return dataclasses.replace(call.context, embedder=lambda: parts.embedder(None))


def _visible_to(call: sc.StageCall) -> frozenset[str] | None:
    from engine.tms.access import parse_tags

    given = call.args.visible_to
    return None if given is None else frozenset(parse_tags(given, field="visible_to"))


def cmd_context(call: sc.StageCall) -> int:
    from engine.cli.meaning import ProgressBar
    from engine.service.reading import context_for

    a = call.args
    bundle = context_for(_context(call).seeing(_visible_to(call)), a.question, a.budget,
                         semantic=a.semantic, progress=ProgressBar(call.err))
    if call.as_json:
        return call.print_json(bundle.as_dict())
    call.write(bundle.text())
    call.note(f"-- {bundle.tokens} of {bundle.budget} tokens, counted by {bundle.estimator}")
    return 0


def cmd_stale(call: sc.StageCall) -> int:
    stale = call.context.store.read(lambda tx: tx.stale_citations())
    if call.as_json:
        return call.print_json({"stale": [s.as_dict() for s in stale]})
    if not stale:
        call.say("no earlier answer cites a belief that changed since")
        return 0
    current = None
    for s in stale:
        if s.run_id != current:
            current = s.run_id
            call.say(f"{s.run_id} ({s.started_at}): {s.question}")
        what = [f"{s.truth_then} -> {s.truth_now}"] if s.truth_then != s.truth_now else []
        what += ["text changed"] if s.text_changed else []
        call.say(f"  {s.id} (cited as {s.role}): {', '.join(what)}")
    return 0


def asked_store(call: sc.StageCall) -> Store[GraphTx]:
    """For ask: reads filtered as --visible-to says, and ask's own records of its run
    written."""
    from engine.visibility import VisibleReadsStore

    tags = _visible_to(call)
    return call.context.store if tags is None else VisibleReadsStore(call.context.store, tags)


def cmd_ask(call: sc.StageCall) -> int:
    from engine.ask.run import ask
    from engine.cli.meaning import ProgressBar
    from engine.embedding.upkeep import require_current_embeddings
    from engine.service.meaning import by_meaning

    a = call.args
    backend = call.parts.ask(model_spec(a))  # fail before any work
    ctx = _context(call)

    def current(embedder: Embedder | None) -> Embedder | None:
        if embedder is not None:
            require_current_embeddings(ctx.store, embedder.model_name)
        return embedder

    # the bundle and the search tool both rank by meaning: current embeddings first
    embedder = by_meaning(ctx, a.semantic, current, progress=ProgressBar(call.err))
    result = ask(asked_store(call), a.question, backend, budget=a.budget,
                 max_tool_rounds=a.max_tool_rounds, domain=a.domain, embedder=embedder,
                 params=sc.run_params(a), report_file=sc.report_file(call, "ask"),
                 progress=sc.progress(call))
    return print_answer(call, result)


def print_answer(call: sc.StageCall, result: AskResult) -> int:
    from engine.model import Truth
    from engine.reading.compact.lines import depth_text

    answer, cited = result.answer, result.cited
    if call.as_json:
        return call.print_json(result.as_dict())
    call.say(f"{answer.status}: {answer.answer}")
    shown = [(c, b) for c in answer.citations if (b := cited.get(c.id)) is not None]
    if answer.citations:
        call.say("\ncited:", *(f"  {c.role:<11} {b.id} [{(b.truth or Truth.OUT).value}, depth "
                               f"{depth_text(b.depth)}]: {' '.join(b.text.split())}"
                               for c, b in shown))
    if answer.gaps:
        call.say("\ngaps:", *(f"  - {g}" for g in answer.gaps))
    if answer.dropped or answer.problems:
        call.say("\nleft out (still wrong after one retry):",
                 *(f"  - {d['id'] or '?'}: {d['reason']}" for d in answer.dropped),
                 *(f"  - {problem}" for problem in answer.problems))
    path = result.run.report_path
    call.say(f"\nrun {result.run_id}" + (f"; report: {path}" if path else ""))
    return 0


def _run(call: sc.StageCall) -> int:
    if call.args.stale:
        return cmd_stale(call)
    return (cmd_context if call.args.context_only else cmd_ask)(call)


COMMAND = sc.StageCommand(
    PROG, sc.usage(PROG, '"QUESTION" --model SPEC [options]',
                   '"QUESTION" --context-only [options]', "--stale [--json]"),
    "Answer a question from the belief network: retrieval (search, support, dependents) "
    "packed to a token budget, read-only tools, and an answer whose every citation is "
    "checked. Writes no belief.", EXAMPLES,
    add_arguments=add_arguments, check=check_args, run=_run, json_help="print JSON")


main = sc.entry(COMMAND)
