"""An import in parts on Neo4j (engine/import_parts.py): the mark on the write lock's node,
each part a write transaction holding it, and the last one logging the whole import.

Each part's ChangeTracker records what the part did; after the part commits it is absorbed
into the import's own tracker, and the last transaction carries on from a copy of that, so
its change-log entry and before-images are what one transaction doing it all would have
written (a unit's first image is kept: the memory was empty, so it is the absent one).
"""
from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping
from typing import Protocol, TypeVar

import neo4j

from adapters.cypher_files import cypher
from adapters.neo4j.change_tracker import ChangeTracker
from adapters.neo4j.write_lock import WriteLock, import_gone, import_under_way
from engine.change_records import ChangeEntry
from engine.errors import MemoryNotEmpty
from engine.import_parts import ImportMark, ImportParts, PartTx
from engine.memory.changelog import now_utc

T = TypeVar("T")


class PartView(PartTx, Protocol):
    """The transaction's view a part works through (Neo4jTx): a PartTx with its tracker and
    the element ids of the import's nodes (adapters/neo4j/import_part_tx.py)."""

    change_log: ChangeTracker
    import_elements: Mapping[str, str]
    new_elements: Mapping[str, str]

    def append_change(self, seq: int, at: str, entry: ChangeEntry) -> None: ...


class Guard(Protocol):
    """Neo4jStore._guard: the driver's errors as the engine's."""

    def __call__(self, call: Callable[[], T]) -> T: ...


class Neo4jImportParts:
    def __init__(self, mark: ImportMark, *, lock: WriteLock,
                 session: Callable[[], neo4j.Session], guard: Guard,
                 view: Callable[[neo4j.ManagedTransaction], PartView],
                 metadata: Mapping[str, str]):
        self.mark = mark
        self._token = uuid.uuid4().hex
        self._lock = lock
        self._session = session
        self._guard = guard
        self._view = view
        self._metadata = {**metadata, "eem_import": self._token}
        self._done = ChangeTracker(actor=mark.actor)  # every committed part's record
        self._elements: dict[str, str] = {}  # id -> element id of every committed part's node

    def begin(self) -> None:
        """Set the mark, or refuse: another import's mark (ImportUnderWay), or a memory
        that holds something (MemoryNotEmpty); nothing is written then."""
        tag = self._lock.new_tag()
        described = json.dumps({"file": self.mark.file, "parts": self.mark.parts,
                                "since": self.mark.since, "actor": self.mark.actor},
                               ensure_ascii=False)

        @neo4j.unit_of_work(metadata={**self._metadata, "eem_write": tag})
        def marking(tx: neo4j.ManagedTransaction) -> None:
            record = self._lock.run_locking(tx, tag, "set_import_mark", {
                "token": self._token, "mark": described, "at": now_utc()})
            if record is None or record["importing"] != self._token:
                raise import_under_way(record or {})
            if record["nodes"]:
                raise MemoryNotEmpty(
                    f"an import in parts needs an empty memory (a failure's way out, `reset"
                    f" --yes`, empties it), and this one holds {record['nodes']} nodes:"
                    " import into it in one transaction (leave out --parts; the server's heap"
                    " must hold the whole file, docs/scaling.md), or `reset --yes` first",
                    nodes=int(record["nodes"]))

        with self._session() as session:
            self._guard(lambda: session.execute_write(marking))

    def part(self, work: Callable[[PartTx], T]) -> T:
        tag = self._lock.new_tag()

        @neo4j.unit_of_work(metadata={**self._metadata, "eem_write": tag})
        def one(tx: neo4j.ManagedTransaction) -> tuple[T, PartView]:
            record = self._lock.run_locking(tx, tag, "take_import_part_lock", {
                "token": self._token, "at": now_utc()})
            if record is None or record["importing"] != self._token:
                raise import_gone()
            view = self._view(tx)
            view.change_log.actor = self.mark.actor
            view.import_elements = self._elements
            return work(view), view

        with self._session() as session:
            result, view = self._guard(lambda: session.execute_write(one))
        self._done.absorb(view.change_log)  # what it did and made, now committed
        self._elements.update(view.new_elements)
        return result

    def finish(self, work: Callable[[PartTx], T], entry: ChangeEntry) -> T:
        self._elements = {}  # no part follows (400 MB at 1M+1M)
        tag = self._lock.new_tag()

        @neo4j.unit_of_work(metadata={**self._metadata, "eem_write": tag})
        def last(tx: neo4j.ManagedTransaction) -> T:
            seq = self._lock.take(tx, tag, import_token=self._token)
            view = self._view(tx)
            view.change_log = self._done.copy()  # carries on as one transaction would
            view.change_log.actor = entry.actor or self.mark.actor
            view.change_log.seq = seq
            result = work(view)
            view.append_change(seq, now_utc(), entry)
            tx.run(cypher("clear_import_mark")).consume()
            return result

        with self._session() as session:
            return self._guard(lambda: session.execute_write(last))


_IMPLEMENTS: type[ImportParts] = Neo4jImportParts
