"""DedupStage and ContradictionsStage through the shared run loop, on the in-memory store,
with scripted chat models: the retry, undecided clusters, merges, nogoods, proposals files."""
from __future__ import annotations

import json

from engine.contradictions.stage import ContradictionOptions, ContradictionsStage, PairSource
from engine.dedup.merge import undo
from engine.model import Truth
from engine.stages.accept import accept
from engine.stages.report import Outcome
from engine.stages.run import RunOptions, run_stage
from tests.dedup_fakes import FixedEmbedder, at_angle, dedup_stage, verdicts_reply
from tests.derive_fakes import RecordingModelForRound, ScriptedChatModel, derived, load, premise
from tests.fakes import FakeStore

TEXTS = {"a": "Reads are stale.", "b": "Reads can be stale.", "c": "Queues are durable.",
         "d": "Queues persist messages."}
VECTORS = {TEXTS["a"]: at_angle(0), TEXTS["b"]: at_angle(10),
           TEXTS["c"]: at_angle(0, plane=1), TEXTS["d"]: at_angle(12, plane=1),
           "Derived uses-b.": at_angle(0, plane=2), "Derived gate.": at_angle(0, plane=3)}


def network() -> FakeStore:
    store = FakeStore()
    load(store, [premise(i, t) for i, t in TEXTS.items()]
         + [derived("uses-b", ["b", "c"]), derived("gate", ["c"], unless=["b"])])
    return store


def run(store, stage, script, **options):
    chat = ScriptedChatModel(script=script)
    model = RecordingModelForRound(chat)
    result = run_stage(store, stage, model, RunOptions(model="scripted", **options))
    return result, chat, model


def stage():
    return dedup_stage(FixedEmbedder(VECTORS), threshold=0.9)


SAME_AB = {"cluster": 1, "verdict": "SAME", "keep": "a", "same": ["a", "b"]}
DIFF_CD = {"cluster": 2, "verdict": "DIFFERENT"}


def test_a_round_shows_clusters_and_restricts_the_reply_to_them():
    store = network()
    s = stage()
    shown = s.read_round(store, 1)
    assert "## Cluster 1" in shown.prompt.text and "## Cluster 2" in shown.prompt.text
    assert "- `a` (IN, depth 0, 0 dependents): Reads are stale." in shown.prompt.text
    assert "- `b` (IN, depth 0, 2 dependents): Reads can be stale." in shown.prompt.text
    schema = shown.contract.reply.schema
    assert schema["properties"]["verdicts"]["items"]["properties"]["cluster"]["enum"] == [1, 2]
    assert shown.contract.stage == "dedup" and set(shown.contract.allowed_ids) == set("abcd")


def test_auto_merges_rewires_and_records_and_undo_restores():
    store = network()
    before = store.state.beliefs
    result, chat, _ = run(store, stage(), [verdicts_reply(SAME_AB, DIFF_CD)], auto=True)
    (r,) = result.rounds
    assert r.outcome is Outcome.PROPOSED and len(chat.received) == 1
    beliefs = store.state.beliefs
    assert beliefs["uses-b"].justifications[0].antecedents == ("a", "c")
    assert beliefs["gate"].justifications[0].outlist == ("a",)
    assert beliefs["b"].truth == Truth.OUT and beliefs["b"].retract_reason == "duplicate of a"
    assert {(v.a, v.b, v.verdict) for v in store.state.pair_verdicts.values()} == {
        ("a", "b", "SAME"), ("c", "d", "DIFFERENT")}
    assert stage().read_round(store, 1).empty  # nothing left to ask
    undo(store, "b")
    assert store.state.beliefs == before


def test_a_faulty_reply_is_retried_once_with_the_diagnoses():
    store = network()
    result, chat, _ = run(store, stage(), ["They look the same to me.",
                                           verdicts_reply(SAME_AB, DIFF_CD)], auto=True)
    assert len(chat.received) == 2
    retry = chat.received[1][-1].content
    assert "no JSON object or list in the reply" in retry and "cluster 1: no answer" in retry
    assert result.rounds[0].outcome is Outcome.PROPOSED
    assert store.state.beliefs["b"].truth == Truth.OUT


def test_undecided_clusters_stay_undecided():
    store = network()
    result, chat, _ = run(store, stage(), [verdicts_reply(SAME_AB),
                                           verdicts_reply({"cluster": 2, "verdict": "PERHAPS"})],
                          auto=True)
    assert len(chat.received) == 2
    assert {(v.a, v.b) for v in store.state.pair_verdicts.values()} == {("a", "b")}  # not c-d
    fresh = stage().read_round(store, 1)
    assert [c.members for c in fresh.context] == [("c", "d")]  # asked again by a later run


def test_two_failed_replies_are_a_format_failure_and_write_nothing():
    store = network()
    result, chat, _ = run(store, stage(), ["nope", "[1, 2, 3]"], auto=True, exhaust=True)
    assert result.rounds[0].outcome is Outcome.FORMAT_FAILURE
    assert store.state.pair_verdicts == {} and store.state.merges == {}


def test_exhaust_does_not_show_a_cluster_twice_in_one_run():
    store = network()
    result, chat, _ = run(store, dedup_stage(FixedEmbedder(VECTORS), threshold=0.9, batch=1),
                          [verdicts_reply({"cluster": 1, "verdict": "SAME"}), "??", "??"],
                          auto=True, exhaust=True, max_rounds=5)
    outcomes = [r.outcome for r in result.rounds]
    assert outcomes == [Outcome.PROPOSED, Outcome.FORMAT_FAILURE, Outcome.EMPTY]


def test_the_proposals_file_reads_back_and_accept_applies_it(tmp_path):
    store = network()
    out = tmp_path / "proposed-dedup.md"
    result, _, _ = run(store, stage(), [verdicts_reply(SAME_AB, DIFF_CD)], output=out,
                       accept_command="python -m engine.dedup accept")
    assert store.state.pair_verdicts == {}  # nothing applied without --auto
    text = out.read_text()
    assert "## Cluster 1: SAME, keep `a`" in text and "python -m engine.dedup accept" in text
    done = accept(store, stage(), out)
    assert [e["id"] for e in done.applied.entries if e["action"] == "merged"] == ["b"]
    assert store.state.beliefs["b"].truth == Truth.OUT


def test_a_contradiction_becomes_a_nogood_and_a_retracted_member_backtracks():
    store = FakeStore()
    load(store, [premise("base"), derived("fast", ["base"], text="Failover is instant."),
                 derived("slow", ["base"], text="Failover takes an hour."),
                 premise("x", "Unrelated.")])
    options = ContradictionOptions()
    s = ContradictionsStage(options, PairSource(None, options))
    result, chat, model = run(store, s, [json.dumps({"pairs": [{"pair": 1,
                                                                 "verdict": "CONTRADICTION"}]})],
                              auto=True)
    assert "## Pair 1 (both rest on a common antecedent)" in chat.received[0][-1].content
    (nogood,) = store.state.nogoods
    assert nogood.members == ("fast", "slow")
    assert store.state.beliefs["base"].truth == Truth.OUT  # the assumption under both
    assert store.state.found[nogood.id][0] == "contradictions"
    assert model.contracts[0].reply.schema["properties"]["pairs"]["items"]["properties"][
        "pair"]["enum"] == [1]
