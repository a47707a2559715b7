"""Argument types and the flags several commands share. Standard library only: the resident
engine's client builds its parser from these without loading the library.

A path a user types (a file to read or write, a folder) is parsed as a LocalPath and made
absolute against the folder the command was typed in right after parsing (`resolve_paths`,
which main.parse calls with the caller's folder), so the options a client sends to the
resident engine, or a batch line the engine parses, mean what they meant where they were
typed; `-` (stdin or stdout) stays `-`. A `--source PATH` is not one of these: it is
relative to the memory's root, wherever the command is typed.
"""
from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Any

POINT_HELP = "a seq (the state right after that change), an ISO time, or a release name"


class LocalPath(str):
    """A path as typed, to be made absolute against the caller's folder (resolve_paths)."""


def local_path(text: str) -> str:
    """A file or folder the user named ('-' kept as it is)."""
    if text == "-":
        return text
    if not text:
        raise argparse.ArgumentTypeError("an empty path")
    return LocalPath(os.path.expanduser(text))


def resolve_paths(args: argparse.Namespace, folder: str) -> argparse.Namespace:
    """Every LocalPath of `args` (alone or in a list) made absolute against `folder`."""
    def absolute(value: object) -> object:
        if isinstance(value, LocalPath):
            return os.path.normpath(os.path.join(folder, value))
        if isinstance(value, list):
            return [absolute(v) for v in value]
        return value

    for name, value in vars(args).items():
        setattr(args, name, absolute(value))
    return args


def _whole_number(text: str, minimum: int, wanted: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"must be {wanted}, got {value}")
    return value


def whole(text: str) -> int:
    return _whole_number(text, 0, "0 or more")


def positive_int(text: str) -> int:
    return _whole_number(text, 1, "at least 1")


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be above 0, got {text}")
    return value


def share(text: str) -> float:
    """A share in (0, 1]."""
    value = positive_float(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], got {text}")
    return value


# --- declared arguments --------------------------------------------------------------------
Group = argparse._ActionsContainer  # a parser, or a group of its arguments
Arguments = Callable[[Group], object]  # adds arguments to a parser (or a group of it)


def arg(*names: str, **options: Any) -> Arguments:
    """One argument, declared: what `add_argument(*names, **options)` adds, when it is run."""
    return lambda p: p.add_argument(*names, **options)


def each(*parts: Arguments) -> Arguments:
    """Several declared arguments (or blocks of them), added in this order."""
    def add(p: Group) -> None:
        for part in parts:
            part(p)

    return add


def group(title: str, *parts: Arguments) -> Arguments:
    """`parts` under a heading of their own in the help."""
    return lambda p: each(*parts)(p.add_argument_group(title))


def one_of(*parts: Arguments) -> Arguments:
    """`parts`, at most one of which may be given."""
    return lambda p: each(*parts)(p.add_mutually_exclusive_group())


def command_parser(sub: argparse._SubParsersAction, name: str, help: str, description: str,
                   example: str) -> argparse.ArgumentParser:
    """A command's parser in the table `sub`: its help, description and example shown as
    written."""
    return sub.add_parser(name, help=help, description=description, epilog=f"example: {example}",
                          formatter_class=argparse.RawDescriptionHelpFormatter)


# --- the flags several commands share ---------------------------------------------------------
ID = arg("id")
DEBUG = arg("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks")
JSON = arg("--json", action="store_true", help="print JSON")
justification_flags = each(
    arg("--sl", metavar="A,B", help="antecedents (SL justification)"),
    arg("--cp", metavar="A,B", help="antecedents, kept as a CP justification"),
    arg("--unless", metavar="X,Y", help="outlist: holds only while these are OUT"),
    arg("--any", action="store_true",
        help="one justification per antecedent (convergent evidence)"),
    arg("--label", help="a short label for the justification"))
visible_to_flag = arg("--visible-to", metavar="TAGS",
                      help="see only what a client with these access tags sees "
                           "(comma-separated; '' for untagged beliefs only)")
as_of_flag = arg("--as-of", metavar="POINT", help=f"read the memory as it was then: {POINT_HELP}")
# --namespace NAME for list, search, compact and export
namespace_flag = arg("--namespace", metavar="NAME",
                     help="only the beliefs of this imported agent's namespace (NAME:...)")
read_flags = each(visible_to_flag, as_of_flag)  # the reads that take both
recorded_root_flag = arg("--root", metavar="DIR", type=local_path,
                         help="the folder source paths are relative to (default: the recorded "
                              "root)")
