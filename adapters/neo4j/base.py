"""What every part of the Neo4j transaction view shares: running a named query."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

import neo4j

from adapters.cypher_files import cypher
from adapters.neo4j.before_images import capture
from adapters.neo4j.change_tracker import ChangeTracker
from engine.errors import StoreError


class Statements(Protocol):
    """What runs a view's statements: a driver transaction, or AutoCommitReads."""

    def run(self, query: str, parameters: dict[str, Any] | None = None) -> neo4j.Result: ...


class AutoCommitReads:
    """A read's statements run each as an auto-commit query on one session: RUN and PULL
    pipelined, one round trip a statement, where a read transaction adds its COMMIT's. Each
    carries the store's metadata, so the resident engine finds and ends it like a
    transaction; the session's bookmark manager chains it as it chains transactions. Neo4j
    reads are read-committed inside a transaction too (a later statement sees what others
    committed since the first), so a read of several statements sees nothing different."""

    def __init__(self, session: neo4j.Session, metadata: Mapping[str, str]):
        self._session = session
        self._metadata = dict(metadata) or None

    def run(self, query: str, parameters: dict[str, Any] | None = None) -> neo4j.Result:
        return self._session.run(neo4j.Query(query, metadata=self._metadata), parameters)


class TxBase:
    """Holds one driver transaction (or a read's AutoCommitReads); parts of Neo4jTx run named
    queries through it."""

    def __init__(self, tx: Statements):
        self._tx = tx
        # What this transaction has already learnt, to save round trips: belief id ->
        # element id, and whether any nogood exists (None: not known yet).
        self._element_of: dict[str, str] = {}
        self._nogoods_exist: bool | None = None
        # In a read only (a write may change them after): what a shown belief's statement
        # also returned for the rest of show: the first wave of its impact (element id ->
        # dependents' element ids) and its supersede links (id -> (by, supersedes)).
        self._reading = isinstance(tx, AutoCommitReads)
        self._first_wave: dict[str, list[str]] = {}
        self._links_of: dict[str, tuple[list[str], list[str]]] = {}
        self.change_log = ChangeTracker()  # what this write did, for its change-log entry

    # The Python driver reads each record off the socket on its own (about 12 us a record),
    # so queries on hot paths that yield thousands of rows return them collected in one record.
    def _run(self, name: str, **params: Any) -> list[neo4j.Record]:
        """Run the named query from cypher/ with `params` and return all its records (first
        keeping the before-images of what it is about to change: its `// defines:` line)."""
        capture(self, name, params)
        return list(self._tx.run(cypher(name), params))

    def _single(self, name: str, **params: Any) -> neo4j.Record | None:
        capture(self, name, params)
        return self._tx.run(cypher(name), dict(params)).single()

    def read_plain(self, name: str, params: Mapping[str, Any]) -> neo4j.Record | None:
        """A read the before-images make on their own (no capture of its own)."""
        return self._tx.run(cypher(name), dict(params)).single()

    def _one(self, name: str, **params: Any) -> neo4j.Record:
        """The one record of a query that always returns one (an aggregation)."""
        record = self._single(name, **params)
        if record is None:
            raise StoreError(f"query '{name}' returned no row")
        return record

    # --- for code that drives this transaction from outside its parts (propagation) --------
    def run_query(self, name: str, **params: Any) -> list[neo4j.Record]:
        """Run the named query from cypher/ with `params` and return all its records."""
        return self._run(name, **params)

    def known_element_ids(self, ids: Iterable[str]) -> dict[str, str]:
        """Belief id -> element id, for those of `ids` this transaction has already met."""
        return {i: self._element_of[i] for i in ids if i in self._element_of}
