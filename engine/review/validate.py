"""Checks verdicts against the graph as it is now, before anything is written; reads only.

A verdict is skipped, with its reason, when its text echoes the prompt (the answer format's
`<...>` placeholders; engine/stages/echo.py), when its belief no longer exists, when the belief has
no justification with its number, or when the belief changed since it was shown (its review
hash differs from the one the round, or the proposals file, recorded: the claim, a
justification or the text of a named belief changed). Antecedents a verdict calls
unnecessary that the justification does not name are dropped (a proposals file is read
without the round that showed it).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from engine.stages.arguments import UnderReview, read_under_review
from engine.stages.records import ArgumentsTx
from engine.review.prompt import FORMAT
from engine.review.verdicts import Verdict
from engine.stages.echo import ECHO_REASON, PromptEcho
from engine.stages.stage import Checked, Skip

ECHO = PromptEcho.of(FORMAT)


def check_verdicts(verdicts: Sequence[Verdict], material: Mapping[str, UnderReview],
                   shown_hashes: Mapping[str, str]) -> Checked:
    out: Checked = Checked()
    for v in verdicts:
        if ECHO.echoed(v.comment, v.missing_property, v.reason_type,
                       *(t for a in v.antecedents for t in (a.establishes, a.does_not_establish))):
            out.skipped.append(Skip(id=v.key, reason=ECHO_REASON, line=v.line))
            continue
        b = material.get(v.belief)
        if b is None:
            out.skipped.append(Skip(id=v.key, reason=f"belief '{v.belief}' does not exist",
                                    line=v.line))
            continue
        j = b.justification(v.justification)
        if j is None:
            out.skipped.append(Skip(
                id=v.key, line=v.line,
                reason=f"'{v.belief}' has no justification {v.justification} "
                       f"(it has {len(b.justifications)})"))
            continue
        expected = shown_hashes.get(v.belief) or v.shown_sha256
        if not expected:
            out.skipped.append(Skip(id=v.key, line=v.line,
                                    reason="no record of what was reviewed (shown_sha256)"))
            continue
        if b.sha256 != expected:
            out.skipped.append(Skip(
                id=v.key, line=v.line,
                reason="the belief changed since it was reviewed (its claim, a justification "
                       "or the text of a belief it names)"))
            continue
        kept = tuple(a for a in v.unnecessary_antecedents if a in j.antecedent_ids)
        out.valid.append(v if kept == v.unnecessary_antecedents
                         else dataclasses.replace(v, unnecessary_antecedents=kept))
    return out


def read_and_check(tx: ArgumentsTx, verdicts: Sequence[Verdict],
                   shown_hashes: Mapping[str, str]) -> tuple[Checked, dict[str, UnderReview]]:
    material = read_under_review(tx, {v.belief for v in verdicts}) if verdicts else {}
    return check_verdicts(verdicts, material, shown_hashes), material
