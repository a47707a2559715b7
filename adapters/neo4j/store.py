"""Neo4jStore: the Store protocol (engine/store.py) on a Neo4j database.

Each `write` is one managed write transaction (`execute_write`), so an operation and all the
propagation it causes commit together or not at all, and a cluster's routing and retries
work. Its first statement takes the write lock (adapters/neo4j/write_lock.py), so writers are
applied one after another; `dry_run` (what-if) takes it too, to compute from a state no
writer is changing. Reads take no lock. The transaction view `Neo4jTx` is assembled from one
part per concern.
"""
from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Callable, Mapping
from typing import TypeVar

import neo4j
from neo4j import exceptions as neo4j_errors

from adapters.cypher_files import cypher, load_all
from adapters.neo4j.agent_tx import AgentTxPart
from adapters.neo4j.ask_tx import AskTxPart
from adapters.neo4j.base import AutoCommitReads
from adapters.neo4j.change_tx import ChangeTxPart
from adapters.neo4j.dedup_tx import DedupTxPart
from adapters.neo4j.edit_tx import EditTxPart
from adapters.neo4j.embedding_tx import EmbeddingTxPart
from adapters.neo4j.forge_tx import ForgeTxPart
from adapters.neo4j.health_tx import HealthTxPart
from adapters.neo4j.negative_tx import NegativeTxPart
from adapters.neo4j.history_tx import HistoryTxPart
from adapters.neo4j.import_part_tx import ImportPartTxPart
from adapters.neo4j.import_parts import Neo4jImportParts
from adapters.neo4j.premise_review_tx import PremiseReviewTxPart
from adapters.neo4j.proposal_tx import ProposalTxPart
from adapters.neo4j.query_tx import QueryTxPart
from adapters.neo4j.reading_tx import ReadingTxPart
from adapters.neo4j.registry_tx import RegistryTxPart
from adapters.neo4j.repair_tx import RepairTxPart
from adapters.neo4j.review_tx import ReviewTxPart
from adapters.neo4j.search_tx import SearchTxPart
from adapters.neo4j.stage_tx import StageTxPart
from adapters.neo4j.tms_tx import TmsTxPart
from adapters.neo4j.write_lock import DEFAULT_TIMEOUT, WriteLock
from engine.change_records import ChangeEntry
from engine.errors import COMMAND, EngineError, StoreError
from engine.import_parts import ImportMark, PartedStore, PartTx
from engine.memory.changelog import now_utc
from engine.graph import GraphTx
from engine.store import Store

T = TypeVar("T")
SEARCH_ANALYZER = "english"  # belief_text's analyzer (cypher/schema.cypher): stemming
INDEX_WAIT_SECONDS = 600  # how long init waits for a rebuilt belief_text to come online
# A reset of a memory of more beliefs and placeholders than this first empties it in batches
# (one transaction deleting 200k beliefs overflows a 1 GB heap's transaction memory)
EMPTY_IN_BATCHES = 20_000


class Neo4jTx(TmsTxPart, StageTxPart, EmbeddingTxPart, QueryTxPart, ForgeTxPart,
              ReviewTxPart, SearchTxPart, DedupTxPart, ChangeTxPart, EditTxPart,
              ReadingTxPart, AskTxPart, RegistryTxPart, PremiseReviewTxPart,
              ProposalTxPart, RepairTxPart, AgentTxPart, HistoryTxPart, NegativeTxPart,
              HealthTxPart, ImportPartTxPart):
    """The store seen from inside one transaction (engine.graph.GraphTx), and a part of an
    import in parts (engine.import_parts.PartTx)."""


# The transaction's view has every part of engine.graph.GraphTx and of a part's transaction,
# and the store is a Store that imports in parts: checked by mypy.
_IMPLEMENTS: type[GraphTx] = Neo4jTx
_PART: type[PartTx] = Neo4jTx


class Neo4jStore:
    def __init__(self, driver: neo4j.Driver, database: str = "neo4j", uri: str = "",
                 lock_timeout: float = DEFAULT_TIMEOUT, actor: str = "",
                 tx_metadata: Mapping[str, str] | None = None):
        self._driver = driver
        self._actor = actor  # who the writes are by, unless an entry says otherwise
        self._database = database
        self._uri = uri
        self._lock = WriteLock(driver, database, lock_timeout)
        # carried by every transaction (the resident engine finds a cancelled command's by it)
        self._metadata = dict(tx_metadata or {})
        # through a routing driver (a neo4j:// URI) every session of this store chains on the
        # bookmarks of the last, so a read routed to a follower waits until it holds this
        # store's writes (docs/scaling.md); a direct bolt:// server needs none, and a shared
        # manager there doubled an MCP show (4.3 -> 8.7 ms, scripts/bench/mcp_bench.py)
        self.bookmarks = (neo4j.GraphDatabase.bookmark_manager()
                          if isinstance(driver, neo4j.Neo4jDriver) else None)

    def init_schema(self) -> dict[str, int]:
        statements = [q for q in load_all().values() if q.path == "schema.cypher"]
        with self._session(neo4j.WRITE_ACCESS) as session:
            # an older belief_text index has no stemming: drop it, the schema makes it anew
            found = self._guard(lambda: session.run(cypher("belief_text_analyzer")).single())
            rebuilt = found is not None and found["analyzer"] != SEARCH_ANALYZER
            if rebuilt:
                self._guard(lambda: session.run(cypher("drop_belief_text")).consume())
            for q in statements:
                self._guard(lambda: session.run(q.text).consume())
            if rebuilt:
                self._guard(lambda: session.run(cypher("await_belief_text"),
                                                {"seconds": INDEX_WAIT_SECONDS}).consume())
        # a write: it also creates the write lock's node (take_write_lock MERGEs it)
        upgraded = self.write(lambda tx: tx.upgrade_provenance(), ChangeEntry("init"))
        return {**upgraded, "belief_text_stemming": int(rebuilt)}

    def read(self, work: Callable[[Neo4jTx], T]) -> T:
        """`work`'s statements as auto-commit queries (AutoCommitReads: one round trip a
        statement, no COMMIT to wait for). After a transient failure (a lost connection, a
        leader change) it runs again as a managed read transaction, which the driver retries
        as it retries every transaction."""
        with self._session(neo4j.READ_ACCESS) as session:
            try:
                return work(Neo4jTx(AutoCommitReads(session, self._metadata)))
            except (neo4j_errors.Neo4jError, neo4j_errors.DriverError) as e:
                if not e.is_retryable():
                    said = self._engine_error(e)
                    if said is None:
                        raise
                    raise said from e

        @neo4j.unit_of_work(metadata=self._metadata or None)
        def reading(tx: neo4j.ManagedTransaction) -> T:
            return work(Neo4jTx(tx))

        with self._session(neo4j.READ_ACCESS) as session:
            return self._guard(lambda: session.execute_read(reading))

    def write(self, work: Callable[[Neo4jTx], T], entry: ChangeEntry | None = None) -> T:
        """One write transaction: the lock, `work`, then its change-log entry (numbered by
        the lock's count, so entries have no gaps or repeats), committed together."""
        tag = self._lock.new_tag()
        said = entry or ChangeEntry("write")

        @neo4j.unit_of_work(metadata={**self._metadata, "eem_write": tag})
        def locked(tx: neo4j.ManagedTransaction) -> T:
            seq = self._lock.take(tx, tag, empties=said.empties)
            view = Neo4jTx(tx)
            view.change_log.actor = said.actor or self._actor
            view.change_log.seq = seq
            result = work(view)
            if said.empties:  # a reset: the way out of an import in parts that stopped
                if not view.change_log.everything:
                    raise StoreError(f"the write '{said.op}' said it empties the graph and"
                                     " did not", uri=self._uri)
                tx.run(cypher("clear_import_mark")).consume()
            view.append_change(seq, now_utc(), said)
            return result

        if said.empties:
            self._empty_in_batches()
        with self._session(neo4j.WRITE_ACCESS) as session:
            return self._guard(lambda: session.execute_write(locked))

    def _empty_in_batches(self) -> None:
        """Before a reset of a memory too large to delete in one transaction (a partial
        import in parts among them): set the mark, so every other writer is refused, then
        delete the network in batches of auto-committed transactions. The reset's own write
        deletes what is left, clears the mark and logs the reset; if this stops, the mark
        stays and `reset --yes` again goes on."""
        with self._session(neo4j.READ_ACCESS) as session:
            record = self._guard(lambda: session.run(cypher("node_counts")).single())
        if record is None or record["beliefs"] + record["placeholders"] < EMPTY_IN_BATCHES:
            return
        tag, token = self._lock.new_tag(), uuid.uuid4().hex
        described = json.dumps({"reset": True, "since": now_utc(), "actor": self._actor})

        @neo4j.unit_of_work(metadata={**self._metadata, "eem_write": tag})
        def marking(tx: neo4j.ManagedTransaction) -> None:
            self._lock.run_locking(tx, tag, "set_reset_mark", {
                "token": token, "mark": described, "at": now_utc()})

        with self._session(neo4j.WRITE_ACCESS) as session:
            self._guard(lambda: session.execute_write(marking))
            emptying = neo4j.Query(cypher("empty_network_batched"),
                                   metadata=self._metadata or None)
            self._guard(lambda: session.run(emptying).consume())

    def import_in_parts(self, mark: ImportMark) -> Neo4jImportParts:
        """Set the mark of an import in parts (engine/import_parts.py) in a transaction of
        its own, if the memory is empty; the import holding it."""
        parts = Neo4jImportParts(
            dataclasses.replace(mark, actor=mark.actor or self._actor), lock=self._lock,
            session=lambda: self._session(neo4j.WRITE_ACCESS), guard=self._guard,
            view=Neo4jTx, metadata=self._metadata)
        parts.begin()
        return parts

    def dry_run(self, work: Callable[[Neo4jTx], T]) -> T:
        tag = self._lock.new_tag()
        with self._session(neo4j.WRITE_ACCESS) as session:
            tx = session.begin_transaction(metadata={**self._metadata, "eem_write": tag})
            try:
                self._guard(lambda: self._lock.take(tx, tag))
                view = Neo4jTx(tx)
                view.change_log.actor = self._actor
                return self._guard(lambda: work(view))
            finally:
                if not tx.closed():
                    tx.rollback()

    def close(self) -> None:
        self._driver.close()

    def _session(self, mode: str) -> neo4j.Session:
        # fetch_size -1: one PULL per statement, so a wave streams without pausing per 1000 rows
        return self._driver.session(database=self._database, default_access_mode=mode,
                                    fetch_size=-1, bookmark_manager=self.bookmarks)

    def _guard(self, call: Callable[[], T]) -> T:
        try:
            return call()
        except EngineError:
            raise
        except (neo4j_errors.Neo4jError, neo4j_errors.DriverError) as e:
            said = self._engine_error(e)
            if said is None:
                raise
            raise said from e

    def _engine_error(self, e: neo4j_errors.Neo4jError | neo4j_errors.DriverError
                      ) -> StoreError | None:
        """The driver's error as the engine's (None: a driver error of no kind named here,
        raised as it is)."""
        if isinstance(e, neo4j_errors.IncompleteCommit):
            return StoreError(
                f"lost Neo4j at {self._uri} while committing: the write may or may not have"
                f" been applied (it is whole or absent); check with `{COMMAND}`",
                uri=self._uri, suggest="verify")
        if isinstance(e, (neo4j_errors.ServiceUnavailable, neo4j_errors.SessionExpired)):
            return StoreError(
                f"lost Neo4j at {self._uri}: {' '.join(str(e).split())}; start it with"
                " `scripts/neo4j start`", uri=self._uri)
        if isinstance(e, neo4j_errors.Neo4jError):
            message = " ".join(str(e.message).split())
            return StoreError(f"Neo4j query failed: {e.code}: {message}", uri=self._uri)
        return None


_STORE: type[Store[GraphTx]] = Neo4jStore
_PARTED: type[PartedStore] = Neo4jStore
