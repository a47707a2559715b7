"""The shared machinery with a stage of its own (not derive): a toy stage that asks the model
which of the round's premises to retract, in JSON. What a new stage gets without touching the
machinery: rounds until nothing is due, the one retry with the stage's message and its
combine, outcomes, the typed report, Run/Round provenance, the proposals file and accept."""
from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from engine import tms
from engine.model import Truth
from engine.stages.accept import accept
from engine.stages.calls import CallPolicy
from engine.stages.contract import JsonReply, RoundContract
from engine.stages.proposals_file import run_note
from engine.stages.provenance import RoundRecord, RunRecord
from engine.stages.report import Outcome, RunStatus, StopReason
from engine.stages.run import RunOptions, run_stage
from engine.stages.stage import (
    Applied,
    AppliedEntry,
    Checked,
    Diagnostic,
    Parsed,
    Prompt,
    RoundInput,
    Skip,
)
from engine.graph import GraphTx
from engine.store import Store
from engine.tms.records import BeliefFilter
from tests.derive_fakes import RecordingModelForRound, ScriptedChatModel, load, premise
from tests.fakes import FakeStore

NO_SLEEP = CallPolicy(sleep=lambda s: None)


class RetractStage:
    """Shows up to two IN premises a round; the model names those to retract."""

    name = "toy"

    def read_round(self, store: Store, n: int) -> RoundInput:
        ids = tuple(b.id for b in store.read(lambda tx: tx.list_beliefs(
            BeliefFilter(truth=Truth.IN, premises=True))))[:2]
        schema = {"type": "object", "properties": {"retract": {
            "type": "array", "items": {"type": "string", "enum": list(ids)}}}}
        text = "Which of these should go? " + ", ".join(ids)
        return RoundInput(Prompt(text, f"sha-{n}"), RoundContract(ids, JsonReply(schema), "toy"),
                          shown=ids, empty=not ids, details={"strategy": "first-two"})

    def parse(self, reply: str, shown: RoundInput | None) -> Parsed[str]:
        body = "\n".join(ln for ln in reply.splitlines() if not ln.startswith("<!--"))
        try:
            data = json.loads(body)
        except ValueError:
            return Parsed(diagnostics=[Diagnostic("not JSON")], needs_retry=True)
        items = [str(i) for i in data.get("retract", [])]
        return Parsed(items=items, nothing_to_say=not items)

    def retry_message(self, parsed, shown: RoundInput) -> str:
        return "JSON please: " + "; ".join(d.reason for d in parsed.diagnostics)

    def combine(self, first, second):
        return second

    def check(self, tx: GraphTx, items: Sequence[str], shown: RoundInput | None) -> Checked[str]:
        known = tx.existing_ids(items)
        return Checked([i for i in items if i in known],
                       [Skip(i, "no such belief") for i in items if i not in known])

    def apply(self, tx: GraphTx, items: Sequence[str], shown: RoundInput | None,
              run: RunRecord, record: RoundRecord) -> Applied:
        checked = self.check(tx, items, shown)
        change = tms.retract_in(tx, checked.valid[0], "toy") if checked.valid else None
        return Applied(checked, [AppliedEntry(i) for i in checked.valid],
                       change if change is not None else Applied(checked).change)

    def item_dict(self, item: str) -> dict[str, Any]:
        return {"id": item}

    def item_key(self, item: str) -> str:
        return item

    def render_file(self, items: Sequence[str], run: RunRecord, command: str) -> str:
        return run_note(self.name, run) + "\n" + json.dumps({"retract": list(items)}) + "\n"


@pytest.fixture
def store():
    s = FakeStore()
    load(s, [premise(i) for i in ("a", "b", "c")])
    return s


def run(store, script, **options):
    chat = ScriptedChatModel(script=script)
    mfr = RecordingModelForRound(chat)
    result = run_stage(store, RetractStage(), mfr, RunOptions(calls=NO_SLEEP, **options))
    return result, chat, mfr


def test_exhaust_runs_until_nothing_is_left(store):
    script = ['{"retract": ["a"]}', '{"retract": ["b"]}', '{"retract": ["c"]}']
    result, chat, mfr = run(store, script, exhaust=True)
    assert [r.outcome for r in result.rounds] == [Outcome.PROPOSED] * 3 + [Outcome.EMPTY]
    assert result.report.stop_reason is StopReason.NOTHING_LEFT
    assert result.stopped == "nothing left to show"
    assert {b: store.state.beliefs[b].truth for b in "abc"} == dict.fromkeys("abc", Truth.OUT)
    assert [c.stage for c in mfr.contracts] == ["toy"] * 3
    assert isinstance(mfr.contracts[0].reply, JsonReply)
    assert [(r.run_id, r.round, r.stage, r.strategy) for r in store.state.rounds] == [
        (result.run_id, n, "toy", "first-two") for n in (1, 2, 3)]
    assert store.state.runs[result.run_id].stage == "toy"


def test_the_retry_quotes_the_stages_own_message(store):
    result, chat, _ = run(store, ["nope", '{"retract": ["b"]}'], auto=True)
    (r,) = result.rounds
    assert r.outcome is Outcome.PROPOSED and r.calls == 2
    assert chat.received[1][2].content == "JSON please: not JSON"
    assert store.state.beliefs["b"].truth == Truth.OUT


def test_still_unreadable_after_the_retry_is_a_format_failure_not_dry(store):
    result, _, _ = run(store, ["nope", "still nope"] * 2, exhaust=True, max_rounds=2)
    assert [r.outcome for r in result.rounds] == [Outcome.FORMAT_FAILURE] * 2
    assert result.report.stop_reason is StopReason.MAX_ROUNDS
    assert all(b.truth == Truth.IN for b in store.state.beliefs.values())


def test_a_skipped_item_is_reported_and_nothing_valid_is_dry(store):
    result, _, _ = run(store, ['{"retract": ["zzz"]}'], auto=True)
    (r,) = result.rounds
    assert r.outcome is Outcome.DRY and [s.as_dict() for s in r.skipped] == [
        {"id": "zzz", "reason": "no such belief", "line": 0}]
    report = result.report.to_json()
    assert report["stage"] == "toy" and report["rounds"][0]["proposals"] == [
        {"id": "zzz", "valid": False}]


def test_a_proposals_file_then_accept(store, tmp_path):
    out = tmp_path / "toy.md"
    result, _, _ = run(store, ['{"retract": ["a"]}'], output=out, accept_command="toy accept")
    assert result.status is RunStatus.COMPLETE and result.proposals_file == out
    assert store.state.beliefs["a"].truth == Truth.IN  # nothing applied without --auto
    accepted = accept(store, RetractStage(), out)
    assert accepted.applied.entries == [{"id": "a"}]
    assert store.state.beliefs["a"].truth == Truth.OUT
    run_record = store.state.runs[accepted.run_id]
    assert run_record.stage == "toy" and run_record.params["proposed_by_run"] == result.run_id
    assert store.state.rounds[-1].strategy == "accept"
