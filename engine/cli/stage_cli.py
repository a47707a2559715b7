"""What every LLM stage's command line shares, and the one skeleton each stage CLI is: a
StageCommand declares the stage's program, texts, own flags, run and subcommands; the
skeleton adds the shared flags (`--model`, the run mode `--auto`, `--exhaust`,
`--max-rounds`, `--dry-rounds`, `--dry-run`, `-o`, `--parallel`, the report flags), parses,
dispatches a subcommand by its first word, and maps errors to one `Error:` line and the exit code.
`run_rounds` is the run command of a stage on the shared loop (engine/stages/run.py) and
`accept_subcommand` its `accept FILE`. The outside things a stage is wired to (the model,
embedders, forge's reader, derive's sampler) live in engine/cli/stage_parts.py and are
re-exported here: a stage CLI imports only this module and engine/cli/support.py.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from engine.cli.stage_parts import (
    FORGE_OUTPUT,
    AskModel,
    ModelBinding,
    Wiring,
    ask_backend,
    build_ask_model,
    build_model,
    domain_flag,
    embedding_cache_dir,
    embedding_model_flag,
    forge_own_files,
    forge_root,
    forge_stage_factory,
    has_tool_calling,
    id_list,
    local_tokenizer,
    make_embedder,
    make_reader,
    make_sampler,
    non_negative_int,
    positive_float,
    positive_int,
    premise_check_flags,
    root_flag,
    sentence_embedder,
    share,
    source_flags,
    strategy_of,
    vector_cache,
)
from engine.cli.support import print_json, run_guarded, table
from engine.clock import utc_now
from engine.stages.accept import AcceptResult
from engine.stages.calls import CallPolicy, default_is_transient
from engine.stages.report import (
    ReportFile,
    RoundResult,
    RunStatus,
    report_path,
    round_notes,
    summary_table,
    unanswered_line,
)
from engine.stages.run import RunOptions, RunResult
from engine.stages.stage import Stage
from engine.store import Store

Options = TypeVar("Options", bound=RunOptions)

__all__ = [
    "FORGE_OUTPUT", "TURNS_DRY_ROUNDS_HELP", "AskModel", "ModelBinding", "Rounds",
    "StageCommand", "Subcommand", "Wiring",
    "accept_parser", "accept_subcommand", "add_candidate_flags", "add_mode_flags",
    "add_model_flags", "add_output_flags", "ask_backend", "build_ask_model", "build_model",
    "add_parallel_flag", "budget_flag", "candidate_source", "check_mode_args", "domain_flag",
    "embedding_cache_dir", "embedding_model_flag",
    "forge_own_files", "forge_root", "forge_stage_factory", "gaps_subcommand",
    "has_tool_calling", "id_list", "local_tokenizer", "make_embedder",
    "make_reader", "make_sampler", "non_negative_int", "positive_float", "positive_int",
    "premise_check_flags", "print_accept", "print_run", "progress_for", "report_file",
    "root_flag", "run_examples", "run_options", "run_params", "run_rounds",
    "sentence_embedder", "share", "source_flags", "stage_main", "stage_parser", "strategy_of",
    "subcommand_parser", "usage", "vector_cache",
]


class ErrorStream(Protocol):
    """What printing a run needs of a command's wiring: where errors go."""

    def err(self) -> Any: ...


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


# --dry-rounds of a stage that takes turns (review, premise review, repair)
TURNS_DRY_ROUNDS_HELP = ("stop after K consecutive dry rounds that show nothing for the first "
                         "time (default 2: as many as an item is shown without an answer)")


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


def add_output_flags(p: argparse.ArgumentParser, *,
                     json_help: str = "print the report's totals as JSON") -> None:
    out = p.add_argument_group("output")
    out.add_argument("--report-dir", default="reports", metavar="DIR",
                     help="where the JSON report goes (default reports/)")
    out.add_argument("--no-report", action="store_true", help="write no report")
    out.add_argument("--json", action="store_true", help=json_help)
    out.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    out.add_argument("--debug", action="store_true", help="show tracebacks")


def add_candidate_flags(p: argparse.ArgumentParser, *, threshold: float, what: str) -> None:
    """How pairs of beliefs are found (dedup and contradictions): by meaning or id tokens."""
    from engine.dedup.stage import DEFAULT_ID_THRESHOLD, DEFAULT_K

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


def candidate_source(args: argparse.Namespace, options: Any, wiring: Wiring,
                     stage_name: str = "dedup") -> Any:
    """The neighbour search of `options` (a DedupOptions): embeddings from the store,
    computed by the local sentence-transformers model where missing (a test's embedder from
    wiring.extra["embedder"]); none with --by-id."""
    from engine.dedup.stage import CandidateSource

    embedder = cache = None
    if not options.by_id:
        make = wiring.extra.get("embedder")
        if make is not None:
            embedder = make(args)
        else:
            embedder, cache = sentence_embedder(args.embedding_model), vector_cache()
    return CandidateSource(options, embedder=embedder, cache=cache, stage=stage_name)


RUN_EXIT_CODES = """\
exit codes: 0 ok; 1 the run ended in error (the model failed after its tries; nothing of
that round was applied); 2 bad input or usage, or the store cannot be reached.
"""


def usage(prog: str, *forms: str) -> str:
    """A command's usage: `prog` and each of its forms, a line each, aligned under the
    `usage: ` argparse prints first."""
    return "\n       ".join(f"{prog} {form}" for form in forms)


def run_examples(prog: str, proposals_file: str, what: str, accept: str,
                 *more: tuple[str, str]) -> str:
    """The epilog of a stage that writes its `what` to `proposals_file`: a dry run, one round,
    `accept` the file (what accepting does), then `more` (the words after `prog`, what they
    do), and the exit codes."""
    shown = (("--dry-run", "print the prompt round 1 would send; no model is called"),
             ("--model ollama:qwen3:8b", f"one round; the {what} go to {proposals_file}; "
                                         "nothing is written to the network"),
             (f"accept {proposals_file}", f"{accept} (see: {prog} accept --help)"), *more)
    return ("examples:\n" + "".join(f"  {prog} {words}\n      {does}\n" for words, does in shown)
            + "\n" + RUN_EXIT_CODES)


def budget_flag(p: argparse.ArgumentParser | argparse._ArgumentGroup, default: int,
                items: str) -> None:
    """`--budget N`: how many `items` a round of a stage that judges one at a time shows."""
    p.add_argument("--budget", type=positive_int, default=default, metavar="N",
                   help=f"{items} per round (default {default})")


def accept_examples(prog: str, proposals_file: str, flags: str = "--json") -> str:
    """The epilog of a stage's `accept`."""
    return f"example:\n  {prog} accept {proposals_file} {flags}\n"


def stage_parser(prog: str, usage: str | None, description: str, epilog: str
                 ) -> argparse.ArgumentParser:
    """A command's parser: its examples shown as written, no abbreviated flags."""
    return argparse.ArgumentParser(prog=prog, usage=usage, description=description,
                                   epilog=epilog,
                                   formatter_class=argparse.RawDescriptionHelpFormatter,
                                   allow_abbrev=False)


def subcommand_parser(prog: str, name: str, description: str, epilog: str,
                      add_arguments: Callable[[argparse.ArgumentParser], object] | None = None,
                      *, json_help: str = "print the result as JSON"
                      ) -> argparse.ArgumentParser:
    """`<stage> NAME ... [--json] [--debug]`: `add_arguments` adds the subcommand's own."""
    p = stage_parser(f"{prog} {name}", None, description, epilog)
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
                accept_command: str, params: dict[str, Any], dry_rounds: int | None = None,
                kind: type[Options] = RunOptions, **own: Any) -> Options:  # type: ignore[assignment]
    """The shared flags as run options: a RunOptions, or `kind` (a stage's own options type,
    derive's DeriveOptions) with the stage's `own` fields. `dry_rounds` without --dry-rounds;
    None leaves it to the run (1, or a stage's turns)."""
    output = None
    if not (args.auto or args.exhaust):
        output = Path(args.output or default_output)
    return kind(
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
        **own,
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
        for line in round_notes(r):
            print(line, file=self.stream, flush=True)


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
                    else None, "totals": report.totals.to_json(), "error": report.error,
                    **({} if report.unanswered is None else {"unanswered": report.unanswered})})
    else:
        print(summary_table(report))
        print(f"run {result.run_id}: {report.status.value}, stopped: {report.stopped}")
        unanswered = unanswered_line(report)
        if unanswered:
            print(unanswered)
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


def _no_flags(p: argparse.ArgumentParser) -> None:
    pass


@dataclass(frozen=True)
class Rounds:
    """A run on the shared loop (`run_rounds`) of the stage made from the command line, made
    before the model is built; `nothing_due`: what --dry-run says when round 1 is empty."""

    stage_name: str
    make_stage: Callable[[argparse.Namespace, Wiring], Stage]
    nothing_due: str | Callable[[Mapping[str, Any]], str] | None = None


@dataclass(frozen=True)
class StageCommand:
    """A stage's command line, declared: its program and texts, its own flags
    (`add_arguments`), which shared flags it takes, the checks argparse cannot make, what
    the run does (`run`, or the shared loop on `rounds`), and its subcommands by name.
    `stage_main` is the one entry."""

    prog: str
    usage: str
    description: str
    epilog: str
    run: Callable[[argparse.Namespace, Any], int] | None = None
    rounds: Rounds | None = None
    add_arguments: Callable[[argparse.ArgumentParser], None] = _no_flags
    check: Callable[[argparse.ArgumentParser, argparse.Namespace], None] = check_mode_args
    subcommands: Mapping[str, Subcommand] = field(default_factory=dict)
    default_output: str | None = None  # the proposals file, for runs without --auto
    mode_flags: bool = True  # the shared mode flags (a stage with a proposals file)
    dry_rounds_help: str = "stop after K consecutive dry rounds (default 1)"
    parallel: bool = True  # offer --parallel (not derive or repair: each round sees the last)
    model_flags: bool = True
    json_help: str = "print the report's totals as JSON"

    def build_parser(self) -> argparse.ArgumentParser:
        p = stage_parser(self.prog, self.usage, self.description, self.epilog)
        if self.model_flags:
            add_model_flags(p)
        if self.default_output is not None and self.mode_flags:
            add_mode_flags(p, self.default_output, dry_rounds_help=self.dry_rounds_help,
                           parallel=self.parallel)
        self.add_arguments(p)
        add_output_flags(p, json_help=self.json_help)
        return p


def named(parser: argparse.ArgumentParser, own: str, prog: str | None
          ) -> argparse.ArgumentParser:
    """The parser of the program `own` (python -m engine.derive) going by `prog` (eem
    derive): its name in the usage, the description and the examples."""
    if prog and prog != own:
        for text in ("prog", "usage", "description", "epilog"):
            value = getattr(parser, text)
            if value:
                setattr(parser, text, value.replace(own, prog))
    return parser


def stage_main(command: StageCommand, argv: Sequence[str] | None, wiring: Any,
               prog: str | None = None) -> int:
    """The one entry of every stage command: a subcommand when the first word names one,
    else the run; errors become one `Error:` line and the exit code (engine/cli/support).
    `prog`: the name the program goes by, when not its own (`eem derive`)."""
    words = list(sys.argv[1:] if argv is None else argv)
    sub = command.subcommands.get(words[0]) if words else None
    if sub is not None:
        args = named(sub.build_parser(), command.prog, prog).parse_args(words[1:])
        return run_guarded(lambda: sub.run(args, wiring), debug=args.debug)
    parser = named(command.build_parser(), command.prog, prog)
    args = parser.parse_args(words)
    args.prog = parser.prog  # the name it goes by, for hints

    def run() -> int:
        command.check(parser, args)  # a usage error, or InvalidInput: one `Error:` line
        return run_command(command, args, wiring)

    return run_guarded(run, debug=args.debug)


def run_command(command: StageCommand, args: argparse.Namespace, wiring: Wiring) -> int:
    """What `command` runs: its own `run`, or the shared loop on its `rounds`."""
    if command.run is not None:
        return command.run(args, wiring)
    assert command.rounds is not None, f"{command.prog} declares neither run nor rounds"
    r = command.rounds
    stage = r.make_stage(args, wiring)
    return run_rounds(command, r.stage_name, args, wiring, lambda store: stage,
                      nothing_due=r.nothing_due)


def run_rounds(command: StageCommand, stage_name: str, args: argparse.Namespace,
               wiring: Wiring, make_stage: Callable[[Store], Stage], *,
               params: dict[str, Any] | None = None,
               nothing_due: str | Callable[[Mapping[str, Any]], str] | None = None) -> int:
    """A stage's run command on the shared loop: the model first (so a bad one fails before
    any work), then the stage over the store; `--dry-run` prints round 1's prompt (or
    `nothing_due`, or what it says of the round's details, when the round is empty) and
    calls no model. (Derive has its own way into a run: engine/cli/derive.py.)"""
    from engine.stages.run import run_stage

    binding = None if args.dry_run else wiring.build_model(args)
    with wiring.open_store() as store:
        stage = make_stage(store)
        if args.dry_run:
            shown = stage.read_round(store, 1)
            if nothing_due is not None and shown.empty:
                print(nothing_due if isinstance(nothing_due, str) else
                      nothing_due(shown.details), file=wiring.err())
                return 0
            sys.stdout.write(shown.prompt.text)
            return 0
        assert binding is not None  # made for every run but a dry one
        assert command.default_output is not None  # a stage on the loop has a proposals file
        options: RunOptions = run_options(
            args, binding, default_output=command.default_output,
            accept_command=f"{command.prog} accept",
            params=params if params is not None else run_params(args))
        result = run_stage(store, stage, binding.model_for_round, options,
                           report_file=report_file(args, stage_name),
                           progress=progress_for(args, wiring), cost=binding.cost)
    return print_run(result, args, wiring, command.prog)


def accept_subcommand(prog: str, description: str, epilog: str,
                      make_stage: Callable[[argparse.Namespace, Wiring], Stage], *,
                      add_arguments: Callable[[argparse.ArgumentParser], None] = _no_flags,
                      params: Callable[[argparse.Namespace], dict[str, Any]] | None = None,
                      file_help: str = "a proposals file") -> Subcommand:
    """`<stage> accept FILE`: the stage's parser, validation and apply over a proposals file
    in one write transaction (engine/stages/accept.py); `params` go into the Run node."""

    def build() -> argparse.ArgumentParser:
        p = accept_parser(prog, description, epilog, file_help)
        add_arguments(p)
        return p

    def run(args: argparse.Namespace, wiring: Wiring) -> int:
        from engine.stages.accept import accept

        stage = make_stage(args, wiring)
        with wiring.open_store() as store:
            result = accept(store, stage, Path(args.file),
                            params=params(args) if params else None)
        return print_accept(result, args)

    return Subcommand(build, run)


def gaps_subcommand(prog: str) -> Subcommand:
    """`<prog> gaps [--limit N] [--json]`: the premises repair's research said the network
    lacks (offered by repair, and by forge, which might go and find them)."""
    def build() -> argparse.ArgumentParser:
        return subcommand_parser(
            prog, "gaps", "List the premises repair's research said the network lacks, "
                          "newest first, with the belief each is for and its label.",
            f"example:\n  {prog} gaps --limit 20\n",
            lambda p: p.add_argument("--limit", type=positive_int, default=50, metavar="N",
                                     help="at most N gaps (default 50)"))

    def run(args: argparse.Namespace, wiring: Wiring) -> int:
        with wiring.open_store() as store:
            gaps, total = store.read(lambda tx: tx.gaps(args.limit))
        if args.json:
            print_json({"total": total, "gaps": [g.as_dict() for g in gaps]})
            return 0
        if not gaps:
            print("no gaps recorded")
            return 0
        print(table([(g.for_belief, g.justification, g.truth, g.text, g.at) for g in gaps],
                    ("for", "justification", "truth", "gap", "at")))
        print(f"{len(gaps)} of {total} gap(s)")
        return 0

    return Subcommand(build, run)
