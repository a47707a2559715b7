"""Neo4jTx part: stored embeddings and premise pools for sampling."""
from __future__ import annotations

from adapters.neo4j.base import TxBase


class EmbeddingTxPart(TxBase):
    pass
