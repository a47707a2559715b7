"""The proposals file of a repair run without --auto (`proposed-repairs.md`): the repairs for
a person to read, then the same repairs as one JSON block that `accept` reads back (the
parser reads the fenced JSON and ignores the prose around it)."""
from __future__ import annotations

from collections.abc import Sequence

from engine.repair.repairs import LINK, Repair
from engine.stages.proposals_file import ProposalsFile
from engine.stages.provenance import RunRecord


def _summary(r: Repair) -> list[str]:
    lines = [f"### {r.belief}, justification {r.justification}: {r.action}"]
    if r.comment:
        lines.append(r.comment)
    if r.action == LINK:
        lines.append("- Bridges: " + ", ".join(f"`{b}`" for b in r.bridges))
    elif r.text:
        lines.append(f"- Text: {r.text}")
    return lines


def render(repairs: Sequence[Repair], run: RunRecord, command: str) -> str:
    return ProposalsFile(
        "repair", "Proposed repairs", f"{len(repairs)} repair(s)",
        {"repairs": [r.as_dict() for r in repairs]}, [_summary(r) for r in repairs],
    ).render(run, command)
