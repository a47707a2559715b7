"""Model calls: timeout, retries with exponential backoff on transient errors only, tokens."""
from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from engine.stages.calls import CallPolicy, ModelCallFailed, call_model, default_is_transient
from engine.errors import ModelError
from tests.derive_fakes import Hang, ScriptedChatModel

MESSAGES = [HumanMessage("prompt")]


def policy(**kw):
    sleeps = []
    kw.setdefault("sleep", sleeps.append)
    return CallPolicy(**kw), sleeps


def test_success_counts_tokens():
    chat = ScriptedChatModel(script=["reply"], tokens=(321, 45))
    p, sleeps = policy()
    r = call_model(chat, MESSAGES, p)
    assert (r.text, r.tokens_in, r.tokens_out, r.tries, r.errors) == ("reply", 321, 45, 1, ())
    assert r.seconds >= 0 and sleeps == []
    assert chat.received[0][0].content == "prompt"


def test_transient_errors_are_retried_with_exponential_backoff():
    chat = ScriptedChatModel(script=[ConnectionError("reset"), TimeoutError("slow"), "ok"])
    p, sleeps = policy(backoff=1.5)
    r = call_model(chat, MESSAGES, p)
    assert r.text == "ok" and r.tries == 3
    assert sleeps == [1.5, 3.0]
    assert r.errors == ("ConnectionError: reset", "TimeoutError: slow")


def test_three_transient_failures_give_up():
    chat = ScriptedChatModel(script=[ConnectionError("a"), ConnectionError("b"),
                                     ConnectionError("c"), "never"])
    p, sleeps = policy()
    with pytest.raises(ModelCallFailed) as caught:
        call_model(chat, MESSAGES, p)
    e = caught.value
    assert isinstance(e, ModelError) and e.exit_code == 1
    assert e.tries == 3 and len(e.errors) == 3 and sleeps == [2.0, 4.0]
    assert "failed 3 times" in str(e) and "ConnectionError: c" in str(e)
    assert len(chat.received) == 3


def test_a_non_transient_error_fails_at_once():
    chat = ScriptedChatModel(script=[ValueError("bad request"), "never"])
    p, sleeps = policy()
    with pytest.raises(ModelCallFailed, match="the model failed: ValueError: bad request"):
        call_model(chat, MESSAGES, p)
    assert sleeps == [] and len(chat.received) == 1


def test_model_errors_are_not_transient():
    assert not default_is_transient(ModelError("replay ran out"))
    assert default_is_transient(TimeoutError())


def test_the_injected_classifier_decides():
    chat = ScriptedChatModel(script=[ValueError("429 too many requests"), "ok"])
    p, _ = policy(is_transient=lambda e: "429" in str(e))
    assert call_model(chat, MESSAGES, p).tries == 2


def test_a_call_past_its_timeout_is_abandoned_and_retried():
    chat = ScriptedChatModel(script=[Hang(5.0), "quick"])
    p, sleeps = policy(timeout=0.2)
    r = call_model(chat, MESSAGES, p)
    assert r.text == "quick" and r.tries == 2
    assert "CallTimeout: no reply within 0.2 s" in r.errors[0]


def test_content_blocks_and_missing_usage():
    chat = ScriptedChatModel(script=[AIMessage(content=[{"type": "text", "text": "part one "},
                                                         {"type": "text", "text": "two"}])])
    r = call_model(chat, MESSAGES, policy()[0])
    assert r.text == "part one two" and (r.tokens_in, r.tokens_out) == (0, 0)
