"""`GraphTx`: the store seen from inside one transaction, with every part.

Each room declares the store verbs it needs as a protocol beside its records; this module,
above every room whose part it composes, puts them together. adapters/neo4j's transaction
and tests/fakes.py's are each one `GraphTx`, so the stores the faces hold (engine/wiring/,
engine/service/) are a `Store[GraphTx]` (engine/store.py): a `Store` of any part, or of any
intersection of parts, that a function below takes.
"""
from __future__ import annotations

from typing import Protocol

from engine.agents.records import AgentTx
from engine.ask.records import AskTx
from engine.change_records import ChangeLog
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
from engine.stages.records import ArgumentsTx, GapsTx, ProblemsTx
from engine.tms.records import TmsTx


class GraphTx(TmsTx, ChangeLog, Editing, HistoryRecords,  # the kernel, the memory room
              SearchTx, ReadingTx, PackTx, RegistryTx, HealthTx,  # reading the memory
              ProvenanceTx, ArgumentsTx, ProblemsTx, GapsTx,  # the stages
              ReviewRecords, PremiseReviewTx, RepairTx, PairRecords, AskTx, NegativeTx,
              VectorTx, SourceRecords,
              AgentTx, ProposalTx,  # other agents' memories, proposals
              Protocol):
    """The store seen from inside one transaction: every part above, so a call site may
    take GraphTx, or only the part it uses."""
