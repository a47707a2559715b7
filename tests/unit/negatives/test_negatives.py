"""The negatives stage on the shared machinery with scripted chat models and the FakeStore:
what is due, the one retry, no default verdict, the verdicts file and accept, staleness, and
the known problems derive's prompt then offers to GATE proposals."""
from __future__ import annotations

import dataclasses
import json

from engine.derive.prompt import build_prompt
from engine.derive.view import read_view
from engine.negatives.due import has_cue, read_due
from engine.stages.problems import current_negatives, negative_kinds
from engine.negatives.stage import NegativeSettings, NegativesStage
from engine.negatives.verdicts import parse_reply
from engine.stages.accept import accept
from engine.stages.report import Outcome
from engine.stages.run import RunOptions, run_stage
from tests.derive_fakes import RecordingModelForRound, ScriptedChatModel, load, premise
from tests.fakes import FakeStore


def network(store: FakeStore) -> FakeStore:
    load(store, [
        premise("auth-keys-fetched", "Auth fetches signing keys on every request."),
        premise("auth-timeout-bug", "Key fetches fail with a timeout under load."),
        premise("auth-retry-design", "Auth retries a failed fetch three times, then errors."),
        premise("auth-uses-jwt", "The auth service validates JWTs."),
        premise("cache-size", "The cache holds 10k entries."),
    ])
    return store


def verdict(bid: str, negative: bool, kind: str = "", comment: str = "because") -> dict:
    return {"id": bid, "negative": negative, "kind": kind, "comment": comment}


def reply(*verdicts: dict) -> str:
    return json.dumps({"verdicts": list(verdicts)})


GOOD = reply(verdict("auth-retry-design", False),
             verdict("auth-timeout-bug", True, "bug", "fetches fail"))


def run(store, script, settings=NegativeSettings(), **options):
    chat = ScriptedChatModel(script=script)
    model = RecordingModelForRound(chat)
    result = run_stage(store, NegativesStage(settings), model,
                       RunOptions(model="fake", **options))
    return result, chat, model


def test_only_in_beliefs_with_a_problem_word_are_due_unless_every():
    store = network(FakeStore())
    due = store.read(lambda tx: read_due(tx))
    assert [c.id for c in due.due] == ["auth-retry-design", "auth-timeout-bug"]
    assert (due.in_beliefs, due.current, due.no_cue) == (5, 0, 3)
    every = store.read(lambda tx: read_due(tx, every=True))
    assert len(every.due) == 5
    assert has_cue("a hard-coded limit") and has_cue("the-cache-is-brittle x")
    assert not has_cue("The cache holds 10k entries.")


def test_a_round_keeps_each_verdict_and_the_negatives_are_listed():
    store = network(FakeStore())
    result, _, model = run(store, [GOOD], auto=True)
    (r,) = result.rounds
    assert r.outcome is Outcome.PROPOSED and r.shown == ("auth-retry-design",
                                                         "auth-timeout-bug")
    assert model.contracts[0].stage == "negatives"
    assert negative_kinds(store) == {"auth-timeout-bug": "bug"}
    assert [c.id for c in store.read(current_negatives)] == ["auth-timeout-bug"]
    again = store.read(lambda tx: read_due(tx))
    assert (again.due, again.current) == ((), 2)  # both judged: not due again


def test_a_passed_over_belief_gets_no_verdict_and_waits_behind_the_rest():
    store = network(FakeStore())
    partial = reply(verdict("auth-timeout-bug", True, "bug"))
    result, chat, _ = run(store, [partial], auto=True)
    (r,) = result.rounds
    assert r.calls == 1  # passed over: not a format failure, no retry
    assert negative_kinds(store) == {"auth-timeout-bug": "bug"}
    due = store.read(lambda tx: read_due(tx))
    assert [c.id for c in due.due] == ["auth-retry-design"]  # no default verdict
    unsure = reply(verdict("auth-retry-design", "maybe"))
    result, chat, _ = run(store, [unsure, unsure], auto=True)
    assert result.rounds[0].calls == 2  # an unreadable verdict asks for the retry
    assert "lacks negative: true or false" in chat.received[1][-1].content
    assert store.read(lambda tx: read_due(tx)).due[0].id == "auth-retry-design"


def test_a_negative_verdict_needs_a_known_kind_and_negative_a_yes_or_no():
    expected = {"a": "sha-a", "b": "sha-b", "c": "sha-c"}
    parsed = parse_reply(reply(verdict("a", True), verdict("b", True, "catastrophe"),
                               {"id": "c", "kind": "bug"}), expected)
    reasons = " | ".join(d.reason for d in parsed.diagnostics)
    assert parsed.items == [] and parsed.needs_retry
    assert "a negative verdict needs a kind" in reasons and "(got 'catastrophe')" in reasons
    assert "lacks negative: true or false" in reasons
    strings = parse_reply(reply({"id": "a", "negative": "yes", "kind": "Open issue"},
                                {"id": "b", "negative": "no"},
                                {"id": "c", "negative": False}), expected)
    assert [(v.belief, v.negative, v.kind, v.shown_sha256) for v in strings.items] == [
        ("a", True, "open-issue", "sha-a"), ("b", False, "", "sha-b"), ("c", False, "", "sha-c")]


def test_without_auto_the_verdicts_go_to_a_file_that_accept_keeps(tmp_path):
    store = network(FakeStore())
    out = tmp_path / "proposed-negatives.md"
    result, _, _ = run(store, [GOOD], output=out,
                       accept_command="python -m engine.negatives accept " + str(out))
    assert result.proposals_file == out and negative_kinds(store) == {}
    text = out.read_text()
    assert text.startswith("<!-- eem-negatives run ")
    assert "### auth-timeout-bug: negative (bug)" in text
    accepted = accept(store, NegativesStage(), out)
    assert [e["id"] for e in accepted.applied.entries] == ["auth-retry-design",
                                                          "auth-timeout-bug"]
    assert negative_kinds(store) == {"auth-timeout-bug": "bug"}


def test_a_verdict_on_a_text_changed_since_is_refused_and_a_reworded_belief_is_due(tmp_path):
    store = network(FakeStore())
    out = tmp_path / "proposed-negatives.md"
    run(store, [GOOD], output=out, accept_command="accept")
    b = store.state.beliefs["auth-timeout-bug"]
    store.state.beliefs[b.id] = dataclasses.replace(b, text="Key fetches time out under load.")
    accepted = accept(store, NegativesStage(), out)
    skipped = accepted.applied.checked.skipped
    assert [(s.id, s.reason) for s in skipped] == [
        ("auth-timeout-bug", "its text changed since the verdict")]
    run(store, [reply(verdict("auth-timeout-bug", True, "risk"))], auto=True)
    assert negative_kinds(store) == {"auth-timeout-bug": "risk"}
    b = store.state.beliefs["auth-timeout-bug"]
    store.state.beliefs[b.id] = dataclasses.replace(b, text="Key fetches are now cached.")
    assert negative_kinds(store) == {}  # the verdict was on another text


def test_all_judges_again_once_per_run():
    store = network(FakeStore())
    run(store, [GOOD], auto=True)
    result, chat, _ = run(store, [reply(verdict("auth-retry-design", True, "limitation"),
                                        verdict("auth-timeout-bug", True, "bug"))],
                          NegativeSettings(redo=True), auto=True, exhaust=True)
    assert [r.outcome for r in result.rounds] == [Outcome.PROPOSED, Outcome.EMPTY]
    assert len(chat.received) == 1
    assert negative_kinds(store) == {"auth-retry-design": "limitation",
                                     "auth-timeout-bug": "bug"}


def test_derive_offers_the_known_problems_near_its_sample_to_a_gate():
    from engine.derive.sampling.sample import Sample

    class Fixed:
        def sample(self, index, pool):
            return Sample(("auth-keys-fetched", "auth-uses-jwt"), "fixed", None, "two")

    store = network(FakeStore())
    view = read_view(store, Fixed(), 0, budget=10)
    assert view.problems == () and "## Known Problems" not in build_prompt(view).text
    run(store, [GOOD], auto=True)
    view = read_view(store, Fixed(), 0, budget=10)
    assert view.problems == (("auth-timeout-bug", "bug",
                              "Key fetches fail with a timeout under load."),)
    prompt = build_prompt(view)
    assert "## Known Problems" in prompt.text
    assert "- `auth-timeout-bug` (bug): Key fetches fail with a timeout under load." in (
        prompt.text)
    assert "auth-timeout-bug" in prompt.allowed_ids
