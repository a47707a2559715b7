"""What the in-memory store keeps: one FakeState per committed graph, copied whole as each
transaction's draft (tests/fakes.py commits the draft, or drops it)."""
from __future__ import annotations

import copy
import dataclasses
from typing import Any

from engine.agents.records import NamespaceRecord
from engine.ask.records import CitedBelief
from engine.change_records import LogEntry
from engine.embedding.records import StoredEmbedding
from engine.memory.records import SupersedeRecord
from engine.model import Belief, Nogood
from engine.pairs.records import MergeRecord, PairVerdict
from engine.proposals.records import Proposal
from engine.repair.records import Gap, RepairEdge
from engine.review.records import ReviewStamp, VerdictEdge
from engine.review_premises.records import PremiseStamp, PremiseVerdictEdge
from engine.sources.records import SourceRecord
from engine.stages.provenance import RoundRecord, RunRecord


def _field(factory: Any) -> Any:
    return dataclasses.field(default_factory=factory)


@dataclasses.dataclass
class FakeState:
    beliefs: dict[str, Belief] = _field(dict)
    nogoods: list[Nogood] = _field(list)
    runs: dict[str, RunRecord] = _field(dict)
    rounds: list[RoundRecord] = _field(list)
    proposed: list[tuple[str, int, dict[str, str]]] = _field(list)
    extra: dict[str, Any] = _field(dict)
    embeddings: dict[str, StoredEmbedding] = _field(dict)
    sources: dict[str, SourceRecord] = _field(dict)
    from_edges: dict[str, tuple[str, tuple[int, int]]] = _field(dict)
    reviews: dict[str, ReviewStamp] = _field(dict)
    verdicts: list[tuple[str, int, VerdictEdge]] = _field(list)
    # marker labels by belief id: Defeater, Challenge, Defence, Summary
    marks: dict[str, frozenset[str]] = _field(dict)
    pair_verdicts: dict[tuple[str, str, str], PairVerdict] = _field(dict)
    merges: dict[str, MergeRecord] = _field(dict)
    found: dict[str, tuple[str, str, int]] = _field(dict)
    supersedes: dict[str, SupersedeRecord] = _field(dict)
    changes: list[LogEntry] = _field(list)
    seq: int = 0  # the last change-log seq handed out (the write lock's count)
    # (belief, gate) -> the justifications gate_belief appended the gate to (1-based)
    gated: dict[tuple[str, str], frozenset[int]] = _field(dict)
    # ask: (run id, round) -> (question, status, answer); each CITED edge
    answers: dict[tuple[str, int], tuple[str, str, str]] = _field(dict)
    citations: list[tuple[str, int, CitedBelief, str]] = _field(list)
    # repair: REPAIRED edges (run id, round, edge) and (:Gap) nodes with their round
    repairs: list[tuple[str, int, RepairEdge]] = _field(list)
    gaps: list[tuple[Gap, int]] = _field(list)
    # premise review: stamps by belief and REVIEWED edges to premises
    premise_stamps: dict[str, PremiseStamp] = _field(dict)
    premise_verdicts: list[tuple[str, int, PremiseVerdictEdge]] = _field(list)
    namespaces: dict[str, NamespaceRecord] = _field(dict)
    proposals: dict[str, Proposal] = _field(dict)

    def copy(self) -> FakeState:
        """A transaction's draft. Records are frozen dataclasses and frozensets, replaced
        and never changed in place, so copying the containers is enough (and deepcopy cannot
        copy the MappingProxyType a Belief's metadata is); `extra` holds plain values."""
        draft = copy.copy(self)
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, (dict, list, set)):
                setattr(draft, f.name, copy.deepcopy(value) if f.name == "extra" else
                        copy.copy(value))
        return draft
