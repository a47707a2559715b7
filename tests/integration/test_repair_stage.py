"""Repair on the real Neo4j: a scripted repairer links, softens, abandons and researches the
justifications review and a challenge defeated; labels are checked against the from-scratch
labelling after each apply, and the undo paths bring the defeats back."""
from __future__ import annotations

from typing import cast

import pytest

from engine import tms
from engine.memory import supersede
from engine.repair.due import read_due
from engine.repair.records import RepairTx
from engine.repair.stage import RepairStage
from engine.review.verdicts import defeater_id
from engine.stages.report import Outcome
from engine.stages.stage import Action
from tests.repair_fakes import defeated_network, repair, reply, run_repair

pytestmark = pytest.mark.neo4j

BRIDGE = ["p5"]
SOFTER = "Auth adds latency to every request."
GAP = "The key cache hit rate under load is measured."


def truth(store, bid: str) -> str:
    return tms.show(store, bid)[0].truth.value


def due_keys(store) -> list[str]:
    return [d.key for d in store.read(read_due).due]


@pytest.fixture
def net(store):
    return defeated_network(store)


def good_reply() -> str:
    return reply(repair("solo", 1, "link", bridges=BRIDGE),
                 repair("mixed", 1, "soften", text=SOFTER),
                 repair("cache", 1, "abandon"),
                 repair("gateway", 1, "research", text=GAP))


def test_what_is_due_is_each_defeated_justification_with_its_finding(net):
    assert sorted(due_keys(net)) == ["cache#1", "gateway#1", "mixed#1", "solo#1"]
    assert [truth(net, b) for b in ("solo", "top", "mixed", "chain")] == ["OUT"] * 4
    shown = RepairStage().read_round(net, 1)
    text = shown.prompt.text
    assert "### solo justification 1 (belief OUT)" in text
    assert "Missing: signing key fetches block when the key cache is cold" in text
    assert "Challenged (`challenge:gateway`): Routing waits, but nothing shows it is slow." in text
    # the cold-cache premise is offered as a bridge for solo
    solo_block = text.split("### solo justification 1")[1].split("###")[0]
    assert "`p5`" in solo_block.split("Candidate bridges")[1]


def test_a_repairer_links_softens_abandons_researches_and_is_asked_again_for_an_unknown_id(net):
    first = reply(repair("solo", 1, "link", bridges=["no-such-belief"]),
                  repair("mixed", 1, "soften", text=SOFTER),
                  repair("cache", 1, "abandon"),
                  repair("gateway", 1, "research", text=GAP))
    result, chat = run_repair(net, first, good_reply())
    (r,) = result.rounds
    assert r.outcome is Outcome.PROPOSED and r.calls == 2
    assert any("bridge 'no-such-belief' does not exist" in d.reason
               for d in r.first_parse.diagnostics)
    assert "no-such-belief" in chat.received[1][-1].content  # the retry quotes it
    actions = {e["id"]: e["action"] for e in r.applied}
    assert actions == {"solo#1": Action.LINKED.value, "mixed#1": Action.SOFTENED.value,
                       "cache#1": Action.ABANDONED.value,
                       "gateway#1": Action.RESEARCH.value}
    assert tms.verify(net) == []
    # link: a second justification, the old antecedents and the bridge, due for review
    solo, _ = tms.show(net, "solo")
    assert solo.justifications[1].antecedents == ("p1", "p2", "p5")
    assert solo.justifications[1].outlist == ()
    assert solo.justifications[0].outlist == (defeater_id("solo", 1),)
    assert (truth(net, "solo"), truth(net, "top")) == ("IN", "IN")
    assert "solo" in net.read(lambda tx: [c.id for c in tx.review_candidates()
                                          if not c.review_sha256 or c.id == "solo"])
    # soften: mixed is superseded by a reworded belief holding its antecedents; chain rewired
    v2, _ = tms.show(net, "mixed-v2")
    assert v2.text == SOFTER and v2.justifications[0].antecedents == ("p1", "p2")
    assert (truth(net, "mixed-v2"), truth(net, "mixed"), truth(net, "chain")) == (
        "IN", "OUT", "IN")
    assert tms.show(net, "chain")[0].justifications[0].antecedents == ("mixed-v2", "p4")
    # abandon and research leave the defeat, and are not shown again; research is a gap
    assert (truth(net, "cache"), truth(net, "gateway")) == ("OUT", "OUT")
    assert due_keys(net) == []
    gaps, total = net.read(lambda tx: cast(RepairTx, tx).gaps(10))
    assert total == 1 and (gaps[0].text, gaps[0].for_belief, gaps[0].justification) == (
        GAP, "gateway", 1)
    # provenance: each repair's REPAIRED edge names the defeaters it answered
    assert net.read(lambda tx: cast(RepairTx, tx).repaired_defeaters()) == {
        defeater_id("solo", 1), defeater_id("mixed", 1), defeater_id("cache", 1),
        "challenge:gateway"}


def test_undo_paths_bring_the_defeats_back(net):
    run_repair(net, good_reply())
    # retracting the link's new premise takes solo (and top) down again
    change = tms.retract(net, "p5", "the cold-cache measurement was wrong")
    assert {"solo", "top"} <= set(change.went_out)
    assert tms.verify(net) == []
    # supersede --undo of the soften restores mixed as it was, defeated, and shown again
    supersede.undo_supersede(net, "mixed")
    assert truth(net, "mixed") == "OUT" and truth(net, "chain") == "OUT"
    assert tms.show(net, "chain")[0].justifications[0].antecedents == ("mixed", "p4")
    assert tms.verify(net) == []
    assert due_keys(net) == ["mixed#1"]


def test_a_repair_that_stays_wrong_after_the_retry_is_left_undecided(net):
    bad = reply(repair("solo", 1, "link", bridges=["top"]),  # top rests on solo
                repair("mixed", 1, "soften", text="Auth is the main latency bottleneck"),
                repair("cache", 1, "fix it"),
                repair("gateway", 1, "research", text=GAP))
    result, _ = run_repair(net, bad, bad)
    (r,) = result.rounds
    reasons = " ".join(d.reason for d in r.first_parse.diagnostics)
    assert "bridge 'top' is OUT, not IN" in reasons or "rests on 'solo'" in reasons
    assert "the softened text is the claim as it stands" in reasons
    assert "action must be one of" in reasons
    assert [e["id"] for e in r.applied] == ["gateway#1"]
    assert sorted(due_keys(net)) == ["cache#1", "mixed#1", "solo#1"]
    assert tms.verify(net) == []


def test_without_auto_the_repairs_go_to_a_file_that_accept_applies(net, tmp_path):
    from engine.stages.accept import accept
    from engine.stages.run import RunOptions, run_stage
    from tests.derive_fakes import RecordingModelForRound, ScriptedChatModel

    out = tmp_path / "proposed-repairs.md"
    chat = ScriptedChatModel(script=[good_reply()])
    result = run_stage(net, RepairStage(), RecordingModelForRound(chat),
                       RunOptions(model="fake", output=out,
                                  accept_command="python -m engine.repair accept"))
    assert result.proposals_file == out and truth(net, "solo") == "OUT"
    done = accept(net, RepairStage(), out)
    assert len(done.applied.entries) == 4 and truth(net, "solo") == "IN"
    assert tms.verify(net) == []
    again = accept(net, RepairStage(), out)  # answered already: refused, nothing twice
    assert again.applied.entries == [] and len(again.applied.checked.skipped) == 4


def test_compact_shows_the_gaps_research_recorded(net):
    from engine.reading.compact import CompactOptions, compact

    assert "Gaps (premises the network lacks" not in compact(net).text
    run_repair(net, good_reply())
    text = compact(net, CompactOptions(budget=2000)).text
    assert "Gaps (premises the network lacks, from repair): 1" in text
    assert f"- gap for gateway [OUT]: {GAP}" in text
    scoped = compact(net, CompactOptions(budget=2000, around="solo", steps=1)).text
    assert "gap for gateway" not in scoped
