"""What every LLM stage's command line shares: the model from `--model`, the run flags
(`--auto`, `--exhaust`, `--max-rounds`, `--dry-rounds`, `--dry-run`, `-o`, `--parallel`),
the report flags,
progress lines, and printing a run's or an accept's result. A stage's entry point adds only
its own flags and builds its Stage (engine/stages/stage.py).
"""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from engine.cli.support import open_store, print_json, run_guarded
from engine.errors import ModelError
from engine.stages.accept import AcceptResult
from engine.stages.calls import CallPolicy, default_is_transient
from engine.stages.contract import ModelForRound
from engine.stages.report import ReportFile, RoundResult, RunStatus, report_path, summary_table
from engine.stages.run import RunOptions, RunResult, utc_now
from engine.store import Store


@dataclass(frozen=True)
class ModelBinding:
    """What the entry point builds from --model: the engine's only view of the model."""

    model_for_round: ModelForRound
    is_transient: Callable[[BaseException], bool] = default_is_transient
    cost: Callable[[int, int], float | None] | None = None


def build_model(args: argparse.Namespace) -> ModelBinding:
    """The real back-ends (adapters.llm), imported here and nowhere else in the stages."""
    try:
        from adapters.llm import build_chat_model, model_for_round
    except ImportError as e:
        raise ModelError(f"the chat-model back-ends (adapters.llm) cannot be loaded: {e}",
                         model=args.model, exit_code=2) from e
    chat = build_chat_model(args.model, timeout=args.timeout)
    bound = model_for_round(args.model, chat, structured=args.structured)
    from adapters.llm.errors import is_transient
    from adapters.llm.pricing import cost_usd

    spec = args.model

    def cost(tokens_in: int, tokens_out: int) -> float | None:
        return cost_usd(spec, tokens_in, tokens_out)

    return ModelBinding(bound, is_transient, cost)


class ErrorStream(Protocol):
    """What printing a run needs of a command's wiring: where errors go."""

    def err(self) -> Any: ...


@dataclass
class Wiring:
    """The outside things a stage command needs; tests swap in fakes. `extra` holds a
    stage's own (derive's sampler factory, forge's source reader, ...)."""

    open_store: Callable[[], AbstractContextManager[Store]] = open_store
    build_model: Callable[[argparse.Namespace], ModelBinding] = build_model
    make_sampler: Callable[[argparse.Namespace, Store], Any] | None = None
    make_reader: Callable[[argparse.Namespace], Any] | None = None  # forge's sources
    make_embedder: Callable[[argparse.Namespace], Any] | None = None  # forge's embedder
    stderr: Any = field(default=None)
    extra: dict[str, Any] = field(default_factory=dict)

    def err(self):
        return self.stderr or sys.stderr


def embedding_cache_dir() -> Path:
    """Where the file copy of embeddings lives: $XDG_CACHE_HOME/eem-engine/embeddings."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "eem-engine" / "embeddings"


# --- argument types ----------------------------------------------------------------------
def _whole_number(text: str, minimum: int, wanted: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"must be {wanted}, got {value}")
    return value


def positive_int(text: str) -> int:
    return _whole_number(text, 1, "at least 1")


def non_negative_int(text: str) -> int:
    return _whole_number(text, 0, "0 or more")


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be above 0, got {text}")
    return value


def share(text: str) -> float:
    value = positive_float(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], got {text}")
    return value


# --- the shared flags --------------------------------------------------------------------
def add_model_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", metavar="SPEC",
                   help="the chat model: ollama:<name>, anthropic:<name>, openai:<name>, "
                        "local[:<file.gguf>], py:<module>:<callable>, replay:<report.json>")
    p.add_argument("--structured", action="store_true",
                   help="ask the provider for JSON restricted to the ids the round shows")
    p.add_argument("--timeout", type=positive_float, default=600.0, metavar="S",
                   help="seconds per model call before it is retried (default 600)")


def add_parallel_flag(group: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    group.add_argument("--parallel", type=positive_int, default=1, metavar="N",
                       help="up to N model calls in flight at once; each round is still "
                            "checked and applied on its own, in order (default 1)")


def add_mode_flags(p: argparse.ArgumentParser, default_output: str, *,
                   dry_rounds_help: str = "stop after K consecutive dry rounds (default 1)",
                   parallel: bool = True) -> argparse._ArgumentGroup:
    """`parallel`: offer --parallel (not derive, whose every round must see the last)."""
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
        add_parallel_flag(mode)
    return mode


def add_output_flags(p: argparse.ArgumentParser) -> None:
    out = p.add_argument_group("output")
    out.add_argument("--report-dir", default="reports", metavar="DIR",
                     help="where the JSON report goes (default reports/)")
    out.add_argument("--no-report", action="store_true", help="write no report")
    out.add_argument("--json", action="store_true", help="print the report's totals as JSON")
    out.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    out.add_argument("--debug", action="store_true", help="show tracebacks")


def subcommand_parser(prog: str, name: str, description: str, epilog: str,
                      add_arguments: Callable[[argparse.ArgumentParser], object] | None = None,
                      *, json_help: str = "print the result as JSON"
                      ) -> argparse.ArgumentParser:
    """`<stage> NAME ... [--json] [--debug]`: `add_arguments` adds the subcommand's own."""
    p = argparse.ArgumentParser(prog=f"{prog} {name}", description=description, epilog=epilog,
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                allow_abbrev=False)
    if add_arguments is not None:
        add_arguments(p)
    p.add_argument("--json", action="store_true", help=json_help)
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    return p


def accept_parser(prog: str, description: str, epilog: str,
                  file_help: str = "a proposals file") -> argparse.ArgumentParser:
    """`<stage> accept FILE [--json] [--debug]`; the stage adds its own flags."""
    return subcommand_parser(prog, "accept", description, epilog,
                             lambda p: p.add_argument("file", metavar="FILE", help=file_help))


def check_mode_args(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Conflicts argparse cannot see; each is a usage error (exit 2)."""
    if not args.dry_run and not args.model:
        p.error("--model is required (or --dry-run to print the prompt only)")
    if args.output is not None and (args.auto or args.exhaust):
        p.error("-o/--output is for runs without --auto/--exhaust (they apply what is valid)")
    if args.dry_rounds is not None and not args.exhaust:
        p.error("--dry-rounds needs --exhaust")


def run_params(args: argparse.Namespace, **extra: Any) -> dict[str, Any]:
    """Every parameter as given (less the output switches), and `extra` over them."""
    skip = {"debug", "json", "quiet"}
    return {**{k: v for k, v in sorted(vars(args).items()) if k not in skip}, **extra}


def run_options(args: argparse.Namespace, binding: ModelBinding | None, *, default_output: str,
                accept_command: str, params: dict[str, Any], dry_rounds: int = 1
                ) -> RunOptions:
    output = None
    if not (args.auto or args.exhaust):
        output = Path(args.output or default_output)
    return RunOptions(
        model=args.model or "",
        auto=args.auto or args.exhaust,
        exhaust=args.exhaust,
        max_rounds=args.max_rounds,
        dry_rounds=args.dry_rounds if args.dry_rounds is not None else dry_rounds,
        calls=CallPolicy(timeout=args.timeout,
                         is_transient=binding.is_transient if binding else default_is_transient),
        output=output,
        accept_command=f"{accept_command} {output}" if output else accept_command,
        params=params,
        parallel=getattr(args, "parallel", 1),
    )


def report_file(args: argparse.Namespace, stage: str) -> ReportFile:
    if args.no_report:
        return ReportFile(None)
    return ReportFile(report_path(Path(args.report_dir), utc_now(), stage))


# --- rendering ---------------------------------------------------------------------------
class StderrProgress:
    def __init__(self, stream):
        self.stream = stream

    def round_started(self, n: int, max_rounds: int) -> None:
        print(f"round {n}/{max_rounds}: asking the model...", file=self.stream, flush=True)

    def round_finished(self, r: RoundResult) -> None:
        if r.error:
            print(f"round {r.n}: error: {r.error}", file=self.stream, flush=True)
            return
        print(f"round {r.n}: {r.outcome}: {len(r.shown)} shown, "
              f"{len(r.proposals)} proposed, {len(r.valid)} valid, {len(r.applied)} applied "
              f"({r.applied_in} IN), {len(r.skipped)} skipped; {r.calls} call(s), "
              f"{r.tokens_in}+{r.tokens_out} tokens, {r.seconds:.1f} s",
              file=self.stream, flush=True)


def progress_for(args: argparse.Namespace, wiring: ErrorStream) -> StderrProgress | None:
    return None if args.quiet else StderrProgress(wiring.err())


def print_run(result: RunResult, args: argparse.Namespace, wiring: ErrorStream, prog: str
              ) -> int:
    """The summary table (or the totals as JSON); exit 1 when the run ended in error."""
    report = result.report
    if args.json:
        print_json({"run_id": result.run_id, "stage": report.stage,
                    "status": report.status.value, "stopped": report.stopped,
                    "report": str(result.report_path) if result.report_path else None,
                    "proposals_file": str(report.proposals_file) if report.proposals_file
                    else None, "totals": report.totals.to_json(), "error": report.error})
    else:
        print(summary_table(report))
        print(f"run {result.run_id}: {report.status.value}, stopped: {report.stopped}")
        if result.report_path:
            print(f"report: {result.report_path}")
        if report.proposals_file:
            print(f"proposals: {report.proposals_file} "
                  f"(apply with: {prog} accept {report.proposals_file})")
    if report.status is RunStatus.ERROR:
        print(f"Error: {report.error}", file=wiring.err())
        return 1
    return 0


def print_accept(result: AcceptResult, args: argparse.Namespace) -> int:
    applied = result.applied
    if args.json:
        print_json({
            "run_id": result.run_id,
            "parse": result.parse.as_dict(),
            "applied": [dict(e) for e in applied.entries],
            "skipped": [s.as_dict() for s in applied.checked.skipped],
            "change": applied.change.as_dict(),
        })
        return 0
    for d in result.parse.diagnostics:
        print(f"rejected (line {d.line}): {d.reason}" if d.line else f"rejected: {d.reason}")
    for s in applied.checked.skipped:
        print(f"skipped {s.id}: {s.reason}")
    for entry in applied.entries:
        truth = entry.get("truth_value")
        print(f"applied {entry['id']}" + (f" [{truth}]" if truth else ""))
    print(f"run {result.run_id}: {len(applied.entries)} applied, "
          f"{len(applied.checked.skipped)} skipped, {len(result.parse.diagnostics)} rejected")
    return 0


@dataclass(frozen=True)
class Subcommand:
    """`<stage> NAME ...`: its parser and what it runs (accept, undo, status, ...)."""

    build_parser: Callable[[], argparse.ArgumentParser]
    run: Callable[[argparse.Namespace, Any], int]


@dataclass(frozen=True)
class StageCommand:
    """A stage's command line: the run command (its parser, the checks argparse cannot make,
    what it runs) and its subcommands by name."""

    build_parser: Callable[[], argparse.ArgumentParser]
    run: Callable[[argparse.Namespace, Any], int]
    check: Callable[[argparse.ArgumentParser, argparse.Namespace], None] = check_mode_args
    subcommands: Mapping[str, Subcommand] = field(default_factory=dict)


def stage_main(command: StageCommand, argv: Sequence[str] | None, wiring: Any) -> int:
    """The one entry of every stage command: a subcommand when the first word names one,
    else the run; errors become one `Error:` line and the exit code (engine/cli/support)."""
    words = list(sys.argv[1:] if argv is None else argv)
    sub = command.subcommands.get(words[0]) if words else None
    if sub is not None:
        args = sub.build_parser().parse_args(words[1:])
        return run_guarded(lambda: sub.run(args, wiring), debug=args.debug)
    parser = command.build_parser()
    args = parser.parse_args(words)
    command.check(parser, args)
    return run_guarded(lambda: command.run(args, wiring), debug=args.debug)
