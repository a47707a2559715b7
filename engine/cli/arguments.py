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


# --- flags ------------------------------------------------------------------------------------
def justification_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sl", metavar="A,B", help="antecedents (SL justification)")
    p.add_argument("--cp", metavar="A,B", help="antecedents, kept as a CP justification")
    p.add_argument("--unless", metavar="X,Y", help="outlist: holds only while these are OUT")
    p.add_argument("--any", action="store_true",
                   help="one justification per antecedent (convergent evidence)")
    p.add_argument("--label", help="a short label for the justification")


def visible_to_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--visible-to", metavar="TAGS",
                   help="see only what a client with these access tags sees (comma-separated; "
                        "'' for untagged beliefs only)")


def as_of_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--as-of", metavar="POINT", help=f"read the memory as it was then: {POINT_HELP}")


def namespace_flag(p: argparse.ArgumentParser) -> None:
    """`--namespace NAME` for list, search, compact and export."""
    p.add_argument("--namespace", metavar="NAME",
                   help="only the beliefs of this imported agent's namespace (NAME:...)")


def read_flags(p: argparse.ArgumentParser) -> None:
    """`--visible-to` and `--as-of`, the flags of the reads that take both."""
    visible_to_flag(p)
    as_of_flag(p)
