"""`eem COMMAND ...` (and `python -m engine COMMAND ...`): the command table, its parser, and
running one parsed command.

`parse` builds only the parser of the command named (all of them for --help or an unknown
command) from the group modules, which import nothing of the library at their top: the
resident engine's client (engine/resident/client.py) parses here before it knows whether it
will need the library at all. `execute` runs a parsed command for a caller: it builds the
Context from the caller's environment, folder and umask (engine/wiring/), hands the handler
the caller's streams, and maps every error to one `Error:` line and an exit code. This
process runs it through `main`; the resident engine runs it for a command typed elsewhere.
"""
from __future__ import annotations

import argparse
import functools
import os
import sys
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.cli import EEM, PROG, agents, embedding, health, history, keeping, memories
from engine.cli import network, proposals, reading, registry, sources, verbs
from engine.cli.arguments import DEBUG, JSON, arg, command_parser, local_path
from engine.cli.command import Call, Command, Reader, Writer

if TYPE_CHECKING:
    from engine.errors import InvalidInput
    from engine.service.context import Context
    from engine.wiring.memories import Memory
    from engine.wiring.settings import Settings
    from engine.wiring.store import BorrowedDriver

__all__ = ["COMMANDS", "EEM", "PROG", "Streams", "build_parser", "execute", "main", "parse"]


def _batch(call: Call) -> int:
    from engine.cli.batch import run_batch

    return run_batch(call, _TableRunner())


class _TableRunner:
    """A batch line run by this table's parser and handlers (engine/cli/batch.LineRunner)."""

    def answers_json(self, name: str) -> bool:
        return name in COMMANDS and COMMANDS[name].json

    def run(self, argv: list[str], call: Call, out: Writer, err: Writer) -> int:
        try:
            parsed = parse(argv, str(call.context.folder or "/"), call.context.prog,
                           streams=(out, err))
        except SystemExit as e:  # argparse reports usage errors (and --help) this way
            return e.code if isinstance(e.code, int) else 2
        command = COMMANDS[parsed.command]
        return guarded(lambda: command.handler(Call(parsed, call.context, out, err, call.stdin)),
                       debug=bool(vars(parsed).get("debug")), err=err, prog=call.context.prog)


# The table, in the order --help lists it.
COMMANDS: dict[str, Command] = {
    **{k: network.COMMANDS[k] for k in ("init", "reset")},
    **verbs.COMMANDS,  # add, add-justification, retract, assert, nogood
    "status": network.COMMANDS["status"],
    **health.COMMANDS,  # health
    **{k: reading.COMMANDS[k] for k in ("list", "show", "explain", "trace", "trace-tags")},
    **{k: network.COMMANDS[k] for k in ("what-if", "verify")},
    **registry.COMMANDS,  # import, export
    **{k: reading.COMMANDS[k] for k in ("query", "search")},
    "batch": Command(_batch, "run commands from a file or stdin, one per line, over one "
                     "connection", "batch commands.txt --keep-going",
                     (arg("file", nargs="?", default="-", type=local_path,
                          help="commands, one per line in this CLI's syntax (default -: stdin)"),
                      arg("--keep-going", action="store_true", help="run every line even after "
                          "one fails (exit code: the first failure's)"))),
    "viz": reading.COMMANDS["viz"],
    **{k: reading.COMMANDS[k] for k in ("compact",)},
    **embedding.COMMANDS,  # embed
    **keeping.COMMANDS,  # supersede, challenge, defend, defeat, editing, summarize
    **{k: reading.COMMANDS[k] for k in ("get-metadata",)},
    **history.COMMANDS,  # log, diff, release(s), rollback, revert
    **agents.COMMANDS,  # import-agent, sync-agent, namespaces
    **proposals.COMMANDS,  # propose, proposals, proposal, accept, reject, withdraw
    **{k: reading.COMMANDS[k] for k in ("blockers", "wiki")},
    **sources.COMMANDS,  # sources status|stale|hash|repos, hooks install|uninstall|run
    **memories.COMMANDS,  # memories [forget NAME]
}


def _epilog(prog: str) -> str:
    derive = "python -m engine.derive" if prog == PROG else f"{prog} derive"
    return ("Connection: NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD, NEO4J_DATABASE. A writer "
            "waits for the write lock at most EEM_LOCK_TIMEOUT seconds (60). "
            f"Derive: {derive} --help. A resident engine: {prog} serve start|stop|status")


class CommandParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage, errors and help go to the streams it was given (a
    batch line's buffers), not to this process's; subparsers inherit them."""

    def __init__(self, *args: Any, streams: tuple[Writer | None, Writer | None] = (None, None),
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._streams = streams

    def add_subparsers(self, **kwargs: Any) -> Any:
        kwargs.setdefault("parser_class", functools.partial(type(self), streams=self._streams))
        return super().add_subparsers(**kwargs)

    def _print_message(self, message: str, file: Any = None) -> None:
        out, err = self._streams
        target = (err if file is sys.stderr else out) or file or sys.stdout
        if message:
            target.write(message)


def build_parser(prog: str = PROG, only: str | None = None, *,
                 streams: tuple[Writer | None, Writer | None] = (None, None)
                 ) -> argparse.ArgumentParser:
    """The parser of every command, or of the command `only` alone (when the table has it);
    `prog`: the name it goes by (`eem` under eem); `streams`: where its messages go (out,
    err; None: this process's)."""
    parser = CommandParser(
        prog=prog, description="Justified beliefs in Neo4j with truth maintenance.",
        epilog=_epilog(prog), streams=streams)
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    parser.add_argument("--memory", metavar="NAME",
                        help="the memory to work on (default: the one of the folder you are "
                             "in, found by its .eem/; EEM_MEMORY)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    names = [only] if only in COMMANDS else list(COMMANDS)
    for name in names:
        command = COMMANDS[name]
        p = command_parser(sub, name, command.help, command.help, f"{prog} {command.example}")
        DEBUG(p)
        p.add_argument("--memory", metavar="NAME", default=argparse.SUPPRESS,
                       help="the memory to work on (default: the folder's)")
        if command.json:
            JSON(p)
        else:
            p.set_defaults(json=False)
        command.add_arguments(p)
    return parser


def command_name(argv: Sequence[str]) -> str | None:
    """The command an argument list names: its first word that is not a flag."""
    return next((a for a in argv if not a.startswith("-")), None)


def parse(argv: Sequence[str], folder: str, prog: str = PROG, *,
          streams: tuple[Writer | None, Writer | None] = (None, None)) -> argparse.Namespace:
    """`argv` as typed in `folder`, parsed, its paths absolute; argparse's SystemExit on a
    usage error or --help (it prints them to `streams`)."""
    from engine.cli.arguments import resolve_paths

    parsed = build_parser(prog, command_name(argv), streams=streams).parse_args(list(argv))
    return resolve_paths(parsed, folder)


@dataclass(frozen=True)
class Streams:
    """Where a command writes and what it reads: its caller's."""

    out: Writer
    err: Writer
    stdin: Reader


def current_umask() -> int:
    umask = os.umask(0o077)
    os.umask(umask)
    return umask


def execute(args: argparse.Namespace, environ: Mapping[str, str], streams: Streams, *,
            prog: str = PROG, folder: str = "/", umask: int | None = None,
            borrowed: BorrowedDriver | None = None) -> int:
    """Run a parsed command for a caller with this environment, folder and umask, in the
    memory its folder (or --memory) names; errors become one `Error:` line on the caller's
    stderr and the exit code."""
    def run() -> int:
        with caller_context(environ, folder, prog, umask, streams.err,
                            named=vars(args).get("memory"), borrowed=borrowed) as called:
            settings, memory, context = called
            return COMMANDS[args.command].handler(
                Call(args, context, streams.out, streams.err, streams.stdin, settings, memory))

    return guarded(run, debug=bool(vars(args).get("debug")), err=streams.err, prog=prog)


@contextmanager
def caller_context(environ: Mapping[str, str], folder: str, prog: str, umask: int | None,
                   err: Writer, *, named: str | None = None,
                   borrowed: BorrowedDriver | None = None
                   ) -> Iterator[tuple[Settings, Memory | InvalidInput, Context]]:
    """A caller's settings (its environment, read through engine/wiring/settings), the memory
    its folder is in (or `named`, or EEM_MEMORY's), and the Context of a call made there with
    its umask (None: this process's); notices go to `err`."""
    from pathlib import Path

    from engine.wiring.context import opened
    from engine.wiring.memories import locate
    from engine.wiring.settings import Settings

    settings = Settings.of(environ)
    memory = locate(settings, Path(folder), named)
    with opened(settings, memory, prog=prog, folder=Path(folder),
                umask=current_umask() if umask is None else umask, borrowed=borrowed,
                notice=lambda line: print(line, file=err)) as context:
        yield settings, memory, context


def guarded(command: Callable[[], int], *, debug: bool, err: Writer, prog: str = PROG) -> int:
    """Run a command; map errors to one "Error: ..." line (a command it suggests named under
    `prog`) and an exit code."""
    from engine.errors import EngineError

    try:
        return command()
    except EngineError as e:
        if debug:
            traceback.print_exc(file=err)
        err.write(f"Error: {e.said(prog)}\n")
        return e.exit_code
    except KeyboardInterrupt:
        err.write("Error: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # the boundary: anything else is a bug, reported in one line
        if debug:
            traceback.print_exc(file=err)
        err.write(f"Error: unexpected {type(e).__name__}: {e} (run with --debug for the "
                  "traceback)\n")
        return 1


def main(argv: Sequence[str] | None = None, *, prog: str = PROG) -> int:
    """Run one command line in this process."""
    folder = os.getcwd()
    args = parse(list(sys.argv[1:] if argv is None else argv), folder, prog)
    return execute(args, os.environ, Streams(sys.stdout, sys.stderr, sys.stdin), prog=prog,
                   folder=folder)
