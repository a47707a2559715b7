"""The Store protocol: what the engine needs from a graph, and the transaction it hands out.

The engine speaks only domain verbs; adapters/neo4j implements them in Cypher and
tests/fakes.py implements them in memory. Each room declares the verbs it needs as a
protocol of its own beside its records (engine/<room>/records.py), and a function takes a
`Store[TxT]` whose transactions are the part, or the named intersection of parts, it uses;
so this module names no room. engine/graph.py's `GraphTx` composes every part: the stores
the faces hold are `Store[GraphTx]`, which is a `Store` of each part, as the transaction
type is covariant. `Store.write(work)` runs `work(tx)` and commits everything it did, the
propagation included, or nothing. `work` may be run more than once (a cluster retries
transient failures), so it must not have side effects outside the transaction.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from engine.change_records import ChangeEntry

T = TypeVar("T")
TxT_co = TypeVar("TxT_co", covariant=True)


class Store(Protocol[TxT_co]):
    """A graph whose transactions are seen as a `TxT_co`."""

    def init_schema(self) -> dict[str, int]:
        """Create constraints and indexes, and upgrade what older versions wrote
        (idempotent); returns how many nodes each upgrade changed, by name."""

    def read(self, work: Callable[[TxT_co], T]) -> T:
        """Run `work`'s reads; each sees what is committed when it runs. `work` may be run
        again (after a transient failure), so it must not have side effects it cannot
        repeat."""

    def write(self, work: Callable[[TxT_co], T], entry: ChangeEntry | None = None) -> T:
        """Run `work` in one write transaction and append its change-log entry (`entry`
        says what it is; None: op "write") in the same transaction."""

    def dry_run(self, work: Callable[[TxT_co], T]) -> T:
        """Run `work` in a transaction that is always rolled back (what-if)."""

    def close(self) -> None: ...
