"""Rate limits: a 429 known by its status code or its class name (no provider imported),
waited on with jittered exponential backoff on a budget of its own, and counted."""
from __future__ import annotations

import pytest
from langchain_core.messages import HumanMessage

from engine.stages.calls import CallPolicy, ModelCallFailed, call_model
from engine.stages.rate_limits import backoff_seconds, is_rate_limited, retry_after
from tests.derive_fakes import ScriptedChatModel
from tests.parallel_fakes import FakeRateLimitError, RateLimitError

MESSAGES = [HumanMessage("prompt")]


class Response:
    def __init__(self, status_code: int, headers: dict[str, str] | None = None):
        self.status_code = status_code
        self.headers = headers or {}


class HTTPStatusError(Exception):
    """As httpx raises it: the status on `.response`."""

    def __init__(self, message: str, response: Response):
        super().__init__(message)
        self.response = response


class ServerError(Exception):
    status_code = 503


def wrapped(inner: BaseException) -> BaseException:
    try:
        raise inner
    except BaseException as e:
        try:
            raise ValueError("provider call failed") from e
        except ValueError as outer:
            return outer


@pytest.mark.parametrize("exc, limited", [
    (FakeRateLimitError("429"), True),
    (RateLimitError("slow down"), True),
    (HTTPStatusError("too many", Response(429)), True),
    (wrapped(FakeRateLimitError("429")), True),
    (ServerError("unavailable"), False),
    (HTTPStatusError("bad request", Response(400)), False),
    (ConnectionError("reset"), False),
    (ValueError("nope"), False),
])
def test_rate_limits_are_known_by_status_or_class_name(exc, limited):
    assert is_rate_limited(exc) is limited


def test_backoff_doubles_with_jitter_honours_retry_after_and_is_capped():
    waits = [backoff_seconds(a, base=2.0, cap=100.0, jitter=lambda: 0.0) for a in (1, 2, 3)]
    assert waits == [1.0, 2.0, 4.0]  # half the doubled delay at the lowest draw
    assert backoff_seconds(3, base=2.0, cap=100.0, jitter=lambda: 1.0) == 8.0
    assert backoff_seconds(10, base=2.0, cap=30.0, jitter=lambda: 1.0) == 30.0
    asked = HTTPStatusError("429", Response(429, {"retry-after": "7"}))
    assert retry_after(asked) == 7.0
    assert backoff_seconds(1, base=2.0, cap=100.0, jitter=lambda: 0.0, exc=asked) == 7.0


def test_a_429_is_waited_on_and_tried_again_without_using_the_transient_tries():
    chat = ScriptedChatModel(script=[FakeRateLimitError("Error code: 429"),
                                     RateLimitError("again"), ConnectionError("reset"), "ok"])
    waits: list[float] = []
    policy = CallPolicy(sleep=waits.append, tries=2, backoff=1.0, rate_limit_backoff=4.0,
                        jitter=lambda: 0.5)
    r = call_model(chat, MESSAGES, policy)
    assert r.text == "ok" and r.tries == 4 and r.rate_limited == 2
    assert waits == [3.0, 6.0, 1.0]  # 429s: 4*0.75, 8*0.75; then the transient backoff
    assert r.errors[0] == "FakeRateLimitError: Error code: 429"


def test_rate_limits_past_their_budget_fail_the_call_with_the_count():
    chat = ScriptedChatModel(script=[FakeRateLimitError("429")] * 3 + ["never"])
    policy = CallPolicy(sleep=lambda s: None, rate_limit_tries=3)
    with pytest.raises(ModelCallFailed) as caught:
        call_model(chat, MESSAGES, policy)
    assert caught.value.rate_limited == 3 and caught.value.tries == 3
    assert "rate-limited 3 times" in str(caught.value)
    assert len(chat.received) == 3
