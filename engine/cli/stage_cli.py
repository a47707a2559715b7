"""The one skeleton every stage program's command line is. A StageCommand declares the
program's texts, its own flags, the checks argparse cannot make, its run (its own, or the
shared loop on `rounds`) and its subcommands; `stage_main` parses (a subcommand by its
first word), builds the Context from the caller's environment (engine/wiring/), hands the
handler a StageCall (the Call of engine/cli/command.py with the outside things the stages
are wired to) and maps errors to one `Error:` line and the exit code. A handler builds its
stage's options record from the flags, calls the library, and renders to the streams it
is handed. `run_rounds` runs a stage on the shared loop (engine/stages/run.py),
`accept_subcommand` is a stage's `accept FILE`.
"""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypedDict

from engine.cli.command import Adds, Call, add_all, listing
from engine.cli.main import Streams, caller_context, guarded
from engine.cli.stage_flags import (
    TURNS_DRY_ROUNDS_HELP,
    mode_flags,
    model_flags,
    model_spec,
    output_flags,
    positive_int,
)
from engine.wiring.parts import StageParts, vector_cache

if TYPE_CHECKING:
    from engine.graph import GraphTx
    from engine.embedding.cache import VectorCache
    from engine.pairs.source import CandidateSource, Nearness
    from engine.service.context import Context
    from engine.stages.calls import CallPolicy
    from engine.stages.report import ReportFile, RoundResult
    from engine.stages.run import RunResult
    from engine.stages.stage import LoopStage

__all__ = ["TURNS_DRY_ROUNDS_HELP"]


@dataclass(frozen=True)
class StageCall(Call):
    """A stage program's command being run: a Call, and how the outside things a stage is
    wired to are made."""

    parts: StageParts = StageParts()

    def program(self, name: str = "") -> str:
        """The command line of another program (`name`: "" for the memory's commands) under
        the name this one was called by: `eem review` beside `eem pipeline`,
        `python -m engine.review` beside `python -m engine.pipeline`."""
        return program(self.context.prog, name)

    @property
    def folder(self) -> Path:
        """The folder the command was typed in."""
        return self.context.folder or Path.cwd()

    def write(self, text: str) -> None:
        self.out.write(text)

    def vector_cache(self) -> VectorCache:
        return vector_cache(self.context.cache_folder, self.context.umask)

    def candidates(self, near: Nearness, stage: str) -> CandidateSource:
        """dedup's or contradictions' neighbour search, by `--embedding-model`."""
        return self.parts.candidates(near, stage, model=self.args.embedding_model,
                                     cache=self.vector_cache())


def program(prog: str, name: str = "") -> str:
    base, dot, _ = prog.rpartition(".")
    if dot and base.startswith("python -m"):
        return f"{base}.{name}" if name else base
    head = prog.rsplit(" ", 1)[0] if " " in prog else prog
    return f"{head} {name}" if name else head


# --- texts -------------------------------------------------------------------------------
RUN_EXIT_CODES = """\
exit codes: 0 ok; 1 the run ended in error (the model failed after its tries; nothing of
that round was applied); 2 bad input or usage, or the store cannot be reached.
"""


def usage(prog: str, *forms: str) -> str:
    """A command's usage: `prog` and each of its forms, a line each."""
    return "\n       ".join(f"{prog} {form}" for form in forms)


def run_examples(prog: str, proposals_file: str, what: str, accept: str,
                 *more: tuple[str, str], dry_run: str = "--dry-run") -> str:
    """The epilog of a stage that writes its `what` to `proposals_file`: a dry run (`dry_run`
    its words), one round, `accept` the file, then `more` (the words after `prog`, what they
    do), the exit codes."""
    shown = ((dry_run, "print the prompt round 1 would send; no model is called"),
             ("--model ollama:qwen3:8b", f"one round; the {what} go to {proposals_file}; "
                                         "nothing is written to the network"),
             (f"accept {proposals_file}", f"{accept} (see: {prog} accept --help)"), *more)
    return ("examples:\n" + "".join(f"  {prog} {words}\n      {does}\n" for words, does in shown)
            + "\n" + RUN_EXIT_CODES)


def stage_parser(prog: str, usage: str | None, description: str, epilog: str
                 ) -> argparse.ArgumentParser:
    """A command's parser: its examples shown as written, no abbreviated flags."""
    return argparse.ArgumentParser(prog=prog, usage=usage, description=description,
                                   epilog=epilog, allow_abbrev=False,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)


def subcommand_parser(prog: str, name: str, description: str, epilog: str,
                      add_arguments: Adds | Sequence[Adds] = (),
                      *, json_help: str = "print the result as JSON"
                      ) -> argparse.ArgumentParser:
    """`<stage> NAME ... [--json] [--debug]`: `add_arguments` adds the subcommand's own."""
    p = stage_parser(f"{prog} {name}", None, description, epilog)
    add_all(p, add_arguments)
    p.add_argument("--json", action="store_true", help=json_help)
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    return p


def check_mode_args(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Conflicts argparse cannot see; each is a usage error (exit 2)."""
    if not args.dry_run and not args.model:
        p.error("--model is required (or --dry-run to print the prompt only)")
    if args.output is not None and (args.auto or args.exhaust):
        p.error("-o/--output is for runs without --auto/--exhaust (they apply what is valid)")
    if args.dry_rounds is not None and not args.exhaust:
        p.error("--dry-rounds needs --exhaust")


# --- the command -------------------------------------------------------------------------
Handler = Callable[[StageCall], int]


@dataclass(frozen=True)
class Subcommand:
    """`<stage> NAME ...`: its parser and what it runs (accept, undo, status, ...)."""

    build_parser: Callable[[], argparse.ArgumentParser]
    run: Handler


@dataclass(frozen=True)
class Rounds:
    """A run on the shared loop (`run_rounds`) of the stage the call makes (after the
    model); `nothing_due`: what --dry-run says when round 1 is empty."""

    make_stage: Callable[[StageCall], LoopStage[GraphTx]]
    nothing_due: str | Callable[[Mapping[str, object]], str] | None = None


@dataclass(frozen=True)
class StageCommand:
    """A stage's command line, declared; `stage_main` is its one entry."""

    prog: str
    usage: str
    description: str
    epilog: str
    run: Handler | None = None
    rounds: Rounds | None = None
    add_arguments: Adds | Sequence[Adds] = ()
    check: Callable[[argparse.ArgumentParser, argparse.Namespace], None] = check_mode_args
    subcommands: Mapping[str, Subcommand] = field(default_factory=dict)
    default_output: str | None = None  # the proposals file of the shared mode flags
    dry_rounds_help: str = "stop after K consecutive dry rounds (default 1)"
    parallel: bool = True  # offer --parallel (not derive or repair: each round sees the last)
    model_flags: bool = True
    json_help: str = "print the report's totals as JSON"

    def build_parser(self) -> argparse.ArgumentParser:
        p = stage_parser(self.prog, self.usage, self.description, self.epilog)
        if self.model_flags:
            model_flags()(p)
        if self.default_output is not None:
            mode_flags(p, self.default_output, dry_rounds_help=self.dry_rounds_help,
                       parallel=self.parallel)
        add_all(p, self.add_arguments)
        output_flags(self.json_help)(p)
        return p


def named(parser: argparse.ArgumentParser, own: str, prog: str) -> argparse.ArgumentParser:
    """The parser of the program `own` (python -m engine.derive) going by `prog` (eem
    derive): its name in the usage, the description and the examples."""
    if prog != own:
        parser.prog = parser.prog.replace(own, prog)
        for name in ("usage", "description", "epilog"):
            text = getattr(parser, name)
            if text:
                setattr(parser, name, text.replace(own, prog))
    return parser


class Main(Protocol):
    def __call__(self, argv: Sequence[str] | None = None, *, prog: str = ...,
                 context: Context | None = None, parts: StageParts | None = None) -> int: ...


def entry(command: StageCommand) -> Main:
    """A stage program's `main(argv, prog=...)` (eem's programs call it so), which a caller
    may hand its own `context` and `parts` (a test's store and model)."""
    def main(argv: Sequence[str] | None = None, *, prog: str = command.prog,
             context: Context | None = None, parts: StageParts | None = None) -> int:
        return stage_main(command, argv, prog, context=context, parts=parts)

    return main


def stage_main(command: StageCommand, argv: Sequence[str] | None, prog: str, *,
               context: Context | None = None, parts: StageParts | None = None,
               streams: Streams | None = None) -> int:
    """Run a stage program's command line: a subcommand when the first word names one,
    else the run. `context`, `parts`, `streams`: a caller's own (a test's store, model,
    buffers); by default this process's environment, folder and streams."""
    streams = streams or Streams(sys.stdout, sys.stderr, sys.stdin)
    words = list(sys.argv[1:] if argv is None else argv)
    sub = command.subcommands.get(words[0]) if words else None
    parser = named(sub.build_parser() if sub else command.build_parser(), command.prog, prog)
    args = parser.parse_args(words[1:] if sub else words)

    def run() -> int:
        if sub is None:
            command.check(parser, args)  # a usage error, or InvalidInput: one `Error:` line
        with (nullcontext((None, None, context)) if context else
              caller_context(os.environ, os.getcwd(), prog, None, sys.stderr)) as (_, _, ctx):
            call = StageCall(args, ctx, streams.out, streams.err, streams.stdin,
                             parts=parts or StageParts())
            if sub is not None:
                return sub.run(call)
            if command.run is not None:
                return command.run(call)
            assert command.rounds is not None, f"{command.prog} declares neither run nor rounds"
            return run_rounds(call, command, command.rounds.make_stage,
                              nothing_due=command.rounds.nothing_due)

    return guarded(run, debug=args.debug, err=streams.err)


# --- a run on the shared loop ------------------------------------------------------------
def run_params(args: argparse.Namespace, **extra: object) -> dict[str, object]:
    """Every parameter as given (less the output switches), and `extra` over them."""
    skip = {"debug", "json", "quiet"}
    return {**{k: v for k, v in sorted(vars(args).items()) if k not in skip}, **extra}


class RunFields(TypedDict):
    """The shared flags as the fields of engine/stages/run.RunOptions (and of a stage's
    options that extend it, derive's)."""

    model: str
    auto: bool
    exhaust: bool
    max_rounds: int
    dry_rounds: int | None
    calls: CallPolicy
    output: Path | None
    accept_command: str
    params: Mapping[str, object]
    parallel: int
    umask: int | None


def run_fields(call: StageCall, command: StageCommand, *,
               is_transient: Callable[[BaseException], bool] | None = None,
               params: Mapping[str, object] | None = None) -> RunFields:
    """`is_transient`: the model's (ModelBinding); `params`: the Run node's (default: every
    flag as given). Without --dry-rounds the run decides (1, a stage's turns, derive's k)."""
    from engine.stages.calls import CallPolicy, default_is_transient

    a = call.args
    output = None if a.auto or a.exhaust else Path(a.output or str(command.default_output))
    return RunFields(
        model=a.model or "", auto=a.auto or a.exhaust, exhaust=a.exhaust,
        max_rounds=a.max_rounds, dry_rounds=a.dry_rounds,
        calls=CallPolicy(timeout=a.timeout, is_transient=is_transient or default_is_transient),
        output=output, accept_command=call.command(f"accept {output}") if output else "",
        params=dict(params if params is not None else run_params(a)), parallel=a.parallel,
        umask=call.context.umask)


def report_file(call: StageCall, stage: str) -> ReportFile:
    from engine.clock import utc_now
    from engine.stages.report import ReportFile, report_path

    if call.args.no_report:
        return ReportFile(None)
    return ReportFile(report_path(Path(call.args.report_dir), utc_now(), stage),
                      umask=call.context.umask)


class StderrProgress:
    """Each round, as it starts and ends, on the call's stderr."""

    def __init__(self, call: StageCall):
        self.call = call

    def round_started(self, n: int, max_rounds: int) -> None:
        self.call.note(f"round {n}/{max_rounds}: asking the model...")

    def round_finished(self, r: RoundResult) -> None:
        from engine.stages.report import round_progress

        for line in round_progress(r):
            self.call.note(line)


def progress(call: StageCall) -> StderrProgress | None:
    return None if call.args.quiet else StderrProgress(call)


def run_rounds(call: StageCall, command: StageCommand,
               make_stage: Callable[[StageCall], LoopStage[GraphTx]], *,
               params: Mapping[str, object] | None = None,
               nothing_due: str | Callable[[Mapping[str, object]], str] | None = None) -> int:
    """A stage's run on the shared loop: the model first (so a bad one fails before any
    work), then the stage; `--dry-run` prints round 1's prompt (or `nothing_due`, or what
    it says of the round's details, when the round is empty) and calls no model."""
    from engine.stages.run import run_stage

    binding = None if call.args.dry_run else call.parts.model(model_spec(call.args))
    stage = make_stage(call)
    store = call.context.store
    if binding is None:
        shown = stage.read_round(store, 1)
        if nothing_due is not None and shown.empty:
            call.note(nothing_due if isinstance(nothing_due, str) else
                      nothing_due(shown.details))
        else:
            call.write(shown.prompt.text)
        return 0
    from engine.stages.run import RunOptions

    result = run_stage(store, stage, binding.model_for_round,
                       RunOptions(**run_fields(call, command, is_transient=binding.is_transient,
                                               params=params)),
                       report_file=report_file(call, stage.name), progress=progress(call),
                       cost=binding.cost)
    return print_run(call, result)


# --- rendering ---------------------------------------------------------------------------
def print_run(call: StageCall, result: RunResult) -> int:
    """The summary table (or the totals as JSON); exit 1 when the run ended in error."""
    from engine.stages.report import RunStatus, run_summary

    report = result.report
    if not call.emit(result):
        call.say(*run_summary(report, result.report_path,
                              call.command(f"accept {report.proposals_file}")))
    if report.status is RunStatus.ERROR:
        call.note(f"Error: {report.error}")
        return 1
    return 0


# --- the shared subcommands --------------------------------------------------------------
def accept_subcommand(prog: str, description: str, example: str,
                      make_stage: Callable[[StageCall], LoopStage[GraphTx]], *,
                      add_arguments: Adds | Sequence[Adds] = (),
                      params: Callable[[StageCall], dict[str, object]] | None = None,
                      file_help: str = "a proposals file") -> Subcommand:
    """`<stage> accept FILE`: the stage's parser, validation and apply over a proposals file
    in one write transaction (engine/stages/accept.py); `params` go into the Run node.
    `example`: the words after `accept` in the example."""

    def build() -> argparse.ArgumentParser:
        p = subcommand_parser(prog, "accept", description,
                              f"example:\n  {prog} accept {example}\n",
                              lambda p: p.add_argument("file", metavar="FILE", help=file_help))
        add_all(p, add_arguments)
        return p

    def run(call: StageCall) -> int:
        from engine.stages.accept import accept

        result = accept(call.context.store, make_stage(call), Path(call.args.file),
                        params=params(call) if params else None)
        if not call.emit(result):
            call.say(*result.lines())
        return 0

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

    def run(call: StageCall) -> int:
        from engine.repair.gaps import recorded_gaps

        found = recorded_gaps(call.context.store, call.args.limit)
        if listing(call, found, found.gaps, empty="no gaps recorded",
                   row=lambda g: (g.for_belief, g.justification, g.truth, g.text, g.at),
                   headers=("for", "justification", "truth", "gap", "at")):
            call.say(f"{len(found.gaps)} of {found.total} gap(s)")
        return 0

    return Subcommand(build, run)
