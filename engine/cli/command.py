"""What a command is, and what a running one holds.

`Command`: a handler, its one-line help, an example (the command line after the program's
name), its arguments (declared: engine/cli/arguments.py), and whether it takes --json. Each
command group (verbs.py, keeping.py, ...) declares its own `COMMANDS`; main.py puts them in
one table, in the order `--help` lists them.

`Call`: one command being run: its parsed options, the Context its verbs get
(engine/service/context.py), and the streams it writes to and reads from, handed to it by
whoever runs it (this process's, a batch line's buffers, a resident engine's connection).
A handler calls the service, then renders the result: `call.emit` prints the result's JSON
under --json, else the handler writes its text.

This module and every group module import, at their top, only the standard library and
engine/cli's own light modules: the resident engine's client builds the parser without the
library. A handler imports the service module it calls in its body.
"""
from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from engine.errors import InvalidInput
    from engine.model import Change
    from engine.service.context import Context
    from engine.wiring.memories import Memory
    from engine.wiring.settings import Settings


class Result(Protocol):
    def as_dict(self) -> dict[str, object]: ...


class Writer(Protocol):
    """Where a command writes: its caller's stdout or stderr (a file, a buffer, a
    connection)."""

    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...


class Reader(Protocol):
    """What a command reads its input from: its caller's stdin, line by line."""

    def __iter__(self) -> Iterator[str]: ...

    def isatty(self) -> bool: ...


@dataclass(frozen=True)
class Call:
    """A command being run: `args` as parsed, the `context` its verbs get, its streams, and
    for the commands that make or name memories (init, reset, memories) the caller's
    settings and the memory its folder is in (or why there is none)."""

    args: argparse.Namespace
    context: Context
    out: Writer
    err: Writer
    stdin: Reader
    settings: Settings | None = None
    memory: Memory | InvalidInput | None = None

    @property
    def as_json(self) -> bool:
        return bool(self.args.json)

    def say(self, *lines: str) -> None:
        for line in lines:
            self.out.write(line + "\n")

    def note(self, line: str) -> None:
        """A line for the person, not the output: stderr."""
        self.err.write(line + "\n")
        self.err.flush()

    def print_json(self, value: Any) -> int:
        self.out.write(json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n")
        return 0

    def emit(self, result: Result) -> bool:
        """Under --json, print the result's JSON and say so (True); else False: the handler
        writes its text."""
        if self.as_json:
            self.print_json(result.as_dict())
            return True
        return False

    def command(self, words: str) -> str:
        """A command line to suggest, under the name the program was called by."""
        return self.context.command(words)


Handler = Callable[[Call], int]
Adds = Callable[[argparse.ArgumentParser], object]  # adds arguments to a command's parser


@dataclass(frozen=True)
class Command:
    handler: Handler
    help: str
    example: str  # the command line after the program's name
    arguments: Adds | Sequence[Adds] = ()  # declared (engine/cli/arguments.py), or a function
    json: bool = True  # takes --json

    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        add_all(p, self.arguments)


def add_all(p: argparse.ArgumentParser, arguments: Adds | Sequence[Adds]) -> None:
    for add in [arguments] if callable(arguments) else arguments:
        add(p)


# --- rendering ----------------------------------------------------------------------------
def change_lines(change: Change) -> list[str]:
    """What went IN and OUT, and what a nogood retracted."""
    lines = [f"{verb} {bid}" for verb, ids in (("IN ", change.went_in), ("OUT", change.went_out))
             for bid in ids]
    lines += [f"retracted by nogood: {bid}" for bid in change.retracted_by_nogood]
    return lines or ["no label changed"]


class Changing(Result, Protocol):
    @property
    def change(self) -> Change: ...


def report_change(call: Call, result: Changing, notes: Sequence[str] = (), *,
                  first: str | None = None) -> int:
    """A write's (or a what-if's) answer: its JSON under --json, else the line `first`, what
    went IN and OUT, then `notes`."""
    if not call.emit(result):
        call.say(*([first] if first is not None else []), *change_lines(result.change), *notes)
    return 0


def table(rows: Sequence[Sequence[Any]], headers: Sequence[str]) -> str:
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


Column = tuple[str, Callable[[Any], object]]  # a table's header, and its cell of a record


def records(items: Iterable[Any], columns: Sequence[Column]) -> str:
    """A table of `items`, a column per (header, the cell of an item)."""
    return table([[cell(item) for _, cell in columns] for item in items],
                 [header for header, _ in columns])


def listing(call: Call, result: Result, items: Sequence[Any], *, empty: str,
            row: Callable[[Any], Sequence[Any]], headers: Sequence[str]) -> bool:
    """A listing's answer: the result's JSON, or the `empty` line, or a table of row(item).
    True when a table was printed (the caller may add a footer)."""
    if call.emit(result):
        return False
    if not items:
        call.say(empty)
        return False
    call.say(table([row(item) for item in items], headers))
    return True


def split_ids(text: str | None) -> list[str]:
    if not text:
        return []
    return [part.strip() for part in text.split(",") if part.strip()]


def some_ids(ids: Sequence[str], at_most: int = 8) -> str:
    """The first `at_most` ids, comma-separated, then how many more there are."""
    shown = ", ".join(ids[:at_most])
    return shown + (f", ... ({len(ids) - at_most} more)" if len(ids) > at_most else "")


def shorten(text: str, width: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def id_lists(call: Call, lists: Iterable[tuple[str, Sequence[str]]], *, counted: bool = False,
             shown: Callable[[Sequence[str]], str] = some_ids) -> None:
    """Each list of ids that is not empty, a line under its title (`counted`: with its
    length), the ids as `shown` writes them."""
    for title, ids in lists:
        if ids:
            call.say(f"  {title}: " + (f"{len(ids)}: " if counted else "") + shown(ids))
