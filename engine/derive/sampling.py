"""Which IN premises a derive round shows the model: the sampling strategies.

`--budget N` is a hard cap on belief lines. A sampler lives for one run and is asked once per
round, `sample(round_index, pool)`, with the pool as the store has it then: the IN premises
(after any `--topic` filter) as (id, text) pairs sorted by id. Every strategy is pure: no I/O;
the cluster strategies get their vectors from the `vectors` function they are given
(engine.derive.embedding_cache.embedding_source reads and computes them), and call it only
for ids they have not seen yet in the run.

Every strategy sweeps: it keeps a *pass* (which premises it has shown since the pass began)
and never shows a premise twice in one pass. When a round needs more than the pass has left,
the pass ends inside that round and the rest of the round starts the next pass, so every round
is full (min(N, pool) lines) and, while the pool does not change, every IN premise is shown
within ceil(P / N) rounds (alphabetical, random, cluster) or sum over clusters of
ceil(size / N) <= ceil(P / N) + k - 1 rounds (intra-cluster).

- `alphabetical` (default): ids sorted; round r takes the r-th window of N ids, wrapping
  around at the end, so an exhaust run sweeps the whole network. With a stable pool this is
  exactly ids[(r*N) mod P ...] wrapping.
- `random` (`--sample`): one seeded shuffle of the pool per run (`--seed`; without one a seed
  is drawn and kept in `sampler.seed` so the report can record it), taken window by window.
  The cluster strategies use `--seed` for KMeans, 0 without it, so a network keeps its
  clusters from run to run.
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

k (`--n-clusters`, else `default_n_clusters`): max(2, ceil(P / N)) capped at 32 and at P, so
an average cluster fills about one prompt (an intra-cluster round is nearly full) up to ~10k
premises, and the first-round KMeans stays well under a second on a large pool (at 100k, 32
clusters of ~3k premises, each swept over ~10 of its turns). The clusters are fitted once per run, on the
first non-empty pool. The `n_clusters` attribute is the k in use: the requested one until the
first fit, then the number of non-empty clusters found.

When the pool changes between rounds (a premise goes OUT, a new one is added):
- a premise that left the pool is dropped from the sweep (if it comes back it counts as new);
- a new premise joins the current pass: alphabetical puts it in id order (it is shown when
  the sweep reaches it, in this pass or, if it sorts behind the cursor, when the sweep wraps);
  random inserts it at a seeded random place among the premises not yet shown; the cluster
  strategies assign it to the nearest cluster centroid (cosine) and insert it there in id
  order. The clusters are not refitted during a run.
Rounds must be asked in order. Asking again for the last round gives the same sample, whatever
the pool (the caller drops ids no longer in its pool); skipping ahead takes the skipped
windows first, so round r is the same whether or not the rounds before it were asked.
"""
from __future__ import annotations

import bisect
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from engine.errors import InvalidInput, ModelError

PoolItem = tuple[str, str]  # (id, text) of an IN premise

# Given pool items, their embeddings: an (n, d) array or a sequence of n vectors, row i for
# item i. Vectors are expected normalized (cosine similarity is their dot product).
VectorSource = Callable[[Sequence[PoolItem]], Any]
# (vectors (n, d), k, seed) -> a cluster label per row; adapters.clustering.kmeans_labels.
Clusterer = Callable[[Any, int, int], Sequence[int]]

STRATEGIES = ("alphabetical", "random", "cluster", "intra-cluster")
CLUSTER_STRATEGIES = ("cluster", "intra-cluster")
DEFAULT_BUDGET = 300
MAX_DEFAULT_CLUSTERS = 32
CENTRE_ROWS = 256  # members averaged into a cluster's centre (for premises added later)
EMBEDDINGS_HINT = "pip install 'eem-engine[embeddings]'"


@dataclass(frozen=True)
class Sample:
    """What one round shows: premise ids (sorted, at most the budget), how they were chosen,
    the cluster an intra-cluster round is about (0 = the largest), and a short human line for
    the prompt's Statistics section."""

    ids: tuple[str, ...]
    strategy: str
    cluster: int | None
    description: str


class Sampler(Protocol):
    n_clusters: int | None

    def sample(self, round_index: int, pool: Sequence[PoolItem]) -> Sample:
        """The sample for round `round_index` (from 0 within a run) of `pool`."""


def default_n_clusters(pool_size: int, budget: int) -> int:
    """k when `--n-clusters` is not given: about one prompt's worth of premises per cluster."""
    if pool_size <= 0:
        return 0
    return max(1, min(pool_size, MAX_DEFAULT_CLUSTERS, max(2, math.ceil(pool_size / budget))))


def make_sampler(
    strategy: str,
    *,
    budget: int = DEFAULT_BUDGET,
    seed: int | None = None,
    n_clusters: int | None = None,
    vectors: VectorSource | None = None,
    clusterer: Clusterer | None = None,
) -> Sampler:
    """A fresh sampler for one run. `vectors` (required for the cluster strategies) returns
    embeddings for pool items; `clusterer` defaults to scikit-learn KMeans
    (adapters.clustering.kmeans_labels). Without `seed`, random draws one and the cluster
    strategies use 0 (the same clusters every run); either way it is in `.seed`."""
    if strategy not in STRATEGIES:
        raise InvalidInput(
            f"unknown sampling strategy {strategy!r}: one of {', '.join(STRATEGIES)}",
            field="strategy", value=strategy,
        )
    if not isinstance(budget, int) or budget < 1:
        raise InvalidInput(f"the budget must be at least 1, got {budget!r}",
                           field="budget", value=budget)
    if n_clusters is not None and (not isinstance(n_clusters, int) or n_clusters < 1):
        raise InvalidInput(f"the number of clusters must be at least 1, got {n_clusters!r}",
                           field="n_clusters", value=n_clusters)
    if seed is None:  # clusters stay the same from run to run; random draws a fresh order
        seed = 0 if strategy in CLUSTER_STRATEGIES else random.SystemRandom().randrange(2**32)
    if strategy == "alphabetical":
        return AlphabeticalSampler(budget)
    if strategy == "random":
        return RandomSampler(budget, seed)
    if vectors is None:
        raise InvalidInput(f"the {strategy} strategy needs embeddings: pass `vectors`",
                           field="vectors")
    if clusterer is None:
        from adapters.clustering import kmeans_labels as clusterer
        from adapters.clustering import start_loading

        start_loading()  # scikit-learn loads while the first pool and vectors are read
    cls = ProportionalClusterSampler if strategy == "cluster" else IntraClusterSampler
    return cls(budget, seed, n_clusters, vectors, clusterer)


# --- the sweep: one ordered group of ids, taken window by window ---------------------------
class _Sweep:
    """Ids in a fixed order with a cursor; `take` returns ids not yet shown in this pass,
    from the cursor on, wrapping. `keep_sorted` keeps the order sorted when ids are added
    (alphabetical, clusters); otherwise new ids are inserted at random places ahead of the
    cursor (random)."""

    def __init__(self, order: list[str], *, keep_sorted: bool):
        self.order = order
        self.keep_sorted = keep_sorted
        self.pos = 0
        self.shown: set[str] = set()
        self.passes = 1

    def __len__(self) -> int:
        return len(self.order)

    @property
    def remaining(self) -> int:
        return len(self.order) - len(self.shown)

    def take(self, n: int, *, avoid: frozenset[str] | set[str] = frozenset(),
             repeat: bool = False) -> list[str]:
        """Up to `n` ids from the cursor on: not yet shown in this pass (marked shown, cursor
        moved past them), or with `repeat` already shown ones (to fill up; nothing moves)."""
        picked: list[str] = []
        size = len(self.order)
        i, scanned = self.pos, 0
        while len(picked) < n and scanned < size:
            x = self.order[i]
            if (x in self.shown) == repeat and x not in avoid:
                picked.append(x)
            i = i + 1 if i + 1 < size else 0
            scanned += 1
        if not repeat:
            self.pos = i
            self.shown.update(picked)
        return picked

    def new_pass(self) -> None:
        self.shown.clear()
        self.passes += 1

    def update(self, departed: set[str], added: Sequence[str], rng: random.Random) -> None:
        """Drop ids that left the pool; add new ones (see the module doc)."""
        if departed:
            before = sum(1 for x in self.order[:self.pos] if x in departed)
            self.order = [x for x in self.order if x not in departed]
            self.pos -= before
            self.shown -= departed
        if added:
            if self.keep_sorted:
                anchor = self.order[self.pos - 1] if self.pos > 0 else None
                self.order = sorted(self.order + list(added))
                self.pos = bisect.bisect_right(self.order, anchor) if anchor is not None else 0
            else:
                new = sorted(added)
                rng.shuffle(new)
                head, tail = self.order[:self.pos], self.order[self.pos:]
                slots = set(rng.sample(range(len(tail) + len(new)), len(new)))
                t, k, merged = iter(tail), iter(new), []
                for j in range(len(tail) + len(new)):
                    merged.append(next(k) if j in slots else next(t))
                self.order = head + merged
        if self.pos >= len(self.order):
            self.pos = 0


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


# --- the base: pool bookkeeping, round order, idempotent retries ---------------------------
class _SweepingSampler:
    strategy = ""
    n_clusters: int | None = None

    def __init__(self, budget: int, seed: int | None):
        self.budget = budget
        self.seed = seed
        self._rng = random.Random(seed)
        self._known: set[str] | None = None  # the ids in the sweep state
        self._next_round = 0
        self._last: tuple[int, Sample] | None = None

    def sample(self, round_index: int, pool: Sequence[PoolItem]) -> Sample:
        if not isinstance(round_index, int) or round_index < 0:
            raise InvalidInput(f"round index must be 0 or more, got {round_index!r}",
                               field="round_index", value=round_index)
        if self._last is not None and self._last[0] == round_index:
            return self._last[1]
        ids = frozenset(item[0] for item in pool)
        items = list(pool) if len(ids) == len(pool) else _dedupe(pool)
        if round_index < self._next_round:
            raise InvalidInput(
                f"round {round_index} comes before round {self._next_round - 1}, already "
                "sampled: a sampler serves one run, rounds in order",
                field="round_index", value=round_index)
        self._sync(items, ids)
        while self._next_round < round_index:  # rounds skipped: take their windows
            self._take(self._next_round, len(items))
            self._next_round += 1
        chosen, cluster, what = self._take(round_index, len(items))
        self._next_round = round_index + 1
        result = Sample(
            ids=tuple(sorted(chosen)),
            strategy=self.strategy,
            cluster=cluster,
            description=f"{what}: {len(chosen)} of {len(items)} IN premises"
            if items else f"{self.strategy}: no IN premises to show",
        )
        self._last = (round_index, result)
        return result

    def _sync(self, items: list[PoolItem], ids: frozenset[str]) -> None:
        if self._known is None:
            if items:
                self._start(items)
                self._known = set(ids)
            return
        if ids == self._known:
            return
        departed = self._known - ids
        added = [item for item in items if item[0] not in self._known]
        self._update(departed, added)
        self._known = set(ids)

    # the strategies fill these in
    def _start(self, items: list[PoolItem]) -> None: ...

    def _update(self, departed: set[str], added: list[PoolItem]) -> None: ...

    def _take(self, round_index: int, pool_size: int) -> tuple[list[str], int | None, str]: ...


def _dedupe(pool: Sequence[PoolItem]) -> list[PoolItem]:
    seen: set[str] = set()
    out: list[PoolItem] = []
    for item in pool:
        if item[0] not in seen:
            seen.add(item[0])
            out.append((item[0], item[1]))
    return out


def _window_label(sweep_shown_before: int, pool_size: int, budget: int) -> str:
    windows = max(1, math.ceil(pool_size / budget))
    return f"{min(windows, 1 + sweep_shown_before // budget)}/{windows}"


class _OneSweepSampler(_SweepingSampler):
    """alphabetical and random: the whole pool is one sweep."""

    keep_sorted = True

    def __init__(self, budget: int, seed: int | None):
        super().__init__(budget, seed)
        self._sweep: _Sweep | None = None

    def _order(self, ids: list[str]) -> list[str]:
        return sorted(ids)

    def _start(self, items: list[PoolItem]) -> None:
        self._sweep = _Sweep(self._order([i for i, _ in items]), keep_sorted=self.keep_sorted)

    def _update(self, departed: set[str], added: list[PoolItem]) -> None:
        self._sweep.update(departed, [i for i, _ in added], self._rng)

    def _take(self, round_index: int, pool_size: int) -> tuple[list[str], int | None, str]:
        sweep = self._sweep
        if sweep is None or not len(sweep):
            return [], None, self.strategy
        shown_before, passes = len(sweep.shown), sweep.passes
        chosen = sweep.take(self.budget)
        if len(chosen) < self.budget and len(chosen) < len(sweep):
            sweep.new_pass()
            chosen += sweep.take(self.budget - len(chosen), avoid=set(chosen))
        window = _window_label(shown_before, pool_size, self.budget)
        return chosen, None, f"{self.strategy} window {window} (pass {passes}{self._about()})"

    def _about(self) -> str:
        return ""


class AlphabeticalSampler(_OneSweepSampler):
    strategy = "alphabetical"

    def __init__(self, budget: int = DEFAULT_BUDGET):
        super().__init__(budget, None)


class RandomSampler(_OneSweepSampler):
    strategy = "random"
    keep_sorted = False

    def _order(self, ids: list[str]) -> list[str]:
        order = sorted(ids)
        self._rng.shuffle(order)
        return order

    def _about(self) -> str:
        return f", seed {self.seed}"


# --- the cluster strategies ------------------------------------------------------------------
class _ClusterSampler(_SweepingSampler):
    def __init__(self, budget: int, seed: int, n_clusters: int | None,
                 vectors: VectorSource, clusterer: Clusterer):
        super().__init__(budget, seed)
        self.n_clusters = n_clusters
        self._requested = n_clusters
        self._vectors = vectors
        self._clusterer = clusterer
        self._sweeps: list[_Sweep] = []
        self._cluster_of: dict[str, int] = {}
        self._centroids: Any = None

    def _matrix(self, items: Sequence[PoolItem]):
        np = _numpy()
        rows = np.asarray(self._vectors(items), dtype=np.float32)
        if rows.ndim != 2 or rows.shape[0] != len(items):
            raise ModelError(
                f"the embeddings given for {len(items)} premises have shape {rows.shape}: "
                "one vector per premise expected")
        return rows

    def _start(self, items: list[PoolItem]) -> None:
        np = _numpy()
        matrix = self._matrix(items)
        k = self._requested or default_n_clusters(len(items), self.budget)
        k = max(1, min(k, len(items)))
        labels = [int(x) for x in self._clusterer(matrix, k, self.seed)]
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
            self._sweeps.append(_Sweep(ids, keep_sorted=True))
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


class ProportionalClusterSampler(_ClusterSampler):
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


class IntraClusterSampler(_ClusterSampler):
    strategy = "intra-cluster"

    def __init__(self, *args: Any):
        super().__init__(*args)
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
                f" window {_window_label(shown_before, len(sweep), self.budget)}")
        return chosen, c, what


def _numpy():
    try:
        import numpy
    except ImportError as e:
        raise ModelError(f"the cluster strategies need numpy: {EMBEDDINGS_HINT}") from e
    return numpy
