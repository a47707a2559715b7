"""What a command of `python -m engine` is, and the reporting several command groups share.

`Command`: a handler, its one-line help, an example (the command line after the program's
name), the function that adds its arguments, and whether it takes --json. Each command
group (verbs.py, memory.py, reading.py, agents.py, proposals.py, registry.py, sources.py)
imports it and declares its own `COMMANDS`; engine/cli/tms.py puts them in one table, in the
order `--help` lists them. `report_change` prints what a write changed, and
`justifications_of` reads one justification from --sl/--cp/--unless/--any/--label, for every
group that needs them.
"""
from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.cli import PROG
from engine.cli.support import print_json, split_ids
from engine.errors import InvalidInput
from engine.model import Change, Kind
from engine.tms import make_justifications

__all__ = ["PROG", "Command", "id_argument", "justification_flags", "justifications_of",
           "no_arguments", "report_change"]

def no_arguments(p: argparse.ArgumentParser) -> None:
    pass


def id_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("id")


@dataclass(frozen=True)
class Command:
    handler: Callable[[Any, argparse.Namespace], int]
    help: str
    example: str  # the command line after `python -m engine`
    arguments: Callable[[argparse.ArgumentParser], None] = no_arguments
    json: bool = True  # takes --json


def report_change(change: Change, args: argparse.Namespace, extra: dict[str, Any] | None = None,
                  notes: Sequence[str] = ()) -> int:
    """What went IN and OUT (and what a nogood retracted), or the JSON of it with --json;
    `extra` joins its JSON, `notes` follow its text."""
    if args.json:
        print_json({**change.as_dict(), **(extra or {})})
        return 0
    for verb, ids in (("IN ", change.went_in), ("OUT", change.went_out)):
        for bid in ids:
            print(f"{verb} {bid}")
    for bid in change.retracted_by_nogood:
        print(f"retracted by nogood: {bid}")
    if not change.went_in and not change.went_out:
        print("no label changed")
    for line in notes:
        print(line)
    return 0


def justification_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sl", metavar="A,B", help="antecedents (SL justification)")
    p.add_argument("--cp", metavar="A,B", help="antecedents, kept as a CP justification")
    p.add_argument("--unless", metavar="X,Y", help="outlist: holds only while these are OUT")
    p.add_argument("--any", action="store_true",
                   help="one justification per antecedent (convergent evidence)")
    p.add_argument("--label", help="a short label for the justification")


def justifications_of(args: argparse.Namespace) -> tuple:
    """The justification(s) --sl/--cp/--unless/--any/--label describe (none: a premise)."""
    if args.sl and args.cp:
        raise InvalidInput("give --sl or --cp, not both", field="justification")
    kind = Kind.CP if args.cp else Kind.SL
    return make_justifications(
        split_ids(args.sl or args.cp), unless=split_ids(args.unless), kind=kind,
        any_mode=args.any, label=args.label or "",
    )
