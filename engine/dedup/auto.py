"""`dedup --auto` without a model: merge every candidate cluster whose weakest pair is at or
above a threshold, the way an accepted SAME verdict merges it (engine/dedup/merge.py: the
kept belief the one most rested on, edges moved, the merged one retracted `duplicate of`,
undone by `dedup undo ID`), all in one write transaction with the propagation it causes.
Without `write` the same work runs in a transaction that is rolled back: the what-if.

No model reads the texts, so the threshold is stricter than the candidates' (0.95 against
0.85 by default): two texts that differ only in a number ("one hour", "two hours") can sit
near 0.99, which is why nothing is merged before the what-if has been seen."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from engine.change_records import ChangeEntry
from engine.dedup.merge import choose_keep, merge_in, rests_on
from engine.model import Change
from engine.pairs.candidates import Cluster
from engine.pairs.nogood_pairs import ContradictionTx
from engine.pairs.records import PairVerdict
from engine.pairs.source import stale_member
from engine.store import Store
from engine.tms import now

DEFAULT_AUTO_THRESHOLD = 0.95
RUN_PREFIX = "dedup-auto"  # the run id a model-free merge records (no Run node)


@dataclass(frozen=True)
class Merge:
    merged: str
    kept: str
    score: float  # the cluster's weakest pair


@dataclass(frozen=True)
class AutoMerged:
    """The merges made (or, not `written`, that would be), the clusters left and why, and
    the labels that changed."""

    threshold: float
    merges: tuple[Merge, ...]
    skipped: tuple[tuple[tuple[str, ...], str], ...]  # (members, why)
    change: Change = field(default_factory=Change)
    written: bool = False

    def as_dict(self) -> dict[str, object]:
        return {"threshold": self.threshold, "written": self.written,
                "merges": [{"merged": m.merged, "kept": m.kept, "score": round(m.score, 4)}
                           for m in self.merges],
                "skipped": [{"members": list(members), "reason": why}
                            for members, why in self.skipped],
                "went_in": sorted(self.change.went_in), "went_out": sorted(self.change.went_out)}


def merge_clusters_in(tx: ContradictionTx, clusters: Sequence[Cluster],
                      shas: Mapping[str, str], threshold: float, *, at: str) -> AutoMerged:
    """`shas`: each member's text hash when the clusters were found (a text changed since,
    or a belief gone OUT, leaves its cluster alone)."""
    run_id = f"{RUN_PREFIX}-{at}"
    merges: list[Merge] = []
    skipped: list[tuple[tuple[str, ...], str]] = []
    change = Change()
    verdicts: list[PairVerdict] = []
    for c in clusters:
        if c.score < threshold:
            continue
        stale = stale_member(tx, c.members, [shas[i] for i in c.members])
        if stale:
            skipped.append((c.members, stale))
            continue
        beliefs = tx.get_beliefs(c.members)
        keep = choose_keep(c.members, "", beliefs, tx.dependent_counts(c.members))
        circular = [m for m in c.members if m != keep and rests_on(tx, keep, m)]
        if circular:
            skipped.append((c.members, f"the kept belief `{keep}` rests on `{circular[0]}`: "
                                       "merging would leave it circular"))
            continue
        for m in c.members:
            if m != keep:
                change = change.merge(merge_in(tx, m, keep, run_id=run_id, round_n=0, at=at))
                merges.append(Merge(m, keep, c.score))
        verdicts += [PairVerdict("dedup", a, b, shas[a], shas[b], "SAME", run_id, 0,
                                 f"merged without a model at {c.score:.4f} >= {threshold:g}")
                     for a, b in combinations(c.members, 2)]
    tx.save_pair_verdicts(verdicts)
    return AutoMerged(threshold, tuple(merges), tuple(skipped), change)


def auto_merge(store: Store[ContradictionTx], clusters: Sequence[Cluster], shas: Mapping[str, str],
               threshold: float, *, write: bool) -> AutoMerged:
    """Merge (`write`) or show what merging would do (a rolled-back transaction)."""
    at = now()
    if not write:
        return store.dry_run(lambda tx: merge_clusters_in(tx, clusters, shas, threshold, at=at))
    done = store.write(lambda tx: merge_clusters_in(tx, clusters, shas, threshold, at=at),
                       ChangeEntry("dedup-auto", {"threshold": threshold}))
    return AutoMerged(done.threshold, done.merges, done.skipped, done.change, written=True)
