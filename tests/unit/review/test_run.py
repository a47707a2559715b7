"""Review rounds through the shared machinery (engine.stages.run.run_stage) with scripted
fake chat models: the one retry with the diagnostics quoted, an answer that leaves a
justification out, exhaust in dependency order, the verdicts file and accept."""
from __future__ import annotations

import json

from engine.model import Truth
from engine.review.verdicts import defeater_id
from engine.stages.accept import accept
from engine.stages.report import Outcome
from engine.stages.run import RunOptions, run_stage
from tests.derive_fakes import RecordingModelForRound, ScriptedChatModel
from tests.fakes import FakeStore
from tests.review_fakes import loaded, reply, stage, verdict

ROUND1 = [verdict("either", 1), verdict("either", 2), verdict("mixed", 1, False),
          verdict("mixed", 2), verdict("solo", 1)]
ROUND2 = [verdict("chain", 1), verdict("top", 1)]


def run(store, script, **options):
    chat = ScriptedChatModel(script=script)
    model = RecordingModelForRound(chat)
    result = run_stage(store, stage(), model, RunOptions(model="fake", **options))
    return result, chat, model


def test_a_reply_without_verdicts_is_retried_once_with_the_diagnostics_quoted():
    store = loaded(FakeStore())
    result, chat, _ = run(store, ["All of them look fine to me.", reply(*ROUND1)], auto=True)
    (r,) = result.rounds
    assert r.outcome is Outcome.PROPOSED and r.calls == 2
    retry = chat.received[1][-1].content
    assert "no JSON array of verdicts" in retry
    assert "Still without a verdict: either justification 1" in retry
    assert '{"verdicts": [' in retry  # the format again
    assert store.state.beliefs[defeater_id("mixed", 1)].truth is Truth.IN


def test_after_a_failed_retry_nothing_is_valid_and_nothing_is_written():
    store = loaded(FakeStore())
    result, _, _ = run(store, ["no", "still no"], auto=True)
    assert result.rounds[0].outcome is Outcome.FORMAT_FAILURE
    assert store.state.reviews == {} and store.state.verdicts == []


def test_a_left_out_justification_is_asked_for_again_then_left_unreviewed():
    store = loaded(FakeStore())
    partial = reply(*[v for v in ROUND1 if (v["id"], v["justification"]) != ("mixed", 2)])
    result, chat, _ = run(store, [partial, partial], auto=True)
    (r,) = result.rounds
    assert r.calls == 2 and "no verdict on mixed#2" in chat.received[1][-1].content
    assert r.outcome is Outcome.PROPOSED
    assert sorted(store.state.reviews) == ["either", "solo"]  # mixed stays unreviewed


def test_a_belief_left_out_is_passed_over_without_a_retry_and_shown_after_the_rest():
    store = loaded(FakeStore())
    without_solo = reply(*[v for v in ROUND1 if v["id"] != "solo"])
    result, chat, _ = run(store, [without_solo, reply(verdict("chain", 1), verdict("solo", 1)),
                                  reply(verdict("top", 1))], auto=True, exhaust=True)
    first = result.rounds[0]
    assert first.calls == 1 and first.outcome is Outcome.PROPOSED
    assert first.parse is not None and first.parse.passed_over == ["solo#1"]
    # round 2: chain (due once mixed is reviewed) before solo, which had its turn; top waits
    # on solo until it is judged
    assert [r.shown for r in result.rounds] == [("either", "mixed", "solo"), ("chain", "solo"),
                                                ("top",), ()]
    assert result.rounds[1].details["passed_over"] == {"solo": 1}
    assert result.rounds[1].details["waiting_on"] == {"top": ["solo"]}
    assert result.stopped == "nothing left to show" and result.report.unanswered == {}
    assert sorted(store.state.reviews) == ["chain", "either", "mixed", "solo", "top"]


def test_exhaust_reviews_everything_in_dependency_order_and_stops_when_nothing_is_due():
    store = loaded(FakeStore())
    result, chat, model = run(store, [reply(*ROUND1), reply(*ROUND2)], auto=True, exhaust=True)
    assert [r.outcome for r in result.rounds] == [Outcome.PROPOSED, Outcome.PROPOSED,
                                                  Outcome.EMPTY]
    assert [r.shown for r in result.rounds[:2]] == [("either", "mixed", "solo"),
                                                    ("chain", "top")]
    assert len(chat.received) == 2  # the empty round calls no model
    assert model.contracts[0].stage == "review"
    assert sorted(store.state.reviews) == ["chain", "either", "mixed", "solo", "top"]


def test_without_auto_the_verdicts_go_to_a_file_that_accept_applies(tmp_path):
    store = loaded(FakeStore())
    out = tmp_path / "proposed-review.md"
    result, _, _ = run(store, [reply(*ROUND1)], output=out,
                       accept_command="python -m engine.review accept " + str(out))
    assert result.proposals_file == out
    assert store.state.reviews == {}  # nothing written
    text = out.read_text()
    assert text.startswith("<!-- eem-review run ")
    assert "### mixed, justification 1: NOT VALID (missing-bridge)" in text
    data = json.loads(text.split("```json\n", 1)[1].split("\n```", 1)[0])
    assert len(data["verdicts"]) == 5 and all(len(v["shown_sha256"]) == 64
                                              for v in data["verdicts"])
    done = accept(store, stage(), out)
    assert [e["id"] for e in done.applied.entries] == [
        "either#1", "either#2", "mixed#1", "mixed#2", "solo#1"]
    assert store.state.beliefs[defeater_id("mixed", 1)].truth is Truth.IN
    assert sorted(store.state.reviews) == ["either", "mixed", "solo"]


def test_accept_refuses_verdicts_on_a_belief_changed_since(tmp_path):
    import dataclasses
    store = loaded(FakeStore())
    out = tmp_path / "v.md"
    run(store, [reply(*ROUND1)], output=out, accept_command="accept")
    b = store.state.beliefs["p3"]
    store.state.beliefs["p3"] = dataclasses.replace(b, text="Edited.")
    done = accept(store, stage(), out)
    skipped = {s.id: s.reason for s in done.applied.checked.skipped}
    assert sorted(skipped) == ["mixed#1", "mixed#2"]
    assert "changed since it was reviewed" in skipped["mixed#1"]


def test_structured_output_gets_the_schema_and_its_json_is_read():
    from adapters.llm.structured import structured_rounds
    from tests.llm_fakes import FakeStructuredChat

    store = loaded(FakeStore())
    chat = FakeStructuredChat(reply={"verdicts": json.loads(reply(*ROUND1))["verdicts"]})
    result = run_stage(store, stage(), structured_rounds(chat, method="json_schema"),
                       RunOptions(model="fake", auto=True))
    assert result.rounds[0].outcome is Outcome.PROPOSED
    schema, _ = chat.asked[-1]
    assert "prefixItems" in schema["properties"]["verdicts"]  # bounded: the grammar's form
    assert store.state.beliefs[defeater_id("mixed", 1)].truth is Truth.IN
