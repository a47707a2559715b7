"""Checking negatives verdicts against the graph as it is now, and writing them inside the
round's write transaction (the Run and Round nodes are already written by the machinery).

A verdict holds when its belief is IN, its text is the one the verdict was given on (its
`shown_sha256`, when it has one) and its comment does not echo the prompt. Each verdict is
kept on its belief (the kind, or "" for no problem, and the sha256 of the text judged) and as
a CLASSIFIED edge from the round. No label changes: a verdict is a reading, not a belief.
"""
from __future__ import annotations

from collections.abc import Sequence

from engine.embedding.cache import text_sha256
from engine.negatives.prompt import ECHO
from engine.negatives.records import NegativeStamp, NegativeTx
from engine.negatives.verdicts import NegativeVerdict
from engine.stages.echo import ECHO_REASON
from engine.stages.provenance import RoundRecord, RunRecord
from engine.stages.stage import Action, Applied, AppliedEntry, Checked, Skip

NEGATIVE, NOT_NEGATIVE = Action.NEGATIVE, Action.NOT_NEGATIVE


def check_verdicts(tx: NegativeTx, verdicts: Sequence[NegativeVerdict]) -> tuple[
        Checked[NegativeVerdict], dict[str, str]]:
    """The verdicts that hold now, and the sha256 of each one's text as it is now."""
    ids = sorted({v.belief for v in verdicts})
    found = {c.id: c for c in tx.negative_candidates(ids)} if ids else {}
    checked: Checked[NegativeVerdict] = Checked()
    shas: dict[str, str] = {}
    for v in verdicts:
        c = found.get(v.belief)
        sha = text_sha256(c.text) if c is not None else ""
        reason = ("not an IN belief" if c is None
                  else "its text changed since the verdict" if v.shown_sha256
                  and v.shown_sha256 != sha
                  else ECHO_REASON if ECHO.echoed(v.comment) else "")
        if reason:
            checked.skipped.append(Skip(v.belief, reason, v.line))
        else:
            checked.valid.append(v)
            shas[v.belief] = sha
    return checked, shas


def write_verdicts(tx: NegativeTx, verdicts: Sequence[NegativeVerdict], run: RunRecord,
                   record: RoundRecord, *, at: str) -> Applied:
    checked, shas = check_verdicts(tx, verdicts)
    stamps = [NegativeStamp(v.belief, v.kind if v.negative else "", shas[v.belief], v.comment,
                            at, run.id, record.round) for v in checked.valid]
    if stamps:
        tx.stamp_negatives(stamps)
    entries = [AppliedEntry(v.belief, NEGATIVE if v.negative else NOT_NEGATIVE,
                            fields={"kind": v.kind} if v.negative else {})
               for v in checked.valid]
    return Applied(checked, entries)
