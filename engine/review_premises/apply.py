"""Checking premise verdicts against the graph and the sources as they are now, and applying
them inside the round's write transaction (the Run and Round nodes are already written by
the machinery), with the propagation they cause:

- confirmed: `verified_at` stamped, and the premise re-pinned to the lines of its quote (the
  quote and lines in its metadata, its FROM edge);
- misread: the premise retracted with the reason (`premise review: misread (<kind>): ...`);
  what rests on it follows, nogoods included;
- partial: the narrower claim recorded as a suggestion; with `apply_suggestions` the premise
  is reworded to it (engine/memory/supersede.py, supersede --text: NEW takes the source and pin,
  OLD's dependents are rewired to NEW, OLD is gated OUT), so NEW is due for its own check.
Every judged premise gets its stamp (the hash of claim + lines, as this transaction leaves
them) and a REVIEWED edge from the round.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from engine.errors import InvalidInput
from engine.memory.supersede import SupersedeTx, supersede_in
from engine.model import Change
from engine.review_premises.due import CURRENT, DUE, PremiseUnderReview, SourceCache, judge
from engine.review_premises.prompt import ECHO
from engine.review_premises.records import (
    PremisePin,
    PremiseReviewTx,
    PremiseStamp,
    PremiseVerdictEdge,
)
from engine.review_premises.verdicts import (
    CONFIRMED,
    MISREAD,
    PARTIAL,
    PremiseVerdict,
    ground_verdict,
    grounding_problem,
)
from engine.review_premises.window import TooLong, Window, review_sha256, window_for
from engine.sources.reader import SourceReader, SourceText
from engine.stages.echo import ECHO_REASON
from engine.stages.provenance import RoundRecord, RunRecord
from engine.stages.stage import Action, Applied, AppliedEntry, Checked, Skip
from engine.tms import enforce_nogoods

MODE = "premise"
RETRACT_REASON = "premise review: misread"
SUPERSEDE_REASON = "premise review: partial"


class PremiseApplyTx(SupersedeTx, PremiseReviewTx, Protocol):
    """What premise review writes: pins, stamps and verdicts (PremiseReviewTx), retractions
    with their propagation and nogoods, and a narrower claim by supersede (SupersedeTx)."""


@dataclass
class PremiseCheck:
    checked: Checked[PremiseVerdict]
    shown: dict[str, PremiseUnderReview]  # each valid verdict's premise, as checked now
    sources: SourceCache


def check_verdicts(tx: PremiseReviewTx, verdicts: Sequence[PremiseVerdict], reader: SourceReader, *,
                   budget: int) -> PremiseCheck:
    """Each verdict against its premise now: an IN premise with a readable, unchanged
    source; the claim and lines the verdict was given on (its `shown_sha256`, when it has
    one); its quote grounded in those lines; nothing echoing the prompt."""
    ids = sorted({v.belief for v in verdicts})
    candidates = {c.id: c for c in tx.premise_review_candidates(ids)} if ids else {}
    sources = SourceCache(reader)
    out = PremiseCheck(Checked(), {}, sources)
    for v in verdicts:
        def skip(reason: str, v: PremiseVerdict = v) -> None:
            out.checked.skipped.append(Skip(v.belief, reason, v.line))

        c = candidates.get(v.belief)
        if c is None:
            skip(f"'{v.belief}' is not an IN premise with a source")
            continue
        state, shown = judge(c, sources, budget=budget)
        if shown is None or state not in (DUE, CURRENT):
            skip(f"the source of '{v.belief}' is {state} ({c.source})")
            continue
        if v.shown_sha256 and v.shown_sha256 != shown.sha256:
            skip(f"the claim of '{v.belief}' or its source lines changed since the verdict")
            continue
        if ECHO.echoed(v.quote, v.narrower, v.comment):
            skip(ECHO_REASON)
            continue
        reason = grounding_problem(v, shown.window, shown.text)
        if reason:
            skip(reason)
            continue
        if v.belief in out.shown:
            skip(f"a second verdict on '{v.belief}'")
            continue
        out.checked.valid.append(dataclasses.replace(ground_verdict(v, shown.window),
                                                     shown_sha256=shown.sha256))
        out.shown[v.belief] = shown
    return out


def _repin(p: PremiseUnderReview, v: PremiseVerdict, source: SourceText, at: str
           ) -> PremisePin:
    assert v.quote_lines is not None  # a confirmed verdict is grounded
    metadata = {**dict(p.metadata), "quote": v.quote, "lines": list(v.quote_lines)}
    return PremisePin(p.id, source.path, source.sha256, source.size, v.quote_lines, metadata,
                      at)


def _stamp_sha(p: PremiseUnderReview, window: Window | TooLong | None) -> str:
    return review_sha256(p.text, window) if isinstance(window, Window) else p.sha256


def edge_fields(v: PremiseVerdict, action: Action, at: str, *, successor: str = "",
                retract_reason: str = "") -> dict[str, object]:
    return {"mode": MODE, "at": at, "verdict": v.verdict, "kind": v.kind, "quote": v.quote,
            "quote_lines": list(v.quote_lines) if v.quote_lines else None,
            "narrower": v.narrower, "comment": v.comment, "action": action.value,
            "suggestion": v.narrower or None, "successor": successor or None,
            "reason": retract_reason or None, "shown_sha256": v.shown_sha256}


def retract_reason(v: PremiseVerdict) -> str:
    return f"{RETRACT_REASON} ({v.kind})" + (f": {v.comment}" if v.comment else "")


def write_premise_review(tx: PremiseApplyTx, verdicts: Sequence[PremiseVerdict],
                         reader: SourceReader, run: RunRecord, record: RoundRecord, *,
                         budget: int, apply_suggestions: bool, at: str) -> Applied:
    checked = check_verdicts(tx, verdicts, reader, budget=budget)
    pins: list[PremisePin] = []
    stamps: list[PremiseStamp] = []
    retract: list[str] = []
    actions: dict[str, tuple[Action, str, str]] = {}  # id -> action, successor, reason
    change = Change()
    for v in checked.checked.valid:
        p = checked.shown[v.belief]
        source = checked.sources.get(p.window.path)
        assert isinstance(source, SourceText)  # judged readable just now
        if v.verdict == CONFIRMED:
            assert v.quote_lines is not None
            pins.append(_repin(p, v, source, at))
            stamps.append(PremiseStamp(p.id, at, _stamp_sha(
                p, window_for(source, v.quote_lines, budget=budget)), run.id, verified=True))
            actions[p.id] = (Action.CONFIRMED, "", "")
            continue
        stamps.append(PremiseStamp(p.id, at, p.sha256, run.id))
        if v.verdict == MISREAD:
            retract.append(p.id)
            actions[p.id] = (Action.RETRACTED, "", retract_reason(v))
        elif v.verdict == PARTIAL and apply_suggestions:
            actions[p.id] = (Action.SUGGESTION_APPLIED, "", "")
        else:
            actions[p.id] = (Action.SUGGESTION_RECORDED, "", "")
    tx.repin_premises(pins)
    for bid in retract:
        tx.set_pins([bid], retracted=True, asserted=False, reason=actions[bid][2], at=at)
    if retract:
        change = enforce_nogoods(tx, change.merge(tx.relabel(retract)))
    tx.stamp_premise_reviews(stamps)
    for v in checked.checked.valid:
        if actions[v.belief][0] is not Action.SUGGESTION_APPLIED:
            continue
        try:
            done = supersede_in(tx, v.belief, None, text=v.narrower, new_id=None,
                                justifications=None, rewire=None,
                                reason=f"{SUPERSEDE_REASON}: {v.comment or v.narrower}")
        except InvalidInput as e:  # already superseded, say: the suggestion stays recorded
            actions[v.belief] = (Action.SUGGESTION_RECORDED, "", str(e))
            continue
        actions[v.belief] = (Action.SUGGESTION_APPLIED, done.new, "")
        change = change.merge(done.change)
    tx.record_premise_verdicts(run.id, record.round, [
        PremiseVerdictEdge(v.belief, edge_fields(v, actions[v.belief][0], at,
                                                 successor=actions[v.belief][1],
                                                 retract_reason=actions[v.belief][2]))
        for v in checked.checked.valid])
    after = tx.get_beliefs(list(actions) + [s for _, s, _ in actions.values() if s])
    entries = []
    for v in checked.checked.valid:
        action, successor, reason = actions[v.belief]
        b = after.get(v.belief)
        entries.append(AppliedEntry(v.belief, action,
                                    truth_value=b.truth.value if b and b.truth else None,
                                    fields=_entry_fields(v, successor, reason)))
    return Applied(checked.checked, entries, change)


def _entry_fields(v: PremiseVerdict, successor: str, reason: str) -> Mapping[str, object]:
    return {"verdict": v.verdict, "kind": v.kind or None,
            "quote_lines": list(v.quote_lines) if v.quote_lines else None,
            "suggestion": v.narrower or None, "successor": successor or None,
            "reason": reason or None}
