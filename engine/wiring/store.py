"""The memory's store as a face opens it: Neo4j, connected on first use.

A command that turns out not to need the store (`query --list`, `reset` without --yes, a
usage error) works with the server down, and outside any memory: the store says "no memory
here" only when something asks it for the graph. A memory with a server of its own has it
started on that first use (engine/wiring/local_server.py). Given a `borrowed` driver (the
resident engine's, opened once for its memory), the store runs its transactions on that one
and leaves it open.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from engine.change_records import ChangeEntry
from engine.errors import InvalidInput
from engine.wiring.memories import ENVIRONMENT, Memory, Registry, eem_home
from engine.wiring.settings import Settings

if TYPE_CHECKING:
    import neo4j

    from adapters.neo4j.connection import Neo4jSettings
    from engine.import_parts import ImportMark, ImportParts
    from engine.graph import GraphTx
    from engine.store import Store

T = TypeVar("T")
Located = Memory | InvalidInput  # the memory a call is in, or why there is none


@dataclass(frozen=True)
class BorrowedDriver:
    """A driver the resident engine opened once, lent to one command's store: the command's
    transactions carry `tx_metadata` (so they can be found and ended), and `before_each` runs
    before each of its transactions (it raises when the command was cancelled)."""

    driver: neo4j.Driver
    tx_metadata: Mapping[str, str] = field(default_factory=dict)
    before_each: Callable[[], None] = lambda: None


def connection(memory: Memory, settings: Settings) -> Neo4jSettings:
    """How to reach the memory's graph: its own server's port and password, or a shared
    server's address (the password from NEO4J_PASSWORD, never from a marker)."""
    from adapters.neo4j.connection import Neo4jSettings

    if memory.name == ENVIRONMENT:
        return Neo4jSettings.from_env(settings.environ)
    if memory.local:
        password_file = Path(memory.home) / "password"
        try:
            password: str | None = password_file.read_text(encoding="utf-8").strip() or None
        except OSError:
            password = None
        return Neo4jSettings(f"bolt://127.0.0.1:{memory.bolt_port}", "neo4j", password,
                             "neo4j", password_file)
    return Neo4jSettings(memory.uri, memory.user, settings.value("NEO4J_PASSWORD") or None,
                         memory.database, Path(memory.home or "/") / "password")


class LazyStore:
    """The Store of the memory a call is in, opened on first use (under a lock: a server's
    first calls may come at once); its writes are by `actor`."""

    def __init__(self, settings: Settings, memory: Located, actor: str, *,
                 retry_seconds: float = 15, borrowed: BorrowedDriver | None = None,
                 notice: Callable[[str], None] = lambda line: None) -> None:
        self._settings = settings
        self._memory = memory
        self._actor = actor
        self._retry_seconds = retry_seconds
        self._borrowed = borrowed
        self._notice = notice
        self._store: Store[GraphTx] | None = None
        self._opening = threading.Lock()

    def _opened(self) -> Store[GraphTx]:
        if self._borrowed is not None:
            self._borrowed.before_each()
        if self._store is None:
            with self._opening:
                if self._store is None:
                    self._store = self._open()
        return self._store

    def _open(self) -> Store[GraphTx]:
        from adapters.neo4j.connection import connect
        from adapters.neo4j.store import Neo4jStore

        memory = self._memory
        if isinstance(memory, InvalidInput):
            raise memory
        if self._borrowed is None and memory.local and memory.name != ENVIRONMENT:
            from engine.wiring.local_server import ensure_running

            memory = ensure_running(memory, self._settings, Registry(eem_home(self._settings)),
                                    self._notice)
        neo = connection(memory, self._settings)
        if self._borrowed is None:
            driver = connect(neo, retry_seconds=self._retry_seconds)
            metadata: Mapping[str, str] = {}
        else:
            driver, metadata = self._borrowed.driver, self._borrowed.tx_metadata
        return Neo4jStore(driver, neo.database, neo.uri,
                          lock_timeout=self._settings.lock_timeout, actor=self._actor,
                          tx_metadata=metadata)

    def init_schema(self) -> dict[str, int]:
        return self._opened().init_schema()

    def read(self, work: Callable[[GraphTx], T]) -> T:
        return self._opened().read(work)

    def write(self, work: Callable[[GraphTx], T], entry: ChangeEntry | None = None) -> T:
        return self._opened().write(work, entry)

    def dry_run(self, work: Callable[[GraphTx], T]) -> T:
        return self._opened().dry_run(work)

    def import_in_parts(self, mark: ImportMark) -> ImportParts:
        """The opened store's import in parts (engine/import_parts.PartedStore), its mark
        set; refused by a store that cannot import in parts."""
        from engine.errors import InvalidInput
        from engine.import_parts import PartedStore

        store = self._opened()
        if not isinstance(store, PartedStore):
            raise InvalidInput("this store cannot import in parts", field="parts")
        return store.import_in_parts(mark)

    def close(self) -> None:
        if self._store is not None and self._borrowed is None:
            self._store.close()
