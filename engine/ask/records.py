"""What `ask` keeps in the graph, and reads back for `--stale`: a protocol of its own
(adapters/neo4j/ask_tx.py, cypher/ask/ask.cypher)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class CitedBelief:
    """A citation as recorded: the role, and the belief's label and text when it was cited."""

    id: str
    role: str
    truth: str
    text: str

    def as_params(self) -> dict[str, object]:
        return {"id": self.id, "role": self.role, "truth": self.truth, "text": self.text}


@dataclass(frozen=True)
class StaleCitation:
    """A cited belief whose label or text changed since an answer cited it."""

    run_id: str
    started_at: str
    question: str
    id: str
    role: str
    truth_then: str
    truth_now: str
    text_changed: bool

    def as_dict(self) -> dict[str, object]:
        return {"run_id": self.run_id, "started_at": self.started_at,
                "question": self.question, "id": self.id, "role": self.role,
                "truth_then": self.truth_then, "truth_now": self.truth_now,
                "text_changed": self.text_changed}


class AskTx(Protocol):
    def record_answer(self, run_id: str, round_n: int, *, question: str, status: str,
                      answer: str, citations: Sequence[CitedBelief], at: str) -> int:
        """On the recorded round: the question and answer, and a CITED edge per citation
        to its belief; returns how many edges were made."""

    def stale_citations(self) -> list[StaleCitation]:
        """Every citation of an ask round whose belief changed label or text since."""
