"""The memory's store as a face opens it: Neo4j, connected on first use.

A command that turns out not to need the store (`query --list`, `reset` without --yes, a
usage error) works with the server down. Given a `borrowed` driver (the resident engine's,
opened once), the store runs its transactions on that one and leaves it open.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from engine.change_records import ChangeEntry
from engine.wiring.settings import Settings

if TYPE_CHECKING:
    import neo4j

    from engine.import_parts import ImportMark, ImportParts
    from engine.store import GraphTx, Store

T = TypeVar("T")


@dataclass(frozen=True)
class BorrowedDriver:
    """A driver the resident engine opened once, lent to one command's store: the command's
    transactions carry `tx_metadata` (so they can be found and ended), and `before_each` runs
    before each of its transactions (it raises when the command was cancelled)."""

    driver: neo4j.Driver
    tx_metadata: Mapping[str, str] = field(default_factory=dict)
    before_each: Callable[[], None] = lambda: None


class LazyStore:
    """The Store of `settings`' connection, opened on first use (under a lock: a server's
    first calls may come at once); its writes are by `actor`."""

    def __init__(self, settings: Settings, actor: str, *, retry_seconds: float = 15,
                 borrowed: BorrowedDriver | None = None) -> None:
        self._settings = settings
        self._actor = actor
        self._retry_seconds = retry_seconds
        self._borrowed = borrowed
        self._store: Store | None = None
        self._opening = threading.Lock()

    @property
    def uri(self) -> str:
        from adapters.neo4j.connection import Neo4jSettings

        return Neo4jSettings.from_env(self._settings.environ).uri

    def _opened(self) -> Store:
        if self._borrowed is not None:
            self._borrowed.before_each()
        if self._store is None:
            with self._opening:
                if self._store is None:
                    self._store = self._open()
        return self._store

    def _open(self) -> Store:
        from adapters.neo4j.connection import Neo4jSettings, connect
        from adapters.neo4j.store import Neo4jStore

        neo = Neo4jSettings.from_env(self._settings.environ)
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
