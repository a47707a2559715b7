"""Neo4jTx part: what the registry reads (cypher/registry/blockers.cypher)."""
from __future__ import annotations

from adapters.neo4j.base import TxBase
from engine.reading.records import GatedConclusion, RetractedPremise
from engine.reading.records import RegistryTx

ALL = 2**62  # LIMIT takes an integer: "no limit" is a number no graph reaches


class RegistryTxPart(TxBase):
    def closed_gates(self) -> list[GatedConclusion]:
        record = self._single("closed_gates")
        return [GatedConclusion(r["id"], r["text"] or "", r["seq"], tuple(r["closers"]))
                for r in (record["gated"] if record else [])]

    def retracted_premises(self, limit: int | None, visible_to: frozenset[str] | None = None
                           ) -> list[RetractedPremise]:
        tags = sorted(visible_to) if visible_to is not None else None
        return [RetractedPremise(r["id"], r["text"] or "", r["reason"], r["retracted_at"],
                                 r["resting"])
                for r in self._run("retracted_premises", limit=ALL if limit is None else limit,
                                   visible_to=tags)]


# The protocol this part implements, checked by mypy.
_IMPLEMENTS: type[RegistryTx] = RegistryTxPart
