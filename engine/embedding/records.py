"""Stored embeddings and the vector index, as the store keeps them (VectorTx): every score
a verb answers is a cosine in [-1, 1]; the index's (1 + cos) / 2 stays in
adapters/neo4j/embedding_tx.py."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class StoredEmbedding:
    """A belief's cached embedding: the vector, the sha256 of the text it was computed
    from and the model that computed it (either differing from now means recompute)."""

    id: str
    sha256: str
    model: str
    vector: Sequence[float]


class VectorTx(Protocol):
    """Stored embeddings and the vector index; every score is a cosine in [-1, 1]."""

    def embedding_keys(self, ids: Iterable[str]) -> dict[str, tuple[str, str]]:
        """id -> (text sha256, model) of the stored embedding, for the `ids` that have one
        (no vectors read: the cheap check of what is missing or stale)."""

    def embeddings(self, ids: Iterable[str]) -> dict[str, StoredEmbedding]:
        """The stored embeddings of the `ids` that have one."""

    def save_embeddings(self, rows: Sequence[StoredEmbedding]) -> int:
        """Store each row on its belief (replacing what was there); returns how many
        beliefs were found. Meant for small write transactions of their own: a cache."""

    def similar_beliefs(self, vector: Sequence[float], limit: int) -> list[tuple[str, float]]:
        """Up to `limit` (id, cosine) of the beliefs whose stored embedding is nearest to
        `vector`, best first (the belief_embedding vector index); cosine, as every vector
        verb returns, not the index's (1 + cos) / 2 score."""

    def nearest_beliefs(self, ids: Sequence[str], k: int, min_cosine: float
                        ) -> list[tuple[str, str, float]]:
        """For each of `ids` with a stored embedding, its up to `k` nearest beliefs by the
        belief_embedding vector index, kept when IN and at cosine >= `min_cosine`:
        (id, neighbour id, cosine in [-1, 1]). One batched statement, not one per id."""

