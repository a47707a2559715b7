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

The lock node also carries the mark of an import in parts (engine/import_parts.py) while one
holds the memory: the lock statement returns it, and every writer but that import's parts
and a reset is refused with ImportUnderWay, whose message names the way out.
"""
from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Mapping
from typing import Any, TypeVar

import neo4j
from neo4j import exceptions as neo4j_errors

from adapters.cypher_files import cypher
from engine.errors import COMMAND, ImportUnderWay, WriteLockTimeout

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

    def take(self, tx: neo4j.ManagedTransaction | neo4j.Transaction, tag: str, *,
             empties: bool = False, import_token: str | None = None) -> int:
        """Run the lock statement in `tx`, waiting at most `timeout` seconds; returns how
        many writes the lock has serialized, this one included (the change log's seq).
        While an import in parts holds the memory only its own last part (`import_token`)
        and a write that empties the graph (`empties`: it must clear the mark) pass; any
        other writer gets ImportUnderWay."""
        record = self.run_locking(tx, tag, "take_write_lock", {})
        found = record["importing"] if record else None
        if found is not None and not empties and found != import_token:
            raise import_under_way(record or {})
        if import_token is not None and found != import_token:
            raise import_gone()
        return int(record["writes"]) if record else 0

    def run_locking(self, tx: neo4j.ManagedTransaction | neo4j.Transaction, tag: str,
                    name: str, params: Mapping[str, Any]) -> neo4j.Record | None:
        """Run the named statement that takes the lock, bounded by the watchdog."""
        watchdog = _Watchdog(self._driver, self._database, tag, self.timeout)
        try:
            record = tx.run(cypher(name), dict(params)).single()
        except (neo4j_errors.Neo4jError, neo4j_errors.DriverError) as e:
            if watchdog.disarm():
                raise self._timed_out() from e
            raise
        if watchdog.disarm():
            raise self._timed_out()
        return record

    def _timed_out(self) -> WriteLockTimeout:
        return WriteLockTimeout(
            f"another writer held the write lock for more than {self.timeout:g} s"
            " (EEM_LOCK_TIMEOUT); nothing was written: try again, or raise EEM_LOCK_TIMEOUT",
            timeout=self.timeout,
        )


def import_under_way(record: Mapping[str, Any] | neo4j.Record) -> ImportUnderWay:
    """The refusal of a writer while an import in parts holds the memory, naming the way out."""
    try:
        mark = json.loads(record.get("mark") or "{}")
    except ValueError:
        mark = {}
    if mark.get("reset"):
        since = f" (started {mark['since']})" if mark.get("since") else ""
        return ImportUnderWay(
            f"a reset emptying the memory in batches holds it{since}: it is running, or it"
            " stopped part-way; writes are refused until it ends. If it stopped, the way"
            f" out is `{COMMAND}` again", suggest="reset --yes")
    file = str(mark.get("file") or "")
    done, parts = record.get("done") or 0, mark.get("parts")
    progress = f"{done} of {parts} parts written" if parts else f"{done} parts written"
    since = f", started {mark['since']}" if mark.get("since") else ""
    by = f" by {mark['actor']}" if mark.get("actor") else ""
    root = record.get("root")
    again = (f", `init --root {root}` (reset forgets the root)" if root else "") + (
        f", then `import {file}` again" if file else ", then the import again")
    return ImportUnderWay(
        f"an import in parts {f'of {file} ' if file else ''}holds the memory{since}{by},"
        f" {progress}: it is running, or it stopped and left part of the network; writes"
        f" are refused until it ends. If it stopped, the way out is `{COMMAND}`{again}",
        file=file, suggest="reset --yes")


def import_gone() -> ImportUnderWay:
    """An import in parts finds its mark gone: a reset emptied the memory under it."""
    return ImportUnderWay("the import in parts lost its mark (a reset emptied the"
                          " memory while it ran); nothing more was written: run it again")
