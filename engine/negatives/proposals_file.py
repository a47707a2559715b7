"""The proposals file of a negatives run without --auto: each verdict for a person to read,
then the same verdicts as one JSON block that `accept` reads back; each carries
`shown_sha256`, the sha256 of the text it was given on, so accept refuses a verdict on a
belief reworded since."""
from __future__ import annotations

from collections.abc import Sequence

from engine.negatives.verdicts import NegativeVerdict
from engine.stages.proposals_file import ProposalsFile
from engine.stages.provenance import RunRecord


def _summary(v: NegativeVerdict) -> list[str]:
    lines = [f"### {v.belief}: " + (f"negative ({v.kind})" if v.negative else "not negative")]
    return lines + ([f"- {v.comment}"] if v.comment else [])


def render(verdicts: Sequence[NegativeVerdict], run: RunRecord, command: str) -> str:
    negative = sum(v.negative for v in verdicts)
    return ProposalsFile(
        "negatives", "Proposed classification of beliefs that state a problem",
        f"{len(verdicts)} verdict(s), {negative} negative",
        {"verdicts": [v.as_dict() for v in verdicts]},
        [_summary(v) for v in verdicts],
    ).render(run, command)
