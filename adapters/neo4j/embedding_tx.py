"""Neo4jTx part (VectorTx): embeddings cached on Belief nodes, and the vector index's nearest
beliefs, every score turned into cosine here.

Queries in cypher/derive/embeddings.cypher, cypher/embedding/upkeep.cypher (what is missing or
stale, the memory's model) and cypher/dedup/dedup.cypher (nearest_beliefs); the vector index is
in cypher/schema.cypher.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from adapters.neo4j.base import TxBase
from engine.embedding.records import EmbeddingBacklog, StoredEmbedding
from engine.embedding.records import VectorTx

ID_BATCH = 5000  # ids per key read
SCAN_ABOVE = 20_000  # asked for more ids than this, one scan of all keys beats seeking each
VECTOR_BATCH = 1000  # rows per vector read or write statement (384 floats each)


def cosine_to_score(cosine: float) -> float:
    """The vector index scores cosine similarity as (1 + cos) / 2."""
    return (1.0 + cosine) / 2.0


def score_to_cosine(score: float) -> float:
    return 2.0 * score - 1.0


def _chunks(items: Sequence[Any], size: int):
    for start in range(0, len(items), size):
        yield items[start:start + size]


def as_floats(vector: Any) -> list[float]:
    return vector.tolist() if hasattr(vector, "tolist") else [float(x) for x in vector]


# an embedding row written, and read back, side by side
def embedding_to_row(e: StoredEmbedding) -> dict[str, Any]:
    return {"id": e.id, "sha256": e.sha256, "model": e.model, "vector": as_floats(e.vector),
            "text": e.text}


def embedding_from_record(r: Mapping[str, Any]) -> StoredEmbedding:
    return StoredEmbedding(id=r["id"], sha256=r["sha256"] or "", model=r["model"] or "",
                           vector=r["vector"])


class EmbeddingTxPart(TxBase):
    def embedding_keys(self, ids: Iterable[str]) -> dict[str, tuple[str, str]]:
        wanted = set(ids)
        if len(wanted) > SCAN_ABOVE:
            record = self._one("all_embedding_keys")
            return {i: (sha or "", model or "") for i, sha, model in record["keys"]
                    if i in wanted}
        out: dict[str, tuple[str, str]] = {}
        for chunk in _chunks(sorted(wanted), ID_BATCH):
            record = self._one("embedding_keys", ids=chunk)
            out.update((i, (sha or "", model or "")) for i, sha, model in record["keys"])
        return out

    def embeddings(self, ids: Iterable[str]) -> dict[str, StoredEmbedding]:
        out: dict[str, StoredEmbedding] = {}
        for chunk in _chunks(sorted(set(ids)), VECTOR_BATCH):
            for r in self._run("embeddings_by_id", ids=chunk):
                e = embedding_from_record(r)
                out[e.id] = e
        return out

    def save_embeddings(self, rows: Sequence[StoredEmbedding]) -> int:
        written = 0
        for chunk in _chunks(list(rows), VECTOR_BATCH):
            record = self._single("save_embeddings", rows=[embedding_to_row(e) for e in chunk])
            written += record["written"] if record else 0
        return written

    def similar_beliefs(self, vector: Sequence[float], limit: int) -> list[tuple[str, float]]:
        return [(r["id"], score_to_cosine(r["score"])) for r in
                self._run("similar_beliefs", vector=as_floats(vector),
                          limit=int(limit))]

    def nearest_beliefs(self, ids: Sequence[str], k: int, min_cosine: float
                        ) -> list[tuple[str, str, float]]:
        record = self._single("nearest_beliefs", ids=list(ids), k=int(k) + 1,
                              min_score=cosine_to_score(min_cosine))
        return [(a, b, score_to_cosine(s)) for a, b, s in record["pairs"]] if record else []

    def embedding_backlog(self, model: str, scope: Sequence[str] | None = None
                          ) -> EmbeddingBacklog:
        if scope is None:
            record = self._one("embedding_backlog", model=model)
        else:
            record = self._one("embedding_backlog_of", model=model, ids=sorted(set(scope)))
        total = int(record["total"])
        return EmbeddingBacklog(model, total, max(0, total - int(record["current"])),
                                record["recorded"])

    def beliefs_to_embed(self, model: str, after: str, limit: int) -> list[tuple[str, str]]:
        record = self._one("beliefs_to_embed", model=model, after=after, limit=int(limit))
        return [(i, t) for i, t in record["rows"]]

    def record_embedding_model(self, model: str) -> None:
        self._run("record_embedding_model", model=model)


# The protocol this part implements, checked by mypy.
_IMPLEMENTS: type[VectorTx] = EmbeddingTxPart
