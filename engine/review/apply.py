"""Applying verdicts, inside the round's write transaction (the Run and Round nodes are
already written by the machinery), together with the propagation they cause:

- invalid: a defeater premise (`review:<belief>:j<n>`, its text the finding, metadata
  `source_type: review`) is created and added to THAT justification's outlist. The belief
  goes OUT only when no other justification holds; what rests on it follows. Retracting the
  defeater makes the justification hold again.
- valid with a suggestion: recorded; with `apply_suggestions` an applicable one is applied:
  the new justifications are added, each also resting on a premise `superseded by review`
  (the same defeater id) that is put in the original's outlist. One premise switches the
  change on: retracting it restores the original and switches the new ones off.
- every judged belief whose justifications were all judged gets its review time and hash
  (of the belief as this transaction leaves it); every verdict becomes a REVIEWED edge from
  the round to its justification.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Protocol

from engine.model import Belief, Change, Justification, Kind
from engine.stages.arguments import UnderReview, read_under_review
from engine.stages.records import ArgumentsTx
from engine.review.records import ReviewRecords, ReviewStamp, VerdictEdge
from engine.review.suggestions import Suggestion, suggestion_for
from engine.review.validate import read_and_check
from engine.review.verdicts import SUPERSEDED, Verdict, defeater_id, finding_text
from engine.stages.provenance import RoundRecord, RunRecord
from engine.stages.stage import Action, Applied, AppliedEntry
from engine.tms import add_beliefs_in, enforce_nogoods
from engine.tms.records import ResolutionTx

DEFEATED, VALID, SUGGESTED, SUGGESTION_APPLIED = (
    Action.DEFEATED, Action.VALID, Action.SUGGESTION_RECORDED, Action.SUGGESTION_APPLIED)


@dataclass(frozen=True)
class Planned:
    verdict: Verdict
    action: Action
    defeater: str = ""
    suggestion: Suggestion | None = None


def _premise(ident: str, text: str, meta: Mapping[str, object], at: str) -> Belief:
    return Belief(id=ident, text=text, metadata=MappingProxyType(dict(meta)), created_at=at,
                  updated_at=at)


def plan(verdicts: Sequence[Verdict], material: Mapping[str, UnderReview], *,
         apply_suggestions: bool) -> list[Planned]:
    out = []
    for v in verdicts:
        j = material[v.belief].justification(v.justification)
        assert j is not None  # validation kept only verdicts on justifications that exist
        if not v.valid:
            out.append(Planned(v, DEFEATED, defeater_id(v.belief, v.justification)))
            continue
        s = suggestion_for(v, j)
        if s is None:
            out.append(Planned(v, VALID))
        elif apply_suggestions and s.applicable:
            out.append(Planned(v, SUGGESTION_APPLIED, defeater_id(v.belief, v.justification), s))
        else:
            out.append(Planned(v, SUGGESTED, suggestion=s))
    return out


def edge_fields(p: Planned, at: str) -> dict[str, object]:
    v = p.verdict
    return {
        "belief": v.belief, "position": v.justification, "at": at, "valid": v.valid,
        "sufficient": v.sufficient, "necessary": v.necessary,
        "unnecessary_antecedents": list(v.unnecessary_antecedents), "mode": v.mode,
        "reason_type": v.reason_type, "missing_property": v.missing_property,
        "comment": v.comment, "action": p.action.value, "defeater": p.defeater,
        "suggestion": p.suggestion.text if p.suggestion else "",
        "antecedent_findings": json.dumps([a.as_dict() for a in v.antecedents],
                                          ensure_ascii=False),
    }


class ReviewApplyTx(ResolutionTx, ReviewRecords, ArgumentsTx, Protocol):
    """What applying verdicts reads and writes: the arguments judged, labels and nogoods
    (conclusions added), review records."""


def write_review(tx: ReviewApplyTx, verdicts: Sequence[Verdict], shown_hashes: Mapping[str, str],
                 run: RunRecord, record: RoundRecord, *, apply_suggestions: bool,
                 at: str) -> Applied:
    checked, material = read_and_check(tx, verdicts, shown_hashes)
    planned = plan(checked.valid, material, apply_suggestions=apply_suggestions)
    wanted = [p.defeater for p in planned if p.defeater]
    existing = tx.existing_ids(wanted) if wanted else set()
    premises: list[Belief] = []
    outlists: list[tuple[str, int, str]] = []
    additions: dict[str, list[Justification]] = {}
    for p in planned:
        if not p.defeater:
            continue
        v = p.verdict
        meta = {"source_type": "review", "review_of": v.belief, "justification": v.justification,
                "review_run": run.id, "review_round": record.round}
        if p.action == DEFEATED:
            text = finding_text(v, v.belief)
            meta.update(review_reason="invalid", reason_type=v.reason_type)
        else:
            assert p.suggestion is not None  # a superseding defeater comes with its suggestion
            text = (f"{SUPERSEDED}: justification {v.justification} of '{v.belief}' is "
                    f"replaced: {p.suggestion.text}.")
            meta.update(review_reason="superseded")
        outlists.append((v.belief, v.justification, p.defeater))
        if p.defeater in existing:
            continue  # judged before; a person may have retracted it: that decision stands
        premises.append(_premise(p.defeater, text, meta, at))
        if p.action == SUGGESTION_APPLIED and p.suggestion is not None:
            j = material[v.belief].justification(v.justification)
            assert j is not None
            outlist = tuple(o.id for o in j.outlist)
            label = f"{j.label} (review: {p.suggestion.kind})".strip()
            additions.setdefault(v.belief, []).extend(
                Justification(tuple(ants) + (p.defeater,), outlist, Kind.SL, label)
                for ants in p.suggestion.antecedent_sets)
    change = add_beliefs_in(tx, premises) if premises else Change()
    for belief_id, position, ident in outlists:
        tx.add_defeater(belief_id, position, ident)
    for belief_id, js in additions.items():
        tx.add_justifications(belief_id, js)
    touched = sorted({b for b, _, _ in outlists} | additions.keys())
    if touched:
        change = enforce_nogoods(tx, change.merge(tx.relabel(touched)))
    judged: dict[str, set[int]] = {}
    for p in planned:
        judged.setdefault(p.verdict.belief, set()).add(p.verdict.justification)
    complete = [b for b, positions in judged.items()
                if positions >= set(range(1, len(material[b].justifications) + 1))]
    after = read_under_review(tx, judged) if judged else {}
    if complete:
        tx.stamp_reviews([ReviewStamp(b, at, after[b].sha256, run.id) for b in sorted(complete)])
    tx.record_verdicts(run.id, record.round,
                       [VerdictEdge(p.verdict.belief, p.verdict.justification,
                                    edge_fields(p, at)) for p in planned])
    entries = [AppliedEntry(
        p.verdict.key, p.action,
        truth_value=after[p.verdict.belief].truth if p.verdict.belief in after else None,
        fields={"belief": p.verdict.belief, "justification": p.verdict.justification,
                "valid": p.verdict.valid, "defeater": p.defeater or None,
                "suggestion": p.suggestion.text if p.suggestion else None,
                "stamped": p.verdict.belief in complete}) for p in planned]
    return Applied(checked, entries, change)
