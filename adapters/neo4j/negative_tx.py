"""Neo4jTx part: the negatives stage (engine/negatives/records.NegativeTx). Queries in
cypher/negatives/negatives.cypher."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adapters.neo4j.base import TxBase
from engine.errors import StoreError
from engine.negatives.records import NegativeStamp, NegativeTx
from engine.stages.records import NegativeCandidate, ProblemsTx


# a candidate read, and a stamp written, side by side
def candidate_from_row(row: Sequence[Any]) -> NegativeCandidate:
    bid, text, kind, sha, at, run = row
    return NegativeCandidate(bid, text or "", kind or "", sha or "", at or "", run or "")


def stamp_to_row(s: NegativeStamp) -> dict[str, Any]:
    return {"id": s.id, "kind": s.kind, "sha256": s.sha256, "comment": s.comment, "at": s.at}


class NegativeTxPart(TxBase):
    def negative_candidates(self, ids: Sequence[str] | None = None
                            ) -> list[NegativeCandidate]:
        record = self._single("negative_candidates",
                              ids=None if ids is None else sorted(set(ids)))
        return [candidate_from_row(r) for r in (record["rows"] if record else [])]

    def classified_negatives(self) -> list[NegativeCandidate]:
        record = self._single("classified_negatives")
        return [candidate_from_row(r) for r in (record["rows"] if record else [])]

    def stamp_negatives(self, stamps: Sequence[NegativeStamp]) -> int:
        by_round: dict[tuple[str, int], list[NegativeStamp]] = {}
        for s in stamps:
            by_round.setdefault((s.run_id, s.round), []).append(s)
        found = 0
        for (run_id, n), group in sorted(by_round.items()):
            r = self._one("stamp_negatives", run_id=run_id, n=n,
                          rows=[stamp_to_row(s) for s in group])
            if not r["round"]:
                raise StoreError(f"no round {n} of run '{run_id}' to record verdicts in")
            if r["found"] != len(group):
                raise StoreError(f"negatives verdicts name beliefs that do not exist "
                                 f"({r['found']} of {len(group)} found)")
            found += int(r["found"])
        return found


# The protocol this part implements, checked by mypy.
_IMPLEMENTS: type[NegativeTx] = NegativeTxPart
_PROBLEMS: type[ProblemsTx] = NegativeTxPart
