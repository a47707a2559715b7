"""Fakes for parallel rounds: a review critic (a langchain-core chat model) that answers from
the prompt it is shown, whatever order the calls come in, optionally slowly or after a fake
429, and that may pass over a fixed set of beliefs as a real model skips what it will not
judge; a 429 error as a provider raises it; a layered review network."""
from __future__ import annotations

import json
import os
import re
import threading
import time
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from engine.model import Belief
from tests.derive_fakes import derived, premise
from tests.review_fakes import reply, verdict

BELIEF = re.compile(r"^### (\S+) \(depth", re.MULTILINE)
PREMISE = re.compile(r"^### (\S+)\nClaim: (.*)$", re.MULTILINE)
JUSTIFICATION = re.compile(r"^Justification (\d+) ", re.MULTILINE)
KEYED_ENV = "PARALLEL_TEST_CRITIC"


class FakeRateLimitError(Exception):
    """What a provider SDK raises for HTTP 429 (openai/anthropic carry `status_code`)."""

    status_code = 429


class RateLimitError(Exception):
    """A provider's rate-limit class, known by its name only (no status attribute)."""


def verdicts_for(prompt: str, invalid: frozenset[str], skip: frozenset[str] = frozenset()
                 ) -> str:
    """One verdict per justification the review prompt shows: invalid for beliefs in
    `invalid`, valid for the others, none for those in `skip` (passed over)."""
    out = []
    blocks = BELIEF.split(prompt)[1:]  # id, body, id, body...
    for bid, body in zip(blocks[::2], blocks[1::2]):
        if bid in skip:
            continue
        for n in JUSTIFICATION.findall(body):
            out.append(verdict(bid, int(n), bid not in invalid))
    return reply(*out)


def premise_verdicts_for(prompt: str, invalid: frozenset[str],
                         skip: frozenset[str] = frozenset()) -> str:
    """One verdict per premise a premise review prompt shows, quoting its claim (the tests'
    sources state each claim word for word): misread for premises in `invalid`, none for
    those in `skip`."""
    return json.dumps({"verdicts": [
        {"id": pid, "verdict": "misread" if pid in invalid else "confirmed",
         "kind": "misread" if pid in invalid else "", "quote": claim, "narrower": "",
         "comment": "keyed"} for pid, claim in PREMISE.findall(prompt) if pid not in skip]})


class KeyedCritic(BaseChatModel):
    """Judges what each prompt shows (see verdicts_for). `seconds`: how long each call
    takes; `rate_limit_on`: the first call showing this belief raises a 429 instead (of
    `rate_limit_kind`: a status code, or a class name). Counts the calls and the most that
    were in flight at once."""

    invalid: frozenset[str] = frozenset()
    skip: frozenset[str] = frozenset()  # passed over: shown, never answered
    seconds: float = 0.0
    rate_limit_on: str = ""
    rate_limit_kind: str = "status"  # "status" | "class"
    premises: bool = False  # answer premise review prompts instead

    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _calls: int = PrivateAttr(default=0)
    _throttled: bool = PrivateAttr(default=False)
    _in_flight: int = PrivateAttr(default=0)
    _most: int = PrivateAttr(default=0)

    @property
    def _llm_type(self) -> str:
        return "keyed-critic"

    @property
    def calls(self) -> int:
        return self._calls

    @property
    def most_in_flight(self) -> int:
        return self._most

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        prompt = str(messages[0].content)
        with self._lock:
            self._calls += 1
            throttle = (not self._throttled and bool(self.rate_limit_on)
                        and self.rate_limit_on in BELIEF.findall(prompt))
            self._throttled = self._throttled or throttle
            self._in_flight += 1
            self._most = max(self._most, self._in_flight)
        try:
            if self.seconds:
                time.sleep(self.seconds)
            if throttle and self.rate_limit_kind == "class":
                raise RateLimitError("too many requests")
            if throttle:
                raise FakeRateLimitError("Error code: 429 - rate limit reached")
            text = (premise_verdicts_for if self.premises else verdicts_for)(
                prompt, self.invalid, self.skip)
        finally:
            with self._lock:
                self._in_flight -= 1
        message = AIMessage(content=text, usage_metadata={
            "input_tokens": 100, "output_tokens": 20, "total_tokens": 120})
        return ChatResult(generations=[ChatGeneration(message=message)])


def keyed_critic_from_env() -> KeyedCritic:
    """A `py:` plug-in for CLI tests: $PARALLEL_TEST_CRITIC is a JSON object of the fields."""
    fields = json.loads(os.environ.get(KEYED_ENV, "{}"))
    return KeyedCritic(invalid=frozenset(fields.pop("invalid", ())),
                       skip=frozenset(fields.pop("skip", ())), **fields)


def layered_network(width: int, layers: int = 2) -> list[Belief]:
    """`width` premises, then `layers` of `width` derived beliefs each resting on two of the
    layer below: review takes a layer only once the one below is reviewed."""
    beliefs = [premise(f"p{i}", f"Premise number {i} holds.") for i in range(width)]
    below = [f"p{i}" for i in range(width)]
    for layer in range(1, layers + 1):
        ids = [f"d{layer}-{i}" for i in range(width)]
        beliefs += [derived(ids[i], (below[i], below[(i + 1) % width]),
                            text=f"Derived claim {i} of layer {layer}.")
                    for i in range(width)]
        below = ids
    return beliefs


def skipping_network() -> list[Belief]:
    """40 premises; layer 1, d1-00..d1-39, each resting on two premises; layer 2: d2-00..d2-07
    each on two of d1-24..d1-39, and d2-10..d2-13 each on one of d1-20..d1-23 and one of
    d1-24..d1-27 (a model that passes over d1-00..d1-23 holds those four back)."""
    beliefs = [premise(f"p{i:02}", f"Premise number {i} holds.") for i in range(40)]
    beliefs += [derived(f"d1-{i:02}", (f"p{i:02}", f"p{(i + 1) % 40:02}"),
                        text=f"Derived claim {i} of layer 1.") for i in range(40)]
    beliefs += [derived(f"d2-0{i}", (f"d1-{24 + 2 * i}", f"d1-{25 + 2 * i}"),
                        text=f"Derived claim {i} of layer 2.") for i in range(8)]
    beliefs += [derived(f"d2-1{j}", (f"d1-2{j}", f"d1-{24 + j}"),
                        text=f"Derived claim 1{j} of layer 2.") for j in range(4)]
    return beliefs
