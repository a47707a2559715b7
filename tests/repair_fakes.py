"""Helpers for repair tests: a small network where review defeats three justifications and a
person challenges a fourth, repair objects and replies for scripted chat models
(tests.derive_fakes.ScriptedChatModel, langchain-core's fake chat model)."""
from __future__ import annotations

import json
import re
from typing import Any

from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from engine.memory import dialectic
from engine.model import Belief
from engine.repair.stage import RepairSettings, RepairStage
from engine.stages.provenance import RunRecord
from engine.stages.run import RunOptions, RunResult, run_stage
from tests.derive_fakes import RecordingModelForRound, ScriptedChatModel, derived, load, premise
from tests.forge_fakes import _valid_verdicts
from tests.review_fakes import reply as review_reply
from tests.review_fakes import review_round, verdict
from tests.review_fakes import stage as review_stage

RUN = RunRecord(id="repair-run-1", model="fake", started_at="2026-12-03T09:00:00+00:00",
                params={}, stage="repair")


def network() -> list[Belief]:
    """`solo` (p1, p2) lacks the cold-cache fact p5 holds; `mixed` (p1, p2) claims more than
    they give; `chain` rests on `mixed`; `cache` (p3) cannot be saved; `gateway` (p4) is
    challenged by a person; `top` rests on `solo`."""
    return [
        premise("p1", "The auth service validates a JWT on every request."),
        premise("p2", "JWT validation fetches signing keys synchronously."),
        premise("p3", "A load test showed p99 auth latency of 900 ms."),
        premise("p4", "The gateway waits for auth before routing."),
        premise("p5", "Signing key fetches block for 800 ms when the key cache is cold."),
        derived("solo", ("p1", "p2"), text="Key fetches block request validation."),
        derived("top", ("solo", "p3"), text="Blocking key fetches cause the p99 latency."),
        derived("mixed", ("p1", "p2"), text="Auth is the main latency bottleneck."),
        derived("chain", ("mixed", "p4"), text="Every routed request pays the auth latency."),
        derived("cache", ("p3",), text="The key cache is never warm."),
        derived("gateway", ("p4",), text="The gateway adds latency to every request."),
    ]


def defeated_network(store) -> Any:
    """The network, with review's verdicts (solo, mixed, cache invalid) applied and a
    challenge of gateway's justification."""
    load(store, network())
    verdicts = [
        verdict("solo", 1, False, missing_property="signing key fetches block when the key "
                                                   "cache is cold"),
        verdict("mixed", 1, False, reason_type="over-generalizes",
                missing_property="that auth is the largest share of latency"),
        verdict("cache", 1, False, reason_type="unsupported-conjunct",
                missing_property="evidence about the key cache"),
    ]
    review_round(store, review_stage(ids=("solo", "mixed", "cache")), review_reply(*verdicts))
    dialectic.challenge(store, "gateway", "Routing waits, but nothing shows it is slow.", 1)
    return store


def repair(bid: str, n: int, action: str, **fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"id": bid, "justification": n, "action": action, "bridges": [],
                           "text": "", "comment": f"{action} it"}
    out.update(fields)
    return out


def reply(*repairs: dict[str, Any]) -> str:
    return json.dumps({"repairs": list(repairs)})


def run_repair(store, *script: Any, auto: bool = True, **settings: Any
               ) -> tuple[RunResult, ScriptedChatModel]:
    chat = ScriptedChatModel(script=list(script))
    result = run_stage(store, RepairStage(RepairSettings(**settings)),
                       RecordingModelForRound(chat), RunOptions(model="fake", auto=auto))
    return result, chat


class ReviewAndRepairModel(FakeMessagesListChatModel):
    """For the pipeline: a review prompt gets a valid verdict on every justification shown; a
    repair prompt links `solo` with p5 and abandons everything else shown."""

    responses: list[BaseMessage] = []
    _prompts: list[str] = PrivateAttr(default_factory=list)

    @property
    def prompts(self) -> list[str]:
        return self._prompts

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: Any = None, **kwargs: Any) -> ChatResult:
        prompt = str(messages[0].content)
        self._prompts.append(prompt)
        if "## Beliefs to review" in prompt:
            text = json.dumps({"verdicts": _valid_verdicts(prompt)})
        else:
            shown = re.findall(r"^### (\S+) justification (\d+) ", prompt, re.MULTILINE)
            text = reply(*(repair(b, int(n), "link", bridges=["p5"]) if b == "solo"
                           else repair(b, int(n), "abandon") for b, n in shown))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])
