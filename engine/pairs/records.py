"""What dedup and contradictions read and record in the store (PairRecords): texts, sibling
groups, verdicts on pairs, merges and their undo, the nogoods they found.
adapters/neo4j/dedup_tx.py implements it in Cypher (cypher/dedup/)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from engine.model import RewiredEdge


@dataclass(frozen=True)
class PairVerdict:
    """A stage's verdict on a pair of beliefs (a < b), with the sha256 of each text as it was
    judged: a verdict whose texts changed since is stale and the pair is asked again."""

    stage: str  # "dedup" | "contradictions"
    a: str
    b: str
    sha_a: str
    sha_b: str
    verdict: str  # SAME | DIFFERENT | CONTRADICTION | COMPATIBLE
    run_id: str = ""
    round: int = 0
    comment: str = ""


@dataclass(frozen=True)
class MergeRecord:
    """What a dedup merge changed, kept on its DUPLICATE_OF edge so undo restores it exactly:
    the edges moved and the merged belief's pins and timestamp as they were before."""

    merged: str
    kept: str
    rewired: tuple[RewiredEdge, ...]
    was_retracted: bool
    was_asserted: bool
    was_retracted_at: str
    was_reason: str
    was_updated_at: str
    run_id: str
    round: int
    at: str


class PairRecords(Protocol):
    """What dedup and contradictions read and record: texts, pairs, verdicts, merges
    and their undo, nogoods they found."""

    def in_belief_texts(self) -> list[tuple[str, str]]:
        """(id, text) of every IN belief, by id."""

    def sibling_groups(self, max_group: int) -> list[tuple[str, ...]]:
        """For each belief named as an antecedent by between 2 and `max_group` IN beliefs,
        those beliefs' ids (sorted): beliefs that rest on a common antecedent."""

    def pair_verdicts(self, stage: str) -> list[PairVerdict]:
        """Every stored verdict of `stage`."""

    def save_pair_verdicts(self, verdicts: Sequence[PairVerdict]) -> None:
        """Store each verdict, replacing the one stored for the same stage and pair."""

    def rewire_mentions(self, merged: str, kept: str) -> tuple[RewiredEdge, ...]:
        """Move every antecedent and outlist edge to `merged` (of justifications of beliefs
        other than `kept`) onto `kept`; returns what was moved. Labels are not computed."""

    def record_merge(self, record: MergeRecord) -> None:
        """The DUPLICATE_OF edge from the merged belief to the kept one, holding `record`,
        linked from its round when the round's node exists."""

    def merge_record(self, merged: str) -> MergeRecord | None:
        """The merge that retracted `merged`, if it stands."""

    def undo_merge(self, record: MergeRecord) -> None:
        """Move the edges of `record` back to the merged belief, restore its pins and
        timestamp, and delete the DUPLICATE_OF edge. Raises InvalidInput, writing nothing,
        when an edge is no longer where the merge left it. Labels are not computed."""

    def mark_nogood_found(self, nogood_id: str, stage: str, run_id: str, round_n: int) -> None:
        """Record which stage, run and round found a nogood (and link it from the round's
        node when it exists)."""

