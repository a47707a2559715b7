"""Neo4jTx part: derive rounds: provenance writes, derived-belief reads."""
from __future__ import annotations

from adapters.neo4j.base import TxBase


class DeriveTxPart(TxBase):
    pass
