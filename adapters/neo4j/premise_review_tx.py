"""Neo4jTx part: premise review (engine/review_premises/records.PremiseReviewTx). Queries in
cypher/review/premises.cypher. A belief's `metadata` is JSON text, read and written here."""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from adapters.neo4j.base import TxBase
from engine.errors import StoreError
from engine.review_premises.records import (
    PremiseCandidate,
    PremisePin,
    PremiseReviewTx,
    PremiseStamp,
    PremiseVerdictEdge,
    lines_of,
)


def _metadata(text: Any) -> dict[str, Any]:
    try:
        value = json.loads(text) if isinstance(text, str) and text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


# a candidate read, and a pin written, side by side
def candidate_from_row(row: Sequence[Any]) -> PremiseCandidate:
    bid, text, source, source_hash, from_lines, metadata, sha, at = row
    meta = _metadata(metadata)
    return PremiseCandidate(bid, text or "", source or "", source_hash or "",
                            lines_of(from_lines) or lines_of(meta.get("lines")), meta, sha or "",
                            at or "")


def pin_to_row(p: PremisePin) -> dict[str, Any]:
    return {"id": p.id, "source": p.source, "source_hash": p.source_hash, "size": p.size,
            "metadata": json.dumps(dict(p.metadata), sort_keys=True, ensure_ascii=False,
                                   default=str),
            "lines": list(p.lines), "at": p.at}


def stamp_to_row(s: PremiseStamp) -> dict[str, Any]:
    return {"id": s.id, "at": s.at, "sha256": s.sha256, "run_id": s.run_id,
            "verified": s.verified}


def verdict_to_row(v: PremiseVerdictEdge) -> dict[str, Any]:
    # Neo4j properties hold no nulls or maps: absent fields are left out.
    fields: Mapping[str, Any] = {k: (list(x) if isinstance(x, tuple) else x)
                                 for k, x in v.fields.items() if x is not None}
    return {"belief_id": v.belief_id, "fields": dict(fields)}


class PremiseReviewTxPart(TxBase):
    def premise_review_candidates(self, ids: Sequence[str] | None = None
                                  ) -> list[PremiseCandidate]:
        record = self._single("premise_review_candidates",
                              ids=None if ids is None else sorted(set(ids)))
        return [candidate_from_row(r) for r in (record["rows"] if record else [])]

    def repin_premises(self, pins: Sequence[PremisePin]) -> int:
        if not pins:
            return 0
        return int(self._one("premise_review_repin", rows=[pin_to_row(p) for p in pins])
                   ["pinned"])

    def stamp_premise_reviews(self, stamps: Sequence[PremiseStamp]) -> int:
        if not stamps:
            return 0
        found = int(self._one("premise_review_stamp", rows=[stamp_to_row(s) for s in stamps])
                    ["found"])
        if found != len(stamps):
            raise StoreError(f"premise review stamps name beliefs that do not exist ({found} "
                             f"of {len(stamps)} found)")
        return found

    def record_premise_verdicts(self, run_id: str, round_n: int,
                                verdicts: Sequence[PremiseVerdictEdge]) -> int:
        rows = [verdict_to_row(v) for v in verdicts]
        if not rows:
            return 0
        r = self._single("premise_review_record_verdicts", run_id=run_id, n=round_n, rows=rows)
        if r is None:
            raise StoreError(f"no round {round_n} of run '{run_id}' to record verdicts in")
        if r["edges"] != len(rows):
            raise StoreError(f"round {round_n} of run '{run_id}' judged premises that do not "
                             f"exist ({r['edges']} of {len(rows)} found)")
        return int(r["edges"])


# The protocol this part implements, checked by mypy.
_IMPLEMENTS: type[PremiseReviewTx] = PremiseReviewTxPart
