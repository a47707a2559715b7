"""Stored embeddings and the vector index, as the store keeps them (VectorTx): every score
a verb answers is a cosine in [-1, 1]; the index's (1 + cos) / 2 stays in
adapters/neo4j/embedding_tx.py.

A belief's embedding is current when it was computed by the model asked about from the text
the belief has now: the store keeps that text beside the vector (`embedding_text`), so the
store itself can count what is missing or stale without reading the vectors or hashing the
texts (engine/embedding/upkeep.py)."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

# Two beliefs whose embeddings are at least this close say the same thing: the dedup stage's
# threshold for a likely duplicate, and what the reading bundle collapses into one line.
NEAR_DUPLICATE_COSINE = 0.85
# The same without embeddings: the Jaccard similarity of two beliefs' word sets (the dedup
# stage's --by-id threshold, on id tokens).
NEAR_DUPLICATE_JACCARD = 0.6


@dataclass(frozen=True)
class StoredEmbedding:
    """A belief's cached embedding: the vector, the sha256 of the text it was computed
    from and the model that computed it (either differing from now means recompute).
    `text`: that text itself, when the writer has it (None when it does not: the upkeep
    then counts the embedding stale and computes it again)."""

    id: str
    sha256: str
    model: str
    vector: Sequence[float]
    text: str | None = None


@dataclass(frozen=True)
class EmbeddingBacklog:
    """How far a memory's embeddings are from current for `model`: of the `total` beliefs,
    `missing` have no embedding of that model computed from their text as it is now (none at
    all, another model's, or one a rewording made stale). `recorded_model`: the model the
    memory says made its vectors (None: it has never kept embeddings)."""

    model: str
    total: int
    missing: int
    recorded_model: str | None = None

    @property
    def current(self) -> bool:
        return self.missing == 0

    @property
    def kept(self) -> bool:
        """Whether the memory keeps embeddings (some upkeep recorded a model)."""
        return self.recorded_model is not None

    def as_dict(self) -> dict[str, object]:
        return {"model": self.model, "total": self.total, "missing": self.missing,
                "recorded_model": self.recorded_model}


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

    def embedding_backlog(self, model: str, scope: Sequence[str] | None = None
                          ) -> EmbeddingBacklog:
        """How many beliefs there are (of `scope`'s ids; None: all) and how many of them
        have no embedding of `model` (a belief reworded in place has none: the statements
        that reword clear it), with the memory's recorded model. Cheap: no text is read."""

    def beliefs_to_embed(self, model: str, after: str, limit: int) -> list[tuple[str, str]]:
        """(id, text) of up to `limit` beliefs lacking a current embedding of `model` (none,
        another model's, or one computed from another text than the belief's now), by id,
        each id greater than `after` (the upkeep pages through them this way)."""

    def record_embedding_model(self, model: str) -> None:
        """Record `model` as the one that makes this memory's vectors."""
