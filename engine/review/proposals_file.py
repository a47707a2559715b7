"""The proposals file of a review run without --auto (`proposed-review.md`): the verdicts
for a person to read, then the same verdicts as one JSON block that `accept` reads back
(engine.review.parser reads the fenced JSON and ignores the prose around it). Each verdict
carries `shown_sha256`, the hash of the belief as the model saw it, so accept refuses a
verdict on a belief that has changed since.
"""
from __future__ import annotations

from collections.abc import Sequence

from engine.review.verdicts import Verdict
from engine.stages.proposals_file import ProposalsFile
from engine.stages.provenance import RunRecord


def _summary(v: Verdict) -> list[str]:
    verdict = "valid" if v.valid else f"NOT VALID ({v.reason_type})"
    lines = [f"### {v.belief}, justification {v.justification}: {verdict}"]
    if v.comment:
        lines.append(v.comment)
    if v.missing_property:
        lines.append(f"- Missing: {v.missing_property}")
    if v.unnecessary_antecedents:
        lines.append(f"- Not load-bearing: {', '.join(v.unnecessary_antecedents)}")
    if v.mode:
        lines.append(f"- Mode: {v.mode}")
    for a in v.antecedents:
        lines.append(f"- `{a.id}` establishes: {a.establishes or '-'}; "
                     f"does not establish: {a.does_not_establish or '-'}")
    return lines


def render(verdicts: Sequence[Verdict], run: RunRecord, command: str) -> str:
    invalid = sum(not v.valid for v in verdicts)
    return ProposalsFile(
        "review", "Proposed review verdicts", f"{len(verdicts)} verdict(s), {invalid} not valid",
        {"verdicts": [v.as_dict() for v in verdicts]}, [_summary(v) for v in verdicts],
    ).render(run, command)
