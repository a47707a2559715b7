"""Neo4jTx part: what `health` and the review filters of `list` read (engine/reading/
records.py's HealthTx), queries in cypher/reading/health.cypher, each one record."""
from __future__ import annotations

from collections.abc import Iterable

from adapters.neo4j.base import TxBase
from engine.reading.records import HealthFacts, HealthTx, ReviewStanding


class HealthTxPart(TxBase):
    def health_facts(self, pool: int, listed: int) -> HealthFacts:
        review = self._one("health_review", pool=pool)
        support = self._one("health_out_support")
        loose = self._one("health_loose", limit=listed)
        contradictions = self._one("health_contradictions")
        return HealthFacts(
            ReviewStanding(int(review["derived"]), int(review["current"] or 0),
                           int(review["never"] or 0), int(review["outdated"] or 0),
                           tuple((str(i), str(s), int(d)) for i, s, d in review["pool"])),
            {str(bid): tuple(tuple(str(a) for a in j) for j in open_)
             for bid, open_ in support["rows"]},
            int(loose["total"]), tuple(str(i) for i in loose["ids"]),
            int(contradictions["nogoods"]), int(contradictions["holding"]),
            tuple(str(i) for i in contradictions["out_by_nogood"]))

    def review_stamps(self, ids: Iterable[str] | None = None) -> dict[str, str]:
        record = (self._one("review_stamps_all") if ids is None
                  else self._one("review_stamps_of", ids=sorted(set(ids))))
        return {str(bid): str(at) for bid, at in record["rows"]}


_IMPLEMENTS: type[HealthTx] = HealthTxPart
