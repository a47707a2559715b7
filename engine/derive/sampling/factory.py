"""`make_sampler`: the strategy the flags name, checked and built for one run."""
from __future__ import annotations

import random

from engine.derive.sampling.clusters import IntraClusterSampler, ProportionalClusterSampler
from engine.derive.sampling.sample import DEFAULT_BUDGET, Clusterer, Sampler, VectorSource
from engine.derive.sampling.windows import AlphabeticalSampler, RandomSampler
from engine.errors import InvalidInput

STRATEGIES = ("alphabetical", "random", "cluster", "intra-cluster")
CLUSTER_STRATEGIES = ("cluster", "intra-cluster")


def make_sampler(
    strategy: str,
    *,
    budget: int = DEFAULT_BUDGET,
    seed: int | None = None,
    n_clusters: int | None = None,
    vectors: VectorSource | None = None,
    clusterer: Clusterer | None = None,
) -> Sampler:
    """A fresh sampler for one run. The cluster strategies need `vectors`, which returns
    embeddings for pool items, and `clusterer`, which labels them (the entry point passes
    adapters.clustering.kmeans_labels); the other strategies ignore both. Without `seed`,
    random draws one and the cluster strategies use 0 (the same clusters every run); either
    way it is in `.seed`."""
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
        raise InvalidInput(f"the {strategy} strategy needs a clusterer: pass `clusterer`",
                           field="clusterer")
    cls = ProportionalClusterSampler if strategy == "cluster" else IntraClusterSampler
    return cls(budget, seed, n_clusters, vectors, clusterer)
