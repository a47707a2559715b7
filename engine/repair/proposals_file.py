"""The proposals file of a repair run without --auto (`proposed-repairs.md`): the repairs for
a person to read, then the same repairs as one JSON block that `accept` reads back (the
parser reads the fenced JSON and ignores the prose around it)."""
from __future__ import annotations

import json
from collections.abc import Sequence

from engine.provenance import RunRecord
from engine.repair.repairs import LINK, Repair
from engine.stages.accept import run_note


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
    lines = [
        run_note("repair", run),
        "# Repairs",
        "",
        f"Run {run.id}, model {run.model}, {run.started_at}: {len(repairs)} repair(s). "
        "Nothing has been written to the network.",
        "Edit or delete repairs below (in the JSON block: the prose is for reading), then "
        "apply them:",
        "",
        f"    {command}",
        "",
    ]
    for r in repairs:
        lines += _summary(r) + [""]
    data = {"repairs": [r.as_dict() for r in repairs]}
    lines += ["```json", json.dumps(data, indent=2, ensure_ascii=False), "```", ""]
    return "\n".join(lines)
