"""DedupStage: the Stage protocol (engine/stages/stage.py) for near-duplicates.

A round shows up to `batch` candidate clusters not yet shown in this run (complete-link
clusters of neighbour pairs nobody has judged on the current texts), asks for one verdict per
cluster, and with --auto applies them in one write transaction:
- SAME: the duplicates merge into the kept belief (engine/dedup/merge.py);
- CONTRADICTION: a nogood over each pair named (engine/pairs/nogood_pairs.py);
- DIFFERENT, and every pair of the cluster neither SAME nor contradicting: recorded, so the
  pair is not asked again while both texts stay as they are.
A cluster left undecided (no usable answer after the retry) records nothing: a later run asks
it again; this run does not show it twice.
"""
from __future__ import annotations

from typing import Protocol

from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import combinations

from engine.dedup.merge import choose_keep, merge_in, rests_on
from engine.dedup.prompt import CLUSTERS
from engine.dedup.proposals_file import render
from engine.dedup.verdicts import ClusterVerdict, ShownCluster
from engine.embedding.records import NEAR_DUPLICATE_COSINE
from engine.errors import InvalidInput
from engine.model import Change
from engine.pairs.candidates import Cluster, complete_link
from engine.pairs.nogood_pairs import ContradictionTx, has_nogood_over, record_contradiction
from engine.pairs.records import PairVerdict
from engine.pairs.source import (
    DEFAULT_ID_THRESHOLD,
    DEFAULT_K,
    CandidateSource,
    CandidateTx,
    check_nearness,
    stale_member,
)
from engine.pairs.stage import GroupStage
from engine.stages.provenance import ProvenanceTx, RoundRecord, RunRecord
from engine.stages.stage import Action, AppliedEntry, Parsed, Stage
from engine.store import Store
from engine.tms.records import TmsTx

# Cosine of all-MiniLM-L6-v2 embeddings, measured on the two real networks (docs/dedup.md);
# the reading bundle collapses near duplicates at the same similarity.
DEFAULT_THRESHOLD = NEAR_DUPLICATE_COSINE
DEFAULT_MAX_CLUSTER = 8
DEFAULT_BATCH = 10  # clusters per round


@dataclass(frozen=True)
class DedupOptions:
    threshold: float | None = None  # None: the default of the candidate source
    k: int = DEFAULT_K
    max_cluster: int = DEFAULT_MAX_CLUSTER
    by_id: bool = False
    batch: int = DEFAULT_BATCH
    domain: str = ""
    search: str = "auto"  # engine.pairs.candidates.SEARCHES

    @property
    def cutoff(self) -> float:
        if self.threshold is not None:
            return self.threshold
        return DEFAULT_ID_THRESHOLD if self.by_id else DEFAULT_THRESHOLD

    def check(self) -> DedupOptions:
        check_nearness(self)
        for name, value, least in (("max-cluster", self.max_cluster, 2),
                                   ("batch", self.batch, 1)):
            if value < least:
                raise InvalidInput(f"--{name} must be at least {least}, not {value}",
                                   field=name, value=value)
        return self

    def as_dict(self) -> dict[str, object]:
        return {"threshold": self.cutoff, "k": self.k, "max_cluster": self.max_cluster,
                "by_id": self.by_id, "batch": self.batch, "search": self.search}


def find_clusters(store: Store[CandidateTx], source: CandidateSource,
                  max_cluster: int = DEFAULT_MAX_CLUSTER
                  ) -> tuple[list[Cluster], dict[str, str]]:
    """`--candidates`: the complete-link clusters a run would ask about, strongest first."""
    live, shas = source.open_pairs(store)
    return complete_link(live, max_cluster), shas


class DedupStageTx(CandidateTx, ContradictionTx, ProvenanceTx, Protocol):
    """The store parts dedup reads (candidate clusters) and writes (merges, verdicts,
    provenance)."""


class DedupStage(GroupStage[DedupOptions, CandidateSource, ShownCluster, ClusterVerdict,
                            DedupStageTx]):
    name = "dedup"
    reply = CLUSTERS

    # --- one round's view ---------------------------------------------------------------
    def due_groups(self, store: Store[DedupStageTx], busy: frozenset[str]
                   ) -> tuple[tuple[ShownCluster, ...], dict[str, object]]:
        # A cluster with a belief in a round in flight waits: its merges may change it.
        clusters, shas = find_clusters(store, self.source, self.options.max_cluster)
        due = self.first_due(clusters, lambda c: c.members, busy)
        shown = tuple(ShownCluster(k, c.members, tuple(shas[i] for i in c.members), c.score)
                      for k, c in enumerate(due, 1))
        strategy = {"strategy": "by-id" if self.options.by_id else "embedding"} if shown else {}
        return shown, {**strategy, "clusters": len(shown), "candidates": len(clusters)}

    # --- validation and apply -----------------------------------------------------------
    def fault(self, tx: ContradictionTx, item: ClusterVerdict) -> str:
        stale = stale_member(tx, item.members, item.shas)
        if stale:
            return stale
        if item.same:
            keep = _keep(tx, item)
            for m in item.same:
                if m != keep and rests_on(tx, keep, m):
                    return (f"the kept belief `{keep}` rests on `{m}`: merging would leave it "
                            "circular")
        return ""

    def write(self, tx: ContradictionTx, valid: Sequence[ClusterVerdict], run: RunRecord,
              record: RoundRecord, at: str) -> tuple[list[AppliedEntry], Change]:
        change = Change()
        entries: list[AppliedEntry] = []
        verdicts: list[PairVerdict] = []
        for v in valid:
            shas = dict(zip(v.members, v.shas))
            same: set[tuple[str, str]] = set()
            if v.same:
                keep = _keep(tx, v)
                same = {(min(a, b), max(a, b)) for a, b in combinations(v.same, 2)}
                for m in v.same:
                    if m != keep:
                        change = change.merge(merge_in(tx, m, keep, run_id=run.id,
                                                       round_n=record.round, at=at))
                        entries.append(AppliedEntry(m, Action.MERGED, fields={
                            "kept": keep, "cluster": v.cluster}))
            for a, b in v.contradicts:
                if has_nogood_over(tx, a, b):
                    continue
                ident, step = record_contradiction(tx, a, b, stage=self.name, run_id=run.id,
                                                   round_n=record.round, at=at)
                change = change.merge(step)
                entries.append(AppliedEntry(ident, Action.NOGOOD,
                                            fields={"members": [a, b], "cluster": v.cluster}))
            for a, b in combinations(v.members, 2):
                key = (a, b) if a < b else (b, a)
                verdict = ("SAME" if key in same else
                           "CONTRADICTION" if key in v.contradicts else "DIFFERENT")
                verdicts.append(PairVerdict(self.name, key[0], key[1], shas[key[0]],
                                            shas[key[1]], verdict, run.id, record.round,
                                            v.comment))
            if not v.same and not v.contradicts:
                entries.append(AppliedEntry(f"cluster {v.cluster}", Action.DIFFERENT,
                                            fields={"members": list(v.members)}))
        tx.save_pair_verdicts(verdicts)
        truths = tx.get_beliefs([e["kept"] for e in entries if e.action is Action.MERGED])
        entries = [replace(e, truth_value=str(truths[e["kept"]].truth))
                   if e.action is Action.MERGED and e["kept"] in truths else e for e in entries]
        return entries, change

    # --- the report and the proposals file -------------------------------------------------
    def render_file(self, items: Sequence[ClusterVerdict], run: RunRecord, command: str) -> str:
        return render(items, run, command)


def _keep(tx: TmsTx, v: ClusterVerdict) -> str:
    beliefs = tx.get_beliefs(v.same)
    return choose_keep(v.same, v.keep, beliefs, tx.dependent_counts(v.same))


_STAGE: type[Stage[ClusterVerdict, Parsed[ClusterVerdict], DedupStageTx]] = DedupStage
