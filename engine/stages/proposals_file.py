"""The proposals file of a run without --auto, one layout for every stage: the run note that
`accept` reads (run id and model), a title, what the run proposes, the accept command, a
readable summary per item, then one block that `accept` reads back: JSON for every stage but
derive, whose block is its reply format (readable and parsed as it is). The parsers prefer a
fenced block to the prose around it, so nothing in a summary can be taken for an item.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.stages.provenance import RunRecord

EDIT_AND_ACCEPT = ("Edit or delete entries in the JSON block below (the summaries above it "
                   "are for reading), then apply them with:")


def run_note(stage: str, run: RunRecord) -> str:
    """The comment a proposals file starts with, read back by `accept`."""
    return f"<!-- eem-{stage} run {run.id}, model {run.model or '-'}, {run.started_at} -->"


@dataclass(frozen=True)
class ProposalsFile:
    """What a stage puts in its file; `render` lays it out."""

    stage: str  # the name in the run note
    title: str
    tally: str  # what the run proposes, e.g. "4 verdict(s), 1 not valid"
    payload: object = None  # the JSON block accept reads
    summaries: Sequence[Sequence[str]] = ()  # lines per item, for a person
    how: str = EDIT_AND_ACCEPT
    block_text: str | None = None  # instead of the JSON block: a block in the reply format
    notes: Sequence[str] = field(default_factory=tuple)  # lines after the tally

    def render(self, run: RunRecord, command: str) -> str:
        lines = [run_note(self.stage, run), f"# {self.title}", "",
                 f"Run {run.id}, model {run.model or '-'}, {run.started_at}: {self.tally}. "
                 "Nothing has been written to the network.", *self.notes,
                 self.how, "", f"    {command}", ""]
        for summary in self.summaries:
            lines += [*summary, ""]
        if self.block_text is not None:
            return "\n".join(lines) + "\n" + self.block_text
        block = json.dumps(self.payload, indent=2, ensure_ascii=False)
        return "\n".join([*lines, "```json", block, "```", ""])
