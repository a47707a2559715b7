"""The proposals file of a dedup run without --auto: a readable summary per cluster, then
the verdicts as one JSON block, which is what `accept` reads back (engine/stages/
proposals_file.py lays it out)."""
from __future__ import annotations

from collections.abc import Sequence

from engine.dedup.verdicts import REPLY_KEY, ClusterVerdict
from engine.stages.proposals_file import ProposalsFile
from engine.stages.provenance import RunRecord


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


def render(items: Sequence[ClusterVerdict], run: RunRecord, command: str) -> str:
    merges = sum(bool(v.same) for v in items)
    return ProposalsFile(
        "dedup", "Proposed dedup verdicts",
        f"{len(items)} cluster verdict(s), {merges} with a merge",
        {REPLY_KEY: [v.as_dict() for v in items]}, [summary(v) for v in items],
    ).render(run, command)
