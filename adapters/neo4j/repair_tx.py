"""Neo4jTx part: repair (engine/repair/records.py's RepairTx): defeated justifications, review's
findings, REPAIRED edges and gaps. Queries in cypher/repair/repair.cypher."""
from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from adapters.neo4j.base import TxBase
from engine.errors import StoreError
from engine.repair.records import DefeatedRow, Finding, Gap, RepairEdge
from engine.repair.records import RepairTx


def _metadata(text: Any) -> dict[str, Any]:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def defeated_from_row(row: Sequence[Any]) -> DefeatedRow:
    belief, position, defeater, text, metadata, challenge, dependents = row
    return DefeatedRow(belief, int(position), defeater, text or "", _metadata(metadata),
                       bool(challenge), int(dependents))


def finding_from_row(row: Sequence[Any]) -> tuple[tuple[str, int], Finding]:
    belief, position, reason, missing, comment, findings = row
    antecedents = [f for f in _findings(findings) if isinstance(f, dict)]
    return (belief, int(position)), Finding(reason or "", missing or "", comment or "",
                                            tuple(antecedents))


def _findings(text: Any) -> list[Any]:
    try:
        value = json.loads(text) if text else []
    except (TypeError, ValueError):
        return []
    return value if isinstance(value, list) else []


def edge_to_row(edge: RepairEdge) -> dict[str, Any]:
    # Neo4j properties hold no nulls or maps: absent fields are left out.
    fields = {k: (list(v) if isinstance(v, tuple) else v) for k, v in edge.fields.items()
              if v is not None}
    return {"belief": edge.belief, "position": edge.position, "fields": fields}


def gap_from_row(row: Sequence[Any]) -> Gap:
    text, for_belief, justification, at, run_id, truth = row
    return Gap(text or "", for_belief or "", int(justification or 0), at or "", run_id or "",
               truth)


class RepairTxPart(TxBase):
    def defeated_rows(self) -> list[DefeatedRow]:
        record = self._single("repair_defeated")
        return [defeated_from_row(r) for r in (record["rows"] if record else [])]

    def repaired_defeaters(self) -> set[str]:
        record = self._single("repair_repaired_defeaters")
        return set(record["ids"]) if record else set()

    def review_findings(self, keys: Sequence[tuple[str, int]]) -> dict[tuple[str, int], Finding]:
        if not keys:
            return {}
        rows = [{"belief": b, "position": int(p)} for b, p in keys]
        record = self._single("repair_findings", rows=rows)
        return dict(finding_from_row(r) for r in (record["rows"] if record else []))

    def record_repairs(self, run_id: str, round_n: int, edges: Sequence[RepairEdge]) -> None:
        on_js = [edge_to_row(e) for e in edges if e.position is not None]
        on_beliefs = [edge_to_row(e) for e in edges if e.position is None]
        for name, rows in (("repair_record_on_justifications", on_js),
                           ("repair_record_on_beliefs", on_beliefs)):
            if not rows:
                continue
            r = self._single(name, run_id=run_id, n=int(round_n), rows=rows)
            if r is None:
                raise StoreError(f"no round {round_n} of run '{run_id}' to record repairs in")
            if r["edges"] != len(rows):
                raise StoreError(f"round {round_n} of run '{run_id}' repaired what does not "
                                 f"exist ({r['edges']} of {len(rows)} found)")

    def add_gaps(self, run_id: str, round_n: int, gaps: Sequence[Gap], at: str) -> None:
        rows = [{"text": g.text, "for": g.for_belief, "justification": g.justification}
                for g in gaps]
        if rows:
            self._one("repair_add_gaps", rows=rows, at=at, run_id=run_id, n=int(round_n))

    def gaps(self, limit: int) -> tuple[list[Gap], int]:
        record = self._one("repair_gaps", limit=int(limit))
        return [gap_from_row(r) for r in record["rows"]], int(record["total"])


# The protocol this part implements, checked by mypy.
_IMPLEMENTS: type[RepairTx] = RepairTxPart
