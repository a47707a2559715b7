"""What a sampler gives a round, and the functions a cluster strategy is given."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from engine.optional import ArrayLike, Matrix

PoolItem = tuple[str, str]  # (id, text) of an IN premise

# Given pool items, their embeddings: an (n, d) array or a sequence of n vectors, row i for
# item i. Vectors are expected normalized (cosine similarity is their dot product).
VectorSource = Callable[[Sequence[PoolItem]], "ArrayLike"]
# (vectors (n, d), k, seed) -> a cluster label per row; adapters.clustering.kmeans_labels.
Clusterer = Callable[["Matrix", int, int], Sequence[int]]

DEFAULT_BUDGET = 300


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
    seed: int | None  # the run's (drawn when none was given)

    def sample(self, round_index: int, pool: Sequence[PoolItem]) -> Sample:
        """The sample for round `round_index` (from 0 within a run) of `pool`."""
