"""Rounds in parallel (engine/stages/parallel.py) with a toy stage on the FakeStore: calls
overlap up to N, rounds are applied in order and never show what another in flight shows,
the stop conditions are a sequential run's, a proposals file is the sequential one, a
stage that cannot read around rounds in flight runs one round at a time, and a stop (review,
after a fatal 429) discards the rounds still in flight."""
from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from engine import tms
from engine.model import Truth
from engine.stages.calls import CallPolicy
from engine.stages.contract import JsonReply, RoundContract, unconstrained
from engine.stages.provenance import RoundRecord, RunRecord
from engine.stages.report import Outcome, RunStatus, StopReason
from engine.stages.run import RunOptions, run_stage
from engine.stages.stage import (
    Applied,
    AppliedEntry,
    Checked,
    Parsed,
    Prompt,
    ReadsAroundInFlight,
    RoundInput,
    Skip,
)
from engine.review.stage import ReviewSettings, ReviewStage
from engine.graph import GraphTx
from engine.store import Store
from engine.tms.records import BeliefFilter
from tests.derive_fakes import load, premise
from tests.fakes import FakeStore
from tests.parallel_fakes import KeyedCritic, layered_network

NO_SLEEP = CallPolicy(sleep=lambda s: None)
OVERLAP_WAIT = 30.0  # seconds; only a run that never overlaps its calls waits this long


class RetractEach:
    """Shows `per_round` IN premises a round (besides those in flight); the model names
    those to retract. Planned: round n shows premise n, whatever is IN."""

    name = "toy"

    def __init__(self, per_round: int = 1, planned: bool = False):
        self.per_round, self.planned = per_round, planned

    def read_round_besides(self, store: Store, n: int, busy: frozenset[str]) -> RoundInput:
        ids = tuple(b.id for b in store.read(lambda tx: tx.list_beliefs(
            BeliefFilter(truth=Truth.IN, premises=True))))
        if self.planned:
            ids = tuple(sorted(ids))[n - 1:n]
        else:
            ids = tuple(i for i in ids if i not in busy)[:self.per_round]
        text = "SHOWN " + json.dumps(list(ids))
        return RoundInput(Prompt(text, f"sha-{n}"), RoundContract(ids, JsonReply({}), "toy"),
                          shown=ids, empty=not ids)

    def read_round(self, store: Store, n: int) -> RoundInput:
        return self.read_round_besides(store, n, frozenset())

    def parse(self, reply: str, shown: RoundInput | None) -> Parsed[str]:
        data = json.loads(reply)
        return Parsed(items=[str(i) for i in data["retract"]], nothing_to_say=not data["retract"])

    def retry_message(self, parsed, shown: RoundInput) -> str:
        return "again"

    def combine(self, first, second):
        return second

    def check(self, tx: GraphTx, items: Sequence[str], shown: RoundInput | None) -> Checked[str]:
        known = {b.id for b in tx.list_beliefs(BeliefFilter(truth=Truth.IN))}
        return Checked([i for i in items if i in known],
                       [Skip(i, "not IN") for i in items if i not in known])

    def apply(self, tx: GraphTx, items: Sequence[str], shown: RoundInput | None,
              run: RunRecord, record: RoundRecord) -> Applied:
        checked = self.check(tx, items, shown)
        for i in checked.valid:
            tms.retract_in(tx, i, "toy")
        return Applied(checked, [AppliedEntry(i) for i in checked.valid])

    def item_dict(self, item: str) -> dict[str, Any]:
        return {"id": item}

    def item_key(self, item: str) -> str:
        return item

    def render_file(self, items: Sequence[str], run: RunRecord, command: str) -> str:
        return json.dumps({"retract": list(items)}) + "\n"


class SequentialOnly(RetractEach):
    """The same stage without read_round_besides (as derive)."""

    read_round_besides = None  # type: ignore[assignment]

    def read_round(self, store: Store, n: int) -> RoundInput:
        return RetractEach.read_round_besides(self, store, n, frozenset())


class Judge(BaseChatModel):
    """Answers from the prompt: retract what is shown (or nothing, `dry`), after `seconds`;
    counts the most calls in flight at once. With `overlap`, the first `overlap` calls each
    wait until that many are in flight together (at most OVERLAP_WAIT seconds), so calls
    that can overlap do, whatever the machine's load."""

    seconds: float = 0.0
    dry: bool = False
    overlap: int = 0
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _all_in: threading.Event = PrivateAttr(default_factory=threading.Event)
    _calls: int = PrivateAttr(default=0)
    _now: int = PrivateAttr(default=0)
    _most: int = PrivateAttr(default=0)

    @property
    def _llm_type(self) -> str:
        return "judge"

    @property
    def most_in_flight(self) -> int:
        return self._most

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        with self._lock:
            self._calls += 1
            self._now += 1
            self._most = max(self._most, self._now)
            waits = self._calls <= self.overlap
            if self._now >= self.overlap:
                self._all_in.set()
        try:
            if waits:
                self._all_in.wait(OVERLAP_WAIT)
            time.sleep(self.seconds)
        finally:
            with self._lock:
                self._now -= 1
        shown = json.loads(str(messages[0].content).removeprefix("SHOWN "))
        text = json.dumps({"retract": [] if self.dry else shown})
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])


@pytest.fixture
def store():
    s = FakeStore()
    load(s, [premise(f"p{i:02}") for i in range(12)])
    return s


def go(store, stage, judge, **options):
    options.setdefault("calls", NO_SLEEP)
    return run_stage(store, stage, unconstrained(judge), RunOptions(**options))


def test_up_to_n_calls_in_flight_and_rounds_applied_in_order(store):
    judge = Judge(overlap=4)
    result = go(store, RetractEach(per_round=2), judge, exhaust=True, max_rounds=20,
                parallel=4)
    assert judge.most_in_flight == 4
    assert [r.n for r in result.rounds] == list(range(1, 8))
    assert [r.outcome for r in result.rounds] == [Outcome.PROPOSED] * 6 + [Outcome.EMPTY]
    shown = [i for r in result.rounds for i in r.shown]
    assert len(shown) == len(set(shown)) == 12  # no belief in two rounds
    assert all(b.truth is Truth.OUT for b in store.state.beliefs.values())
    assert [r.round for r in store.state.rounds] == list(range(1, 7))  # one write per round
    assert result.report.to_json()["parallel"] == 4


def test_the_sequential_run_gives_the_same_report(store):
    sequential = go(store, RetractEach(per_round=2), Judge(), exhaust=True, max_rounds=20)
    other = FakeStore()
    load(other, [premise(f"p{i:02}") for i in range(12)])
    parallel = go(other, RetractEach(per_round=2), Judge(seconds=0.05), exhaust=True,
                  max_rounds=20, parallel=3)
    def strip(report):
        t = report.totals.to_json()
        t.pop("seconds")
        return t, report.stopped, [(r.n, r.outcome, r.shown) for r in report.rounds]
    assert strip(parallel.report) == strip(sequential.report)
    assert sequential.report.parallel == 1 and sequential.report.discarded is None


def test_max_rounds_is_never_passed(store):
    judge = Judge(seconds=0.05)
    result = go(store, RetractEach(), judge, exhaust=True, max_rounds=5, parallel=8)
    assert len(result.rounds) == 5 and result.report.stop_reason is StopReason.MAX_ROUNDS
    assert sum(b.truth is Truth.OUT for b in store.state.beliefs.values()) == 5
    assert result.report.discarded is not None and result.report.discarded.rounds == 0


def test_k_dry_rounds_stop_as_in_sequence_and_later_rounds_are_discarded(store):
    judge = Judge(seconds=0.1, dry=True)
    result = go(store, RetractEach(), judge, exhaust=True, max_rounds=10, dry_rounds=2,
                parallel=4)
    assert [r.outcome for r in result.rounds] == [Outcome.DRY, Outcome.DRY]
    assert result.stopped == "2 consecutive dry round(s)"
    discarded = result.report.to_json()["discarded"]
    # rounds 3 to 5 were asked (5 once round 1 was applied) but are not applied
    assert discarded["rounds"] == 3 and discarded["calls"] == 3
    assert len(store.state.rounds) == 2


def test_without_auto_the_proposals_file_is_the_sequential_one(store, tmp_path):
    def planned(path, parallel):
        return go(store, RetractEach(planned=True), Judge(seconds=0.05 * (parallel > 1)),
                  planned_rounds=6, proposals_of_every_round=True, output=path,
                  parallel=parallel)
    one = planned(tmp_path / "one.json", 1)
    four = planned(tmp_path / "four.json", 4)
    assert one.status is four.status is RunStatus.COMPLETE
    assert (tmp_path / "four.json").read_text() == (tmp_path / "one.json").read_text()
    assert json.loads((tmp_path / "one.json").read_text())["retract"] == [
        f"p{i:02}" for i in range(6)]
    assert all(b.truth is Truth.IN for b in store.state.beliefs.values())  # nothing applied


def test_a_stage_that_cannot_read_around_rounds_in_flight_runs_one_at_a_time(store):
    stage = SequentialOnly(per_round=2)
    assert not isinstance(stage, ReadsAroundInFlight)
    judge = Judge(seconds=0.05)
    result = go(store, stage, judge, exhaust=True, max_rounds=20, parallel=4)
    assert judge.most_in_flight == 1 and result.report.parallel == 1
    assert result.report.totals.applied == 12


def test_a_stop_discards_the_rounds_still_in_flight_without_applying_them():
    store = FakeStore()
    load(store, layered_network(width=4, layers=1))
    critic = KeyedCritic(rate_limit_on="d1-0")
    calls = CallPolicy(sleep=lambda s: None, rate_limit_tries=1)  # the first 429 is fatal
    result = run_stage(store, ReviewStage(ReviewSettings(budget=1)), unconstrained(critic),
                       RunOptions(model="keyed", exhaust=True, max_rounds=100, calls=calls,
                                  parallel=3))
    assert result.status is RunStatus.ERROR and result.report.stop_reason is StopReason.ERROR
    assert len(result.rounds) == 1 and "rate-limited 1 times" in (result.error or "")
    assert result.report.discarded is not None and result.report.discarded.rounds == 2
    assert result.report.to_json()["discarded"]["calls"] == 2
    assert all(not c.review_sha256 for c in store.read(lambda tx: tx.review_candidates()))
