"""The proposals file of a premise review run without --auto: the verdicts for a person to
read, then the same verdicts as one JSON block (`"mode": "premises"`) that `accept` reads
back; each verdict carries `shown_sha256`, the hash of the claim and the lines it was given
on, so accept refuses a verdict on a premise or source that changed since."""
from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from engine.review_premises.verdicts import MISREAD, PARTIAL, PremiseVerdict
from engine.stages.proposals_file import ProposalsFile
from engine.stages.provenance import RunRecord

MODE = "premises"
_MODE_FIELD = re.compile(r'"mode"\s*:\s*"premises"')


def holds_premise_verdicts(path: Path) -> bool:
    """Whether the file at `path` is a premise review's proposals file (False when it cannot
    be read: accept then says why)."""
    try:
        return bool(_MODE_FIELD.search(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError):
        return False


def _summary(v: PremiseVerdict) -> list[str]:
    head = v.verdict + (f" ({v.kind})" if v.verdict == MISREAD else "")
    lines = [f"### {v.belief}: {head}"]
    if v.quote:
        where = f" (lines {v.quote_lines[0]}-{v.quote_lines[1]})" if v.quote_lines else ""
        lines.append(f"- Quote{where}: \"{v.quote}\"")
    if v.verdict == PARTIAL:
        lines.append(f"- Narrower claim: {v.narrower}")
    if v.comment:
        lines.append(f"- {v.comment}")
    return lines


def render(verdicts: Sequence[PremiseVerdict], run: RunRecord, command: str) -> str:
    misread = sum(v.verdict == MISREAD for v in verdicts)
    partial = sum(v.verdict == PARTIAL for v in verdicts)
    return ProposalsFile(
        "review", "Proposed premise review verdicts",
        f"{len(verdicts)} verdict(s), {misread} misread, {partial} partial",
        {"mode": MODE, "verdicts": [v.as_dict() for v in verdicts]},
        [_summary(v) for v in verdicts],
        notes=["A misread premise is retracted; add --apply-suggestions to accept to reword "
               "the partial ones."],
    ).render(run, command)
