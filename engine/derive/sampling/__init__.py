"""Which IN premises a derive round shows the model: the sampling strategies.

`--budget N` is a hard cap on belief lines. A sampler lives for one run and is asked once per
round, `sample(round_index, pool)`, with the pool as the store has it then: the IN premises
(after any `--topic` filter) as (id, text) pairs sorted by id. Every strategy is pure: no I/O;
the cluster strategies get their vectors from the `vectors` function they are given
(engine.embedding.cache.embedding_source reads and computes them), and call it only
for ids they have not seen yet in the run, and their KMeans from the `clusterer` the entry
point gives them (adapters.clustering.kmeans_labels).

Every strategy sweeps: it keeps a *pass* (which premises it has shown since the pass began)
and never shows a premise twice in one pass. When a round needs more than the pass has left,
the pass ends inside that round and the rest of the round starts the next pass, so every round
is full (min(N, pool) lines) and, while the pool does not change, every IN premise is shown
within ceil(P / N) rounds (alphabetical, random, cluster) or sum over clusters of
ceil(size / N) <= ceil(P / N) + k - 1 rounds (intra-cluster).

The modules, one concern each:
- `sample`: what a round gets (`Sample`), the `Sampler` protocol, the function types;
- `sweep`: one ordered group of ids taken window by window, pass after pass (`Sweep`), and
  the bookkeeping every strategy shares (`SweepingSampler`: pool changes, round order);
- `windows`: `alphabetical` and `random`, the whole pool as one sweep;
- `clusters`: `cluster` and `intra-cluster`, one sweep per KMeans cluster;
- `factory`: `make_sampler`, which checks the flags and builds one.

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
from engine.derive.sampling.clusters import (
    IntraClusterSampler,
    ProportionalClusterSampler,
    apportion,
    default_n_clusters,
)
from engine.derive.sampling.factory import CLUSTER_STRATEGIES, STRATEGIES, make_sampler
from engine.derive.sampling.sample import (
    DEFAULT_BUDGET,
    Clusterer,
    PoolItem,
    Sample,
    Sampler,
    VectorSource,
)
from engine.derive.sampling.windows import AlphabeticalSampler, RandomSampler

__all__ = [
    "CLUSTER_STRATEGIES", "DEFAULT_BUDGET", "STRATEGIES", "AlphabeticalSampler", "Clusterer",
    "IntraClusterSampler", "PoolItem", "ProportionalClusterSampler", "RandomSampler", "Sample",
    "Sampler", "VectorSource", "apportion", "default_n_clusters", "make_sampler",
]
