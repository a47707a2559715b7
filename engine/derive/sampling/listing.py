"""`derive list-clusters`: the embedding clusters derive's cluster strategies sample from,
fitted by the same sampler a run makes (the same pool, embeddings, k and seed), so what is
listed is what `--cluster` / `--intra-cluster` would show. Nothing is written."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from engine.derive.sampling.clusters import ClusterSampler
from engine.derive.sampling.sample import Sampler
from engine.derive.view import premise_pool
from engine.errors import InvalidInput
from engine.reading.records import SearchTx
from engine.store import Store


@dataclass(frozen=True)
class Clusters:
    """Each cluster's members (ids, sorted), the largest first; `pool`: IN premises
    clustered; `texts`: each member's text."""

    pool: int
    seed: int
    clusters: tuple[tuple[str, ...], ...]
    texts: Mapping[str, str]

    def as_dict(self) -> dict[str, object]:
        return {"pool": self.pool, "seed": self.seed, "n_clusters": len(self.clusters),
                "clusters": [{"cluster": n, "size": len(members),
                              "members": [{"id": i, "text": self.texts[i]} for i in members]}
                             for n, members in enumerate(self.clusters)]}


def list_clusters(store: Store[SearchTx], sampler: Sampler, topic: str | None = None) -> Clusters:
    """Fit `sampler` (a cluster strategy's) on the pool a derive run's first round reads."""
    if not isinstance(sampler, ClusterSampler):
        raise InvalidInput("list-clusters needs a cluster sampler", field="strategy",
                           value=type(sampler).__name__)
    pool = store.read(lambda tx: premise_pool(tx, topic))
    sampler.sample(0, pool)
    return Clusters(len(pool), sampler.seed or 0,
                    tuple(tuple(c) for c in sampler.clusters()), dict(pool))
