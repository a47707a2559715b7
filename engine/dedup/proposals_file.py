"""The proposals file of a dedup run without --auto: a readable summary per cluster, then
the verdicts as one JSON block, which is what `accept` reads back (the summary holds no
brackets or braces, so nothing in it can be mistaken for a verdict)."""
from __future__ import annotations

import json
from collections.abc import Sequence

from engine.dedup.verdicts import REPLY_KEY, ClusterVerdict
from engine.provenance import RunRecord


def run_note(stage: str, run: RunRecord) -> str:
    return f"<!-- eem-{stage} run {run.id}, model {run.model or '-'}, {run.started_at} -->"


def summary(v: ClusterVerdict) -> list[str]:
    head = f"## Cluster {v.cluster}: {v.verdict}"
    if v.same:
        head += f", keep `{v.keep}`" if v.keep else ", keep chosen by dependents"
    lines = [head]
    for i in v.members:
        marks = []
        if i in v.same:
            marks.append("same claim")
        marks += [f"contradicts `{b if a == i else a}`" for a, b in v.contradicts if i in (a, b)]
        lines.append(f"- `{i}`" + (": " + "; ".join(marks) if marks else ""))
    return lines


def render(items: Sequence[ClusterVerdict], run: RunRecord, command: str,
           stage: str = "dedup") -> str:
    parts = [run_note(stage, run), f"# Proposed {stage} verdicts", "",
             "Read the summary, edit or delete entries of the JSON block at the end (it is what",
             "accept reads), then apply them with:", "", f"    {command}", ""]
    for v in items:
        parts += summary(v) + [""]
    block = json.dumps({REPLY_KEY: [v.as_dict() for v in items]}, indent=1, ensure_ascii=False)
    parts += ["```json", block, "```", ""]
    return "\n".join(parts)
