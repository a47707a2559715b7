"""Every stage's proposals file has one layout (engine/stages/proposals_file.py): the run note
accept reads, a title, the tally, the accept command, a summary per item, one JSON block;
and what the stage's parser reads back is exactly the items, whatever the summaries say."""
from __future__ import annotations

import json
import re

import pytest

from engine.dedup import proposals_file as dedup_file
from engine.dedup.verdicts import ClusterVerdict, parse_verdicts
from engine.repair import parser as repair_parser
from engine.repair import proposals_file as repair_file
from engine.repair.repairs import Repair
from engine.review import parser as review_parser
from engine.review_premises import proposals_file as premises_file
from engine.review_premises import verdicts as premises_verdicts
from engine.review import proposals_file as review_file
from engine.review.verdicts import Verdict
from engine.review_premises.verdicts import PremiseVerdict
from engine.stages.accept import _RUN_NOTE
from engine.stages.proposals_file import ProposalsFile
from engine.stages.provenance import RunRecord

RUN = RunRecord("run-9", "fake:scripted", "2026-12-04T09:00:00Z", {}, stage="review")
COMMAND = "python -m engine.review accept proposed.md"
# A comment that looks like JSON: the summary shows it, the parser must not read it as items.
TRICKY = 'see ["x", {"id": "y"}]'

CASES = {
    "review": (
        lambda: review_file.render(
            [Verdict("b", 1, True, comment=TRICKY),
             Verdict("c", 2, False, reason_type="gap", missing_property="a rate")],
            RUN, COMMAND),
        lambda text: [(v.belief, v.justification, v.valid)
                      for v in review_parser.parse_reply(text).items],
        [("b", 1, True), ("c", 2, False)]),
    "premise review": (
        lambda: premises_file.render(
            [PremiseVerdict("p", "confirmed", comment=TRICKY),
             PremiseVerdict("q", "partial", narrower="only on Linux")], RUN, COMMAND),
        lambda text: [(v.belief, v.verdict) for v in premises_verdicts.parse_reply(text).items],
        [("p", "confirmed"), ("q", "partial")]),
    "repair": (
        lambda: repair_file.render(
            [Repair("b", 1, "link", ("x",), comment=TRICKY),
             Repair("c", 1, "research", text="the rate limit")], RUN, COMMAND),
        lambda text: [(r.belief, r.action) for r in repair_parser.parse_reply(text).items],
        [("b", "link"), ("c", "research")]),
    "dedup": (
        lambda: dedup_file.render(
            [ClusterVerdict(1, "SAME", ("a", "b"), ("s1", "s2"), keep="a", same=("a", "b"),
                            comment=TRICKY)], RUN, COMMAND),
        lambda text: [(v.cluster, v.verdict, v.same) for v in parse_verdicts(text, None).items],
        [(1, "SAME", ("a", "b"))]),
}


@pytest.mark.parametrize("stage", sorted(CASES))
def test_every_stage_file_has_the_one_layout_and_reads_back_its_items(stage):
    render, read_back, expected = CASES[stage]
    text = render()
    lines = text.splitlines()
    assert _RUN_NOTE.match(lines[0]).group(1) == "run-9"
    assert lines[1].startswith("# Proposed ")
    assert lines[3].startswith("Run run-9, model fake:scripted, 2026-12-04T09:00:00Z: ")
    assert f"    {COMMAND}" in lines
    fences = re.findall(r"^```json\n(.*?)^```$", text, re.S | re.M)
    assert len(fences) == 1 and text.endswith("```\n")
    json.loads(fences[0])
    assert read_back(text) == expected


def test_derive_keeps_its_reply_format_as_the_block():
    text = ProposalsFile("derive", "Proposed derivations", "1 proposal(s)",
                         how="Delete the blocks you do not want, then apply the rest with:",
                         block_text="### DERIVE x\nclaim\n").render(RUN, "accept f")
    assert text.startswith("<!-- eem-derive run run-9, model fake:scripted,")
    assert "```" not in text and text.endswith("\n### DERIVE x\nclaim\n")
