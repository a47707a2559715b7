"""Premise review and repair take turns as review does (engine/stages/turns.py), on the real
Neo4j: with a model that passes over more items than a round's budget, every other due item
is shown and judged, the passed-over ones are shown at most k times and named unanswered,
and the run ends on k dry rounds instead of showing the same items to the end."""
from __future__ import annotations

import re
from typing import Any

import pytest
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from engine.repair.stage import RepairSettings, RepairStage
from engine.stages.calls import CallPolicy
from engine.stages.contract import unconstrained
from engine.stages.report import Outcome, StopReason
from engine.stages.run import RunOptions, run_stage
from engine.stages.turns import SHOWINGS
from tests.integration.test_parallel_rounds import load_sourced_facts, premise_run
from tests.parallel_fakes import KeyedCritic
from tests.repair_fakes import defeated_network, repair, reply

pytestmark = pytest.mark.neo4j

PASSED_PREMISES = frozenset({"fact-0", "fact-1", "fact-2"})  # the first three in its order
CASE = re.compile(r"^### (\S+) justification (\d+) ", re.MULTILINE)


class Abandoner(BaseChatModel):
    """A repairer that abandons every defeated justification it is shown, but passes over
    those of the beliefs in `skip`."""

    skip: frozenset[str] = frozenset()

    @property
    def _llm_type(self) -> str:
        return "abandoner"

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: Any = None, **kwargs: Any) -> ChatResult:
        shown = CASE.findall(str(messages[0].content))
        text = reply(*(repair(b, int(n), "abandon") for b, n in shown if b not in self.skip))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])


def test_premise_review_shows_the_rest_before_what_it_passed_over(store, tmp_path):
    load_sourced_facts(store, tmp_path)
    result = premise_run(store, tmp_path, KeyedCritic(premises=True, skip=PASSED_PREMISES), 1)
    judged = {a["id"] for r in result.rounds for a in r.applied}
    assert judged == {f"fact-{i}" for i in range(12)} - PASSED_PREMISES
    assert result.rounds[0].shown == ("fact-0", "fact-1")
    assert result.rounds[0].outcome is Outcome.DRY and result.rounds[0].calls == 1
    shown = [i for r in result.rounds for i in r.shown]
    assert {b: shown.count(b) for b in PASSED_PREMISES} == dict.fromkeys(PASSED_PREMISES,
                                                                         SHOWINGS)
    assert result.report.stop_reason is StopReason.DRY_ROUNDS
    assert result.report.unanswered == {"fact-0": 2, "fact-1": 2, "fact-2": 2}
    assert result.rounds[-3].details["passed_over"] == {"fact-0": 1, "fact-1": 1, "fact-2": 1}


def test_repair_shows_the_rest_before_what_it_passed_over(store):
    net = defeated_network(store)
    model = Abandoner(skip=frozenset({"solo", "mixed"}))
    result = run_stage(net, RepairStage(RepairSettings(budget=1)), unconstrained(model),
                       RunOptions(model="abandoner", exhaust=True, max_rounds=30,
                                  calls=CallPolicy(sleep=lambda s: None)))
    # most dependents first: solo and mixed (each has one), passed over, then the others
    assert [r.shown for r in result.rounds] == [
        ("mixed#1",), ("solo#1",), ("cache#1",), ("gateway#1",), ("mixed#1",), ("solo#1",), ()]
    assert [r.outcome for r in result.rounds] == [
        Outcome.DRY, Outcome.DRY, Outcome.PROPOSED, Outcome.PROPOSED, Outcome.DRY, Outcome.DRY,
        Outcome.EMPTY]
    assert result.stopped == "2 consecutive dry round(s)"
    assert result.report.unanswered == {"mixed#1": 2, "solo#1": 2}
    assert all(r.calls == 1 for r in result.rounds[:-1])  # passing over is not retried
