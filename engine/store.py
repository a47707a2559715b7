"""The Store protocol: what the engine needs from a graph, and the transaction it hands out.

The engine speaks only domain verbs; adapters/neo4j implements them in Cypher and
tests/fakes.py implements them in memory. Each room declares the verbs it needs as a
protocol of its own beside its records (engine/<room>/records.py); `GraphTx` composes every
one of them, so the transaction a store hands out has every part, and a function takes only
the part, or the named intersection of parts, it uses (a stage's `check` and `apply` take
the whole GraphTx). A `GraphTx` is the store seen from inside one transaction:
`Store.write(work)` runs `work(tx)` and commits everything it did, the propagation included,
or nothing. `work` may be run more than once (a cluster retries transient failures), so it
must not have side effects outside the transaction.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from engine.agents.records import AgentTx
from engine.ask.records import AskTx
from engine.change_records import ChangeEntry, ChangeLog
from engine.embedding.records import VectorTx
from engine.memory.records import Editing, HistoryRecords
from engine.negatives.records import NegativeTx
from engine.pairs.records import PairRecords
from engine.proposals.records import ProposalTx
from engine.reading.records import HealthTx, PackTx, ReadingTx, RegistryTx, SearchTx
from engine.repair.records import RepairTx
from engine.review.records import ReviewRecords
from engine.review_premises.records import PremiseReviewTx
from engine.sources.records import SourceRecords
from engine.stages.provenance import ProvenanceTx
from engine.stages.records import ArgumentsTx, ProblemsTx
from engine.tms.records import TmsTx

T = TypeVar("T")


class GraphTx(TmsTx, ChangeLog, Editing, HistoryRecords,  # the kernel, the memory room
              SearchTx, ReadingTx, PackTx, RegistryTx, HealthTx,  # reading the memory
              ProvenanceTx, ArgumentsTx, ProblemsTx,  # the stages
              ReviewRecords, PremiseReviewTx, RepairTx, PairRecords, AskTx, NegativeTx,
              VectorTx, SourceRecords,
              AgentTx, ProposalTx,  # other agents' memories, proposals
              Protocol):
    """The store seen from inside one transaction: every part above, so a call site may
    take GraphTx, or only the part it uses."""


class Store(Protocol):
    def init_schema(self) -> dict[str, int]:
        """Create constraints and indexes, and upgrade what older versions wrote
        (idempotent); returns how many nodes each upgrade changed, by name."""

    def read(self, work: Callable[[GraphTx], T]) -> T:
        """Run `work`'s reads; each sees what is committed when it runs. `work` may be run
        again (after a transient failure), so it must not have side effects it cannot
        repeat."""

    def write(self, work: Callable[[GraphTx], T], entry: ChangeEntry | None = None) -> T:
        """Run `work` in one write transaction and append its change-log entry (`entry`
        says what it is; None: op "write") in the same transaction."""

    def dry_run(self, work: Callable[[GraphTx], T]) -> T:
        """Run `work` in a transaction that is always rolled back (what-if)."""

    def close(self) -> None: ...
