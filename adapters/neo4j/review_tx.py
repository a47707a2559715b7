"""Neo4jTx part: review: what is due, defeaters on one justification, stamps, verdict edges.

Queries in cypher/review/review.cypher. A justification is named by its belief and its
1-based position in the belief's order (ascending seq), as the review prompt numbers them.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from adapters.neo4j.base import TxBase
from adapters.neo4j.change_tracker import note_redefined
from engine.errors import StoreError
from engine.review.records import ReviewCandidate, ReviewRecords, ReviewStamp, VerdictEdge
from engine.stages.records import Argument, ArgumentJustification, ArgumentPart, ArgumentsTx

BATCH = 5000
MISSING_TEXT = "(not in the network yet)"


def _part(row: Sequence) -> ArgumentPart:
    ident, text, truth, defeater = row
    return ArgumentPart(ident, text if text is not None else MISSING_TEXT, truth, bool(defeater))


def argument_from_row(row: Sequence) -> Argument:
    ident, text, depth, truth, justifications = row
    return Argument(ident, text or "", depth, truth, tuple(
        ArgumentJustification(kind or "SL", label or "", tuple(_part(a) for a in ants),
                              tuple(_part(o) for o in outs))
        for kind, label, ants, outs in justifications))


def candidate_from_row(row: Sequence) -> ReviewCandidate:
    bid, depth, sha, at, rests_on = row
    return ReviewCandidate(id=bid, depth=depth, review_sha256=sha or "", reviewed_at=at or "",
                           rests_on=tuple(sorted(rests_on)))


def stamp_to_row(stamp: ReviewStamp) -> dict:
    return {"id": stamp.id, "at": stamp.at, "sha256": stamp.sha256, "run_id": stamp.run_id}


def verdict_to_row(v: VerdictEdge) -> dict:
    # Neo4j properties hold no nulls or maps: absent fields are left out.
    fields = {k: (list(x) if isinstance(x, tuple) else x) for k, x in v.fields.items()
              if x is not None}
    return {"belief_id": v.belief_id, "position": v.position, "fields": fields}


class ReviewTxPart(TxBase):
    def review_candidates(self) -> list[ReviewCandidate]:
        record = self._single("review_candidates")
        return [candidate_from_row(row) for row in (record["rows"] if record else [])]

    def review_arguments(self, ids: Iterable[str]) -> dict[str, Argument]:
        ordered = sorted(set(ids))
        out: dict[str, Argument] = {}
        for start in range(0, len(ordered), BATCH):
            record = self._single("review_arguments", ids=ordered[start:start + BATCH])
            for row in record["rows"] if record else []:
                a = argument_from_row(row)
                out[a.id] = a
        return out

    def add_defeater(self, belief_id: str, position: int, defeater_id: str) -> None:
        note_redefined(self, [belief_id])
        if self._single("review_add_defeater", belief_id=belief_id, position=position,
                        defeater_id=defeater_id) is None:
            raise StoreError(f"no justification {position} of '{belief_id}', or no belief "
                             f"'{defeater_id}'")

    def stamp_reviews(self, stamps: Sequence[ReviewStamp]) -> None:
        rows = [stamp_to_row(s) for s in stamps]
        found = self._one("review_stamp", rows=rows)["found"] if rows else 0
        if found != len(rows):
            raise StoreError(f"review stamps name beliefs that do not exist ({found} of "
                             f"{len(rows)} found)")

    def record_verdicts(self, run_id: str, round_n: int, verdicts: Sequence[VerdictEdge]) -> None:
        rows = [verdict_to_row(v) for v in verdicts]
        r = self._single("review_record_verdicts", run_id=run_id, n=round_n, rows=rows)
        if r is None:
            raise StoreError(f"no round {round_n} of run '{run_id}' to record verdicts in")
        if r["edges"] != len(rows):
            raise StoreError(f"round {round_n} of run '{run_id}' judged justifications that do "
                             f"not exist ({r['edges']} of {len(rows)} found)")


# The protocol this part implements, checked by mypy.
_IMPLEMENTS: type[ReviewRecords] = ReviewTxPart
_ARGUMENTS: type[ArgumentsTx] = ReviewTxPart
