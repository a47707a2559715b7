"""The write lock: every write transaction takes one exclusive lock before it reads anything,
so writers that change labels run one after another and none propagates from a state another
is changing. Readers take no lock and are never blocked.

The lock is a write on the one `(:WriteLock {key: 'labels'})` node, the transaction's first
statement. Neo4j has no per-statement lock timeout a client can set (db.lock.acquisition.timeout
is server-wide, and a transaction timeout would also cut a long import that holds the lock),
so a watchdog bounds the wait: when the lock statement has not returned after `timeout`
seconds, the watchdog finds the waiting transaction by the tag in its metadata and terminates
it (a user may always terminate their own transactions), and the writer raises
WriteLockTimeout. Nothing of a terminated transaction is written.
"""
from __future__ import annotations

import threading
import uuid
from typing import TypeVar

import neo4j
from neo4j import exceptions as neo4j_errors

from adapters.cypher_files import cypher
from engine.errors import WriteLockTimeout

T = TypeVar("T")

DEFAULT_TIMEOUT = 60.0


class _Watchdog:
    """Terminates the tagged transaction if `disarm` is not called within `timeout` seconds."""

    def __init__(self, driver: neo4j.Driver, database: str, tag: str, timeout: float):
        self._driver = driver
        self._database = database
        self._tag = tag
        self._mutex = threading.Lock()
        self._disarmed = False
        self.fired = False
        self._timer = threading.Timer(timeout, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def _fire(self) -> None:
        with self._mutex:
            if self._disarmed:
                return
            self.fired = True
        try:
            # write access: on a cluster, the session reaches the leader the writer is on
            with self._driver.session(database=self._database,
                                      default_access_mode=neo4j.WRITE_ACCESS) as session:
                ids = [r["transactionId"] for r in session.run(cypher("transactions_tagged"),
                                                               tag=self._tag)]
                if ids:
                    session.run(cypher("terminate_transactions"), ids=ids).consume()
        except neo4j_errors.Neo4jError:
            pass  # the writer still sees `fired` and gives up as soon as its statement returns
        except neo4j_errors.DriverError:
            pass

    def disarm(self) -> bool:
        """Stop the watchdog; True when it had already fired (the transaction is doomed)."""
        self._timer.cancel()
        with self._mutex:
            self._disarmed = True
            return self.fired


class WriteLock:
    def __init__(self, driver: neo4j.Driver, database: str, timeout: float = DEFAULT_TIMEOUT):
        self._driver = driver
        self._database = database
        self.timeout = timeout

    def new_tag(self) -> str:
        """A tag for one write's transaction metadata, by which the watchdog finds it."""
        return uuid.uuid4().hex

    def take(self, tx: neo4j.ManagedTransaction | neo4j.Transaction, tag: str) -> int:
        """Run the lock statement in `tx`, waiting at most `timeout` seconds; returns how
        many writes the lock has serialized, this one included (the change log's seq)."""
        watchdog = _Watchdog(self._driver, self._database, tag, self.timeout)
        try:
            record = tx.run(cypher("take_write_lock")).single()
        except (neo4j_errors.Neo4jError, neo4j_errors.DriverError) as e:
            if watchdog.disarm():
                raise self._timed_out() from e
            raise
        if watchdog.disarm():
            raise self._timed_out()
        return int(record["writes"]) if record else 0

    def _timed_out(self) -> WriteLockTimeout:
        return WriteLockTimeout(
            f"another writer held the write lock for more than {self.timeout:g} s"
            " (EEM_LOCK_TIMEOUT); nothing was written: try again, or raise EEM_LOCK_TIMEOUT",
            timeout=self.timeout,
        )
