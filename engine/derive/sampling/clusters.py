"""The strategies that cluster the pool by its embeddings and sweep each cluster.

- `cluster` (`--cluster`): KMeans over the embeddings; each round gives every cluster slots
  in proportion to its size (largest remainder; at least one slot per cluster while the budget
  allows), and each cluster is swept in id order across rounds, so coverage still grows. Slots
  a cluster cannot fill, because it has nothing left to show in this pass, go to the clusters
  that still have, in proportion to what they have left.
- `intra-cluster` (`--intra-cluster`): each round gives the whole budget to one cluster,
  rotating through all k starting with the largest (clusters are numbered by size, 0 the
  largest). A cluster larger than N is swept window by window on its successive turns; a
  cluster with nothing left in this pass is skipped until the pass ends, so every premise is
  still shown within ceil(P / N) + k rounds. The last window of a cluster is filled up with
  members of the same cluster already shown, so a round shows min(N, cluster size) lines.

Both use `--seed` for KMeans, 0 without it, so a network keeps its clusters from run to run.
k (`--n-clusters`, else `default_n_clusters`): max(2, ceil(P / N)) capped at 32 and at P, so
an average cluster fills about one prompt (an intra-cluster round is nearly full) up to ~10k
premises, and the first-round KMeans stays well under a second on a large pool (at 100k, 32
clusters of ~3k premises, each swept over ~10 of its turns). The clusters are fitted once per
run, on the first non-empty pool, by the `clusterer` given. The `n_clusters` attribute is the
k in use: the requested one until the first fit, then the number of non-empty clusters found.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from engine.derive.sampling.sample import Clusterer, PoolItem, VectorSource
from engine.derive.sampling.sweep import Sweep, SweepingSampler, window_label
from engine.errors import ModelError
from engine.optional import numpy_module

MAX_DEFAULT_CLUSTERS = 32
CENTRE_ROWS = 256  # members averaged into a cluster's centre (for premises added later)


def default_n_clusters(pool_size: int, budget: int) -> int:
    """k when `--n-clusters` is not given: about one prompt's worth of premises per cluster."""
    if pool_size <= 0:
        return 0
    return max(1, min(pool_size, MAX_DEFAULT_CLUSTERS, max(2, math.ceil(pool_size / budget))))


def apportion(total: int, weights: Sequence[int], caps: Sequence[int],
              *, at_least_one: bool = False) -> list[int]:
    """Split `total` slots in proportion to `weights` by largest remainder (ties to the lower
    index), giving no group more than its cap; what a capped group cannot take goes to the
    others. With `at_least_one`, a group left with no slot then takes one from the group
    with the most, while that one keeps at least one."""
    n = len(weights)
    out = [0] * n
    live = [i for i in range(n) if weights[i] > 0 and caps[i] > 0]
    total = min(total, sum(caps[i] for i in live))
    eligible = list(live)  # `live` shrinks as groups fill up
    while total > 0:
        live = [i for i in live if caps[i] - out[i] > 0]
        if not live:
            break
        weight = sum(weights[i] for i in live)
        shares = {i: total * weights[i] / weight for i in live}
        over = [i for i in live if math.floor(shares[i]) >= caps[i] - out[i]]
        if over:  # fill the capped groups, then share the rest among the others
            for i in over:
                total -= caps[i] - out[i]
                out[i] = caps[i]
            continue
        given = 0
        for i in live:
            whole = math.floor(shares[i])
            out[i] += whole
            given += whole
        left = total - given
        by_remainder = sorted(live, key=lambda i: (-(shares[i] - math.floor(shares[i])), i))
        for i in by_remainder:
            if left == 0:
                break
            if caps[i] - out[i] > 0:
                out[i] += 1
                left -= 1
        total = left
    if at_least_one:
        for i in sorted((i for i in eligible if out[i] == 0), key=lambda i: (-weights[i], i)):
            donor = max(range(n), key=lambda j: (out[j], -j))
            if out[donor] <= 1:
                break
            out[donor] -= 1
            out[i] = 1
    return out


class ClusterSampler(SweepingSampler):
    def __init__(self, budget: int, seed: int, n_clusters: int | None,
                 vectors: VectorSource, clusterer: Clusterer):
        super().__init__(budget, seed)
        self.n_clusters = n_clusters
        self._requested = n_clusters
        self._vectors = vectors
        self._clusterer = clusterer
        self._sweeps: list[Sweep] = []
        self._cluster_of: dict[str, int] = {}
        self._centroids: Any = None

    def clusters(self) -> list[list[str]]:
        """The clusters' member ids as the sampler holds them, numbered by size, the largest
        first (none before the first sample)."""
        return [list(s.order) for s in self._sweeps]

    def _matrix(self, items: Sequence[PoolItem]):
        np = numpy_module("the cluster strategies")
        rows = np.asarray(self._vectors(items), dtype=np.float32)
        if rows.ndim != 2 or rows.shape[0] != len(items):
            raise ModelError(
                f"the embeddings given for {len(items)} premises have shape {rows.shape}: "
                "one vector per premise expected")
        return rows

    def _start(self, items: list[PoolItem]) -> None:
        np = numpy_module("the cluster strategies")
        matrix = self._matrix(items)
        k = self._requested or default_n_clusters(len(items), self.budget)
        k = max(1, min(k, len(items)))
        labels = [int(x) for x in self._clusterer(matrix, k, self.seed or 0)]
        if len(labels) != len(items):
            raise ModelError(f"the clusterer labelled {len(labels)} of {len(items)} premises")
        members: dict[int, list[int]] = {}
        for row, label in enumerate(labels):
            members.setdefault(label, []).append(row)
        # number clusters by size, the largest first (ties: the one with the smaller first id)
        groups = sorted(members.values(), key=lambda rows: (-len(rows), items[rows[0]][0]))
        centroids = []
        for number, rows in enumerate(groups):
            ids = sorted(items[r][0] for r in rows)
            self._sweeps.append(Sweep(ids, keep_sorted=True))
            for i in ids:
                self._cluster_of[i] = number
            # the centre new premises are matched against: the mean of (up to) CENTRE_ROWS
            # members, spread over the cluster, is close enough and costs no pass over all
            c = matrix[rows[::max(1, len(rows) // CENTRE_ROWS)]].mean(axis=0)
            norm = float(np.linalg.norm(c))
            centroids.append(c / norm if norm > 0 else c)
        self._centroids = np.stack(centroids)
        self.n_clusters = len(groups)

    def _update(self, departed: set[str], added: list[PoolItem]) -> None:
        by_cluster: dict[int, set[str]] = {}
        for i in departed:
            by_cluster.setdefault(self._cluster_of.pop(i), set()).add(i)
        new_in: dict[int, list[str]] = {}
        if added:
            nearest = (self._matrix(added) @ self._centroids.T).argmax(axis=1)
            for (i, _), c in zip(added, nearest.tolist()):
                self._cluster_of[i] = c
                new_in.setdefault(c, []).append(i)
        for c in set(by_cluster) | set(new_in):
            self._sweeps[c].update(by_cluster.get(c, set()), new_in.get(c, []), self._rng)

    def _pass_over(self) -> bool:
        return all(s.remaining == 0 for s in self._sweeps)

    def _new_pass(self) -> None:
        for s in self._sweeps:
            s.new_pass()


class ProportionalClusterSampler(ClusterSampler):
    strategy = "cluster"

    def _take(self, round_index: int, pool_size: int) -> tuple[list[str], int | None, str]:
        sweeps = self._sweeps
        if not sweeps or pool_size == 0:
            return [], None, self.strategy
        sizes = [len(s) for s in sweeps]
        want = min(self.budget, pool_size)
        slots = apportion(want, sizes, sizes, at_least_one=True)
        chosen: list[list[str]] = [s.take(n) for s, n in zip(sweeps, slots)]
        left = want - sum(map(len, chosen))
        if left > 0:  # clusters with nothing left in this pass give their slots away
            rest = [s.remaining for s in sweeps]
            for c, n in enumerate(apportion(left, rest, rest)):
                chosen[c] += sweeps[c].take(n)
            left = want - sum(map(len, chosen))
        if left > 0 and self._pass_over():  # the pass ends inside this round
            self._new_pass()
            room = [len(s) - len(got) for s, got in zip(sweeps, chosen)]
            for c, n in enumerate(apportion(left, sizes, room)):
                chosen[c] += sweeps[c].take(n, avoid=set(chosen[c]))
        shown = [len(got) for got in chosen]
        listed = ", ".join(str(n) for n in shown[:8]) + (", ..." if len(shown) > 8 else "")
        what = (f"cluster-proportional over {len(sweeps)} clusters (slots {listed};"
                f" pass {max(s.passes for s in sweeps)})")
        return [i for got in chosen for i in got], None, what


class IntraClusterSampler(ClusterSampler):
    strategy = "intra-cluster"

    def __init__(self, budget: int, seed: int, n_clusters: int | None,
                 vectors: VectorSource, clusterer: Clusterer):
        super().__init__(budget, seed, n_clusters, vectors, clusterer)
        self._turn = 0  # the next cluster in the rotation

    def _take(self, round_index: int, pool_size: int) -> tuple[list[str], int | None, str]:
        sweeps = self._sweeps
        if not sweeps or pool_size == 0:
            return [], None, self.strategy
        k = len(sweeps)
        if self._pass_over():
            self._new_pass()
        c = next(c % k for c in range(self._turn, self._turn + k) if sweeps[c % k].remaining)
        sweep = sweeps[c]
        shown_before = len(sweep.shown)
        chosen = sweep.take(self.budget)
        if len(chosen) < self.budget:  # fill up with this cluster's members already shown
            chosen += sweep.take(self.budget - len(chosen), avoid=set(chosen), repeat=True)
        self._turn = (c + 1) % k
        what = (f"intra-cluster: cluster {c} of {k} (0 = largest; {len(sweep)} premises),"
                f" window {window_label(shown_before, len(sweep), self.budget)}")
        return chosen, c, what
