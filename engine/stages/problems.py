"""The beliefs known to state a problem: the negatives stage's verdicts (engine/negatives/) as
the rest read them: derive offers them to GATE proposals, `list --negative` lists them.

A judged belief carries its last verdict: the kind of problem it states ("" for none), the
sha256 of the text judged (a verdict on another text is stale), when, and by which run.
"""
from __future__ import annotations

from engine.model import text_sha256
from engine.stages.records import NegativeCandidate, ProblemsTx
from engine.store import Store


def is_current(c: NegativeCandidate) -> bool:
    """Whether the belief's last verdict is on its text as it is."""
    return bool(c.sha256) and c.sha256 == text_sha256(c.text)


def current_negatives(tx: ProblemsTx) -> list[NegativeCandidate]:
    """The IN beliefs whose verdict on their text as it is now found a problem, by id."""
    return [c for c in tx.classified_negatives() if is_current(c)]


def negative_kinds(store: Store[ProblemsTx]) -> dict[str, str]:
    """`list --negative`: the IN beliefs that state a problem now, id -> kind."""
    return store.read(lambda tx: {c.id: c.kind for c in current_negatives(tx)})
