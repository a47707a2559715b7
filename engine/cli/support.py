"""What every command-line entry point shares: opening the store, the error boundary,
and plain-text rendering helpers.

Exit codes: 0 ok; 1 an operation ran and found a problem (verify mismatch, a derive run that
ended in error); 2 bad input or usage, or the store cannot be reached.
"""
from __future__ import annotations

import getpass
import json
import os
import sys
import threading
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from engine.errors import EngineError, InvalidInput
from engine.store import Store

DEFAULT_LOCK_TIMEOUT = 60.0


def lock_timeout_from_env(environ=os.environ) -> float:
    """EEM_LOCK_TIMEOUT: the seconds a writer waits for the write lock (default 60)."""
    text = (environ.get("EEM_LOCK_TIMEOUT") or "").strip()
    if not text:
        return DEFAULT_LOCK_TIMEOUT
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not 0 < seconds < float("inf"):
        raise InvalidInput(f"EEM_LOCK_TIMEOUT must be a positive number of seconds, not {text!r}",
                           field="EEM_LOCK_TIMEOUT", value=text)
    return seconds


def actor_from_env(environ=os.environ) -> str:
    """Who the CLI's writes are by, for the change log: EEM_ACTOR, else the OS user."""
    given = (environ.get("EEM_ACTOR") or "").strip()
    if given:
        return given
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no user name in the environment or the password database
        return "unknown"


@dataclass(frozen=True)
class BorrowedDriver:
    """A driver the resident engine opened once, lent to one command's store: the command's
    transactions carry `tx_metadata` (so they can be found and ended), and `before_each` runs
    before each of its transactions (it raises when the command was cancelled)."""

    driver: Any
    tx_metadata: Mapping[str, str] = field(default_factory=dict)
    before_each: Callable[[], None] = lambda: None


class LazyStore:
    """The store the environment configures (NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD,
    NEO4J_DATABASE; EEM_LOCK_TIMEOUT, how long a writer waits for the write lock), connected
    on first use, so a command that turns out not to need it (`query --list`, `reset` without
    --yes) works with the server down. This is the composition root: the only place the CLI
    reaches for the Neo4j adapter. Given a `borrowed` driver (the resident engine's), it
    connects through that one instead of opening its own, and leaves it open."""

    def __init__(self, *, retry_seconds: float = 15, actor: str | None = None,
                 borrowed: BorrowedDriver | None = None) -> None:
        self._store: Store | None = None
        self._actor = actor
        self._retry_seconds = retry_seconds
        self._borrowed = borrowed
        self._opening = threading.Lock()  # a server's first calls may come at once

    def _opened(self):
        if self._borrowed is not None:
            self._borrowed.before_each()
        if self._store is None:
            with self._opening:
                if self._store is None:
                    from adapters.neo4j.connection import Neo4jSettings, connect
                    from adapters.neo4j.store import Neo4jStore

                    settings = Neo4jSettings.from_env(os.environ)
                    lock_timeout = lock_timeout_from_env(os.environ)
                    actor = self._actor if self._actor is not None else actor_from_env(os.environ)
                    if self._borrowed is None:
                        driver = connect(settings, retry_seconds=self._retry_seconds)
                        metadata: Mapping[str, str] = {}
                    else:
                        driver, metadata = self._borrowed.driver, self._borrowed.tx_metadata
                    self._store = Neo4jStore(driver, settings.database, settings.uri,
                                             lock_timeout=lock_timeout, actor=actor,
                                             tx_metadata=metadata)
        return self._store

    def init_schema(self) -> dict[str, int]:
        return self._opened().init_schema()

    def read(self, work):
        return self._opened().read(work)

    def write(self, work, entry=None):
        return self._opened().write(work, entry)

    def dry_run(self, work):
        return self._opened().dry_run(work)

    def import_in_parts(self, mark):  # engine/import_parts.PartedStore
        return self._opened().import_in_parts(mark)

    def close(self) -> None:
        if self._store is not None and self._borrowed is None:
            self._store.close()


@contextmanager
def open_store(borrowed: BorrowedDriver | None = None) -> Iterator[LazyStore]:
    store = LazyStore(borrowed=borrowed)
    try:
        yield store
    finally:
        store.close()


def run_guarded(command: Callable[[], int], *, debug: bool) -> int:
    """Run a command; map errors to one "Error: ..." line and an exit code."""
    try:
        return command()
    except EngineError as e:
        if debug:
            traceback.print_exc()
        print(f"Error: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("Error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # the boundary: anything else is a bug, reported in one line
        if debug:
            traceback.print_exc()
        print(f"Error: unexpected {type(e).__name__}: {e} (run with --debug for the traceback)",
              file=sys.stderr)
        return 1


def print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False, default=str))


def print_listing(items: Sequence[Any], *, as_json: bool, empty: str,
                  row: Callable[[Any], Sequence[Any]], headers: Sequence[str],
                  json_key: str | None = None) -> bool:
    """A listing command's output: every item's as_dict() as JSON (a list, or an object with
    the list under `json_key`), or the `empty` line when there is none, or a table of
    row(item). True when a table was printed (the caller may add a footer)."""
    if as_json:
        dicts = [item.as_dict() for item in items]
        print_json({json_key: dicts} if json_key else dicts)
        return False
    if not items:
        print(empty)
        return False
    print(table([row(item) for item in items], headers))
    return True


def split_ids(text: str | None) -> list[str]:
    if not text:
        return []
    return [part.strip() for part in text.split(",") if part.strip()]


def table(rows: Sequence[Sequence[Any]], headers: Sequence[str]) -> str:
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def some_ids(ids: Sequence[str], at_most: int = 8) -> str:
    """The first `at_most` ids, comma-separated, then how many more there are."""
    shown = ", ".join(ids[:at_most])
    return shown + (f", ... ({len(ids) - at_most} more)" if len(ids) > at_most else "")


def shorten(text: str, width: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."
