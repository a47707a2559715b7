"""Neo4jTx part: ask's answers and citations (engine/ask/records.py's AskTx), queries in
cypher/ask/ask.cypher."""
from __future__ import annotations

from collections.abc import Sequence

from adapters.neo4j.base import TxBase
from engine.ask.records import CitedBelief, StaleCitation
from engine.errors import StoreError
from engine.ask.records import AskTx


class AskTxPart(TxBase):
    def record_answer(self, run_id: str, round_n: int, *, question: str, status: str,
                      answer: str, citations: Sequence[CitedBelief], at: str) -> int:
        record = self._single("ask_record_answer", run_id=run_id, n=int(round_n),
                              question=question, status=status, answer=answer,
                              citations=[c.as_params() for c in citations], at=at)
        if record is None:
            raise StoreError(f"no ask round {run_id} #{round_n} to record the answer on")
        return int(record["cited"])

    def stale_citations(self) -> list[StaleCitation]:
        record = self._single("ask_stale_answers")
        if record is None:
            return []
        return [StaleCitation(str(rid), str(started or ""), str(question), str(bid),
                              str(role), str(then), str(now), bool(changed))
                for rid, started, question, bid, role, then, now, changed in record["rows"]]


# The protocol this part implements, checked by mypy.
_IMPLEMENTS: type[AskTx] = AskTxPart
