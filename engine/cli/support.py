"""What the stage programs' command lines share with the commands: the store they open, the
error boundary, and plain-text rendering (engine/cli/command.py renders the commands').

Exit codes: 0 ok; 1 an operation ran and found a problem (a derive run that ended in error);
2 bad input or usage, or the store cannot be reached.
"""
from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from engine.cli.command import shorten, some_ids, split_ids, table
from engine.wiring.settings import Settings
from engine.wiring.store import BorrowedDriver, LazyStore

__all__ = ["BorrowedDriver", "LazyStore", "open_store", "print_json", "print_listing",
           "run_guarded", "shorten", "some_ids", "split_ids", "table"]


@contextmanager
def open_store() -> Iterator[LazyStore]:
    """The store of the memory this folder is in (or EEM_MEMORY's)."""
    from pathlib import Path

    from engine.wiring.memories import locate

    settings = Settings.of(os.environ)
    store = LazyStore(settings, locate(settings, Path.cwd()), settings.actor,
                      notice=lambda line: print(line, file=sys.stderr))
    try:
        yield store
    finally:
        store.close()


def run_guarded(command: Callable[[], int], *, debug: bool) -> int:
    """Run a command; map errors to one "Error: ..." line on stderr and an exit code."""
    from engine.cli.main import guarded

    return guarded(command, debug=debug, err=sys.stderr)


def print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False, default=str))


def print_listing(items: Sequence[Any], *, as_json: bool, empty: str,
                  row: Callable[[Any], Sequence[Any]], headers: Sequence[str],
                  json_key: str | None = None) -> bool:
    """A listing: every item's as_dict() as JSON (a list, or an object with the list under
    `json_key`), or the `empty` line when there is none, or a table of row(item). True when
    a table was printed."""
    if as_json:
        dicts = [item.as_dict() for item in items]
        print_json({json_key: dicts} if json_key else dicts)
        return False
    if not items:
        print(empty)
        return False
    print(table([row(item) for item in items], headers))
    return True
