"""The report's per-proposal `valid` flag, stage by stage. Validation may hand back a changed
copy of an item (forge grounds each premise; review trims unnecessary antecedents the
justification does not name), so the flag is matched by the stage's item key, not by
identity."""
from __future__ import annotations

import json

from engine.contradictions.stage import ContradictionOptions, ContradictionsStage, PairSource
from engine.derive.run import DeriveOptions, derive
from engine.stages.calls import CallPolicy
from engine.stages.report import RoundResult
from engine.stages.rounds import record_applied, record_proposals
from engine.stages.run import RunOptions, run_stage
from engine.stages.stage import Applied
from tests.dedup_fakes import FixedEmbedder, at_angle, dedup_stage, verdicts_reply
from tests.derive_fakes import (RecordingModelForRound, ScriptedChatModel, alphabetical, block,
                                derived, load, premise, reply)
from tests.fakes import FakeStore
from tests.forge_fakes import write_tree
from tests.forge_run import run_forge
from tests.review_fakes import loaded
from tests.review_fakes import reply as review_reply
from tests.review_fakes import stage as review_stage
from tests.review_fakes import verdict

NO_SLEEP = CallPolicy(sleep=lambda s: None)


def scripted(*script: str) -> RecordingModelForRound:
    return RecordingModelForRound(ScriptedChatModel(script=list(script)))


def test_forge_flags_its_grounded_copies_valid_and_a_repeated_id_once(tmp_path):
    root = write_tree(tmp_path, {"a.md": "# A\n\nRedis runs as a single node.\n"})
    answer = json.dumps({"premises": [
        {"id": "redis-single-node", "claim": "Redis runs as one node.",
         "quote": "Redis runs as a single node."},
        {"id": "redis-single-node", "claim": "Redis is not clustered.",
         "quote": "Redis runs as a single node."},
        {"id": "redis-is-fast", "claim": "Redis is fast.", "quote": "Redis is fast."}]})
    result = run_forge(FakeStore(), root, ScriptedChatModel(script=[answer]), auto=False)
    assert [(p["id"], p["valid"]) for p in result.report.to_json()["rounds"][0]["proposals"]
            ] == [("redis-single-node", True), ("redis-single-node", False),
                  ("redis-is-fast", False)]


def test_review_flags_a_trimmed_verdict_valid_and_a_stale_one_not(tmp_path):
    store = loaded(FakeStore())
    out = tmp_path / "review.md"
    answer = review_reply(verdict("either", 1), verdict("either", 2), verdict("mixed", 1),
                          verdict("mixed", 2), verdict("solo", 1))
    run_stage(store, review_stage(), scripted(answer),
              RunOptions(model="fake", calls=NO_SLEEP, output=out, accept_command="accept"))
    block = json.loads(out.read_text().split("```json\n", 1)[1].split("\n```", 1)[0])
    for v in block["verdicts"]:  # as a user might edit the file
        if (v["id"], v["justification"]) == ("mixed", 1):
            v["unnecessary_antecedents"] = ["p1", "not-named"]
        if v["id"] == "solo":
            v["shown_sha256"] = "0" * 64
    stage = review_stage()
    parsed = stage.parse(json.dumps(block), None)
    checked = store.read(lambda tx: stage.check(tx, parsed.items, None))
    trimmed = next(v for v in checked.valid if v.key == "mixed#1")
    assert trimmed.unnecessary_antecedents == ("p1",)  # a copy, not the parsed verdict
    result = RoundResult(n=1)
    record_proposals(result, parsed, stage)
    record_applied(result, Applied(checked), stage)
    assert sorted((p["id"], p["justification"], p["valid"]) for p in result.to_json()["proposals"]
                  ) == [("either", 1, True), ("either", 2, True), ("mixed", 1, True),
                        ("mixed", 2, True), ("solo", 1, False)]


def test_derive_flags_each_proposal():
    store = FakeStore()
    load(store, [premise(i) for i in ("a", "b")])
    result = derive(store, scripted(reply(block("ab", ["a", "b"]), block("ag", ["a", "ghost"]))),
                    alphabetical(), DeriveOptions(model="fake", calls=NO_SLEEP))
    assert [(p["id"], p["valid"]) for p in result.report.to_json()["rounds"][0]["proposals"]
            ] == [("ab", True), ("ag", False)]


def test_dedup_flags_each_cluster_verdict():
    texts = {"a": "Reads are stale.", "b": "Reads can be stale."}
    store = FakeStore()
    load(store, [premise(i, t) for i, t in texts.items()])
    stage = dedup_stage(FixedEmbedder({texts["a"]: at_angle(0), texts["b"]: at_angle(10)}),
                        threshold=0.9)
    answer = verdicts_reply({"cluster": 1, "verdict": "SAME", "keep": "a", "same": ["a", "b"]})
    result = run_stage(store, stage, scripted(answer), RunOptions(model="fake", calls=NO_SLEEP))
    proposals = result.report.to_json()["rounds"][0]["proposals"]
    assert [(p["cluster"], p["valid"]) for p in proposals] == [(1, True)]


def test_contradictions_flags_each_pair():
    store = FakeStore()
    load(store, [premise("base"), derived("fast", ["base"], text="Failover is instant."),
                 derived("slow", ["base"], text="Failover takes an hour.")])
    options = ContradictionOptions()
    answer = json.dumps({"pairs": [{"pair": 1, "verdict": "CONTRADICTION"}]})
    result = run_stage(store, ContradictionsStage(options, PairSource(None, options)),
                       scripted(answer), RunOptions(model="fake", calls=NO_SLEEP))
    proposals = result.report.to_json()["rounds"][0]["proposals"]
    assert [(p["pair"], p["valid"]) for p in proposals] == [(1, True)]


def test_a_key_counts_only_as_many_proposals_as_valid_items_carry_it():
    r = RoundResult(n=1, proposal_keys=["x", "y", "x", "x"], valid_keys=["x", "x"])
    assert r.valid_flags() == [True, False, True, False]
