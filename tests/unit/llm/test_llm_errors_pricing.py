"""Which provider failures are worth a retry, and what a call costs."""
from __future__ import annotations

import urllib.error

import anthropic
import httpx
import ollama
import openai
import pytest

from adapters.llm.errors import is_transient
from adapters.llm.pricing import cost_usd, price_per_million
from engine.stages.calls import CallTimeout
from engine.errors import ModelError

REQUEST = httpx.Request("POST", "https://api.example/v1/chat")


def response(status: int) -> httpx.Response:
    return httpx.Response(status, request=REQUEST, json={"error": {"message": "x"}})


def chained(cause: BaseException) -> BaseException:
    try:
        try:
            raise cause
        except BaseException as e:
            raise RuntimeError("the call failed") from e
    except RuntimeError as outer:
        return outer


@pytest.mark.parametrize(
    "exc",
    [
        TimeoutError("read timed out"),
        CallTimeout("no reply within 600 s"),
        ConnectionRefusedError(111, "refused"),
        httpx.ConnectTimeout("slow", request=REQUEST),
        httpx.RemoteProtocolError("server hung up", request=REQUEST),
        httpx.HTTPStatusError("busy", request=REQUEST, response=response(503)),
        openai.APITimeoutError(request=REQUEST),
        openai.APIConnectionError(request=REQUEST),
        openai.RateLimitError("slow down", response=response(429), body=None),
        openai.InternalServerError("oops", response=response(500), body=None),
        anthropic.InternalServerError("overloaded", response=response(529), body=None),
        anthropic.APIConnectionError(request=REQUEST),
        ollama.ResponseError("model is loading", 503),
        urllib.error.HTTPError("https://x", 502, "bad gateway", None, None),
        chained(httpx.ReadTimeout("slow", request=REQUEST)),
    ],
    ids=lambda e: type(e).__name__,
)
def test_transient(exc):
    assert is_transient(exc)


@pytest.mark.parametrize(
    "exc",
    [
        ValueError("bad"),
        openai.AuthenticationError("bad key", response=response(401), body=None),
        openai.BadRequestError("bad schema", response=response(400), body=None),
        openai.NotFoundError("no such model", response=response(404), body=None),
        anthropic.BadRequestError("too long", response=response(400), body=None),
        anthropic.PermissionDeniedError("no", response=response(403), body=None),
        ollama.ResponseError("model 'x' not found", 404),
        httpx.HTTPStatusError("nope", request=REQUEST, response=response(422)),
        ModelError("replay ran out of recorded responses after 3 calls"),
        chained(openai.AuthenticationError("bad key", response=response(401), body=None)),
    ],
    ids=lambda e: type(e).__name__,
)
def test_not_transient(exc):
    assert not is_transient(exc)


def test_known_prices():
    assert price_per_million("anthropic:claude-sonnet-4-5") == (3.0, 15.0)
    assert cost_usd("anthropic:claude-sonnet-4-5", 1_000_000, 100_000) == pytest.approx(4.5)
    assert cost_usd("openai:gpt-4o-mini", 2_000, 1_000) == pytest.approx(0.0009)


def test_a_dated_snapshot_is_priced_as_its_model():
    assert price_per_million("anthropic:claude-sonnet-4-5-20250929") == (3.0, 15.0)
    assert price_per_million("openai:gpt-4o-2024-08-06") == (2.5, 10.0)


def test_in_process_and_replayed_models_are_free():
    assert cost_usd("local", 10_000, 5_000) == 0.0
    assert cost_usd("replay:reports/derive.json", 10, 5) == 0.0


@pytest.mark.parametrize("spec", ["ollama:qwen3:8b", "openai:my-vllm-model", "anthropic:claude-next", "py:m:f"])
def test_unknown_prices_are_none(spec):
    assert cost_usd(spec, 10, 5) is None
