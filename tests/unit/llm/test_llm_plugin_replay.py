"""`py:` and `replay:` end to end: build, adapt per round, call through the derive engine."""
from __future__ import annotations

import json

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage

from adapters.llm import build_chat_model, model_for_round
from adapters.llm.errors import is_transient
from engine.stages.calls import CallPolicy, ModelCallFailed, call_model
from engine.stages.contract import RoundContract
from engine.derive.parser import parse_reply
from engine.errors import ModelError

REPLY = """### DERIVE cache-serves-stale-reads
Reads may see data up to a minute old.
- Antecedents: cache-ttl-60s, reads-from-cache
- Mode: ALL
- Label: TTL bounds staleness"""
CONTRACT = RoundContract.markdown(("cache-ttl-60s", "reads-from-cache"))
PROMPT = [HumanMessage("propose")]


def make_fake_chat():
    return GenericFakeChatModel(messages=iter([AIMessage(content=REPLY, usage_metadata={
        "input_tokens": 5, "output_tokens": 3, "total_tokens": 8})]))


def make_nothing():
    return "not a chat model"


def make_failing():
    raise RuntimeError("no credentials in the vault")


not_callable = 3


def test_py_builds_the_factorys_model_and_derive_reads_its_reply():
    spec = f"py:{__name__}:make_fake_chat"
    chat = build_chat_model(spec)
    runnable = model_for_round(spec, chat, structured=False)(CONTRACT)
    call = call_model(runnable, PROMPT, CallPolicy(is_transient=is_transient))
    assert (call.text, call.tokens_in, call.tokens_out) == (REPLY, 5, 3)
    assert [p.id for p in parse_reply(call.text).proposals] == ["cache-serves-stale-reads"]


def test_py_from_a_module_on_sys_path(tmp_path, monkeypatch):
    (tmp_path / "my_models.py").write_text(
        "from langchain_core.language_models.fake_chat_models import FakeListChatModel\n"
        "def chat():\n    return FakeListChatModel(responses=['NO PROPOSALS'])\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    chat = build_chat_model("py:my_models:chat")
    assert model_for_round("py:my_models:chat", chat, structured=False)(CONTRACT).invoke(PROMPT).content == "NO PROPOSALS"


@pytest.mark.parametrize(
    ("target", "says"),
    [
        ("no_such_module_anywhere:chat", "cannot import"),
        (f"{__name__}:absent", "no callable"),
        (f"{__name__}:not_callable", "no callable"),
        (f"{__name__}:make_nothing", "not a langchain-core BaseChatModel"),
        (f"{__name__}:make_failing", "no credentials in the vault"),
        ("just_a_module", "py:<module>:<callable>"),
    ],
)
def test_py_problems_are_one_line_of_bad_input(target, says):
    with pytest.raises(ModelError) as caught:
        build_chat_model(f"py:{target}")
    assert caught.value.exit_code == 2 and says in str(caught.value)


def test_py_structured_on_a_model_without_it_fails_before_any_round():
    spec = f"py:{__name__}:make_fake_chat"
    with pytest.raises(ModelError) as caught:
        model_for_round(spec, build_chat_model(spec), structured=True)
    assert caught.value.exit_code == 2 and "--structured" in str(caught.value)


def write_report(path, rounds):
    path.write_text(json.dumps({"run": {"model": "ollama:qwen3:8b"}, "rounds": rounds}))
    return path


def test_replay_answers_every_recorded_call_in_order_then_runs_out(tmp_path):
    report = write_report(tmp_path / "derive.json", [
        {"round": 1, "responses": ["garbled", REPLY], "response": REPLY, "tokens": {"input": 9, "output": 4}},
        {"round": 2, "response": "NO PROPOSALS"},  # no "responses": the last reply alone
    ])
    spec = f"replay:{report}"
    chat = build_chat_model(spec)
    for_round = model_for_round(spec, chat, structured=True)  # replays what was recorded as it is
    replies = [for_round(CONTRACT).invoke(PROMPT) for _ in range(3)]
    assert [r.content for r in replies] == ["garbled", REPLY, "NO PROPOSALS"]
    assert replies[0].usage_metadata == {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}
    with pytest.raises(ModelError, match="replay ran out of recorded responses after 3 calls"):
        for_round(CONTRACT).invoke(PROMPT)


def test_running_out_of_replies_is_not_retried(tmp_path):
    spec = f"replay:{write_report(tmp_path / 'r.json', [{'round': 1, 'responses': [REPLY]}])}"
    runnable = model_for_round(spec, build_chat_model(spec), structured=False)(CONTRACT)
    policy = CallPolicy(is_transient=is_transient, sleep=lambda s: None)
    assert call_model(runnable, PROMPT, policy).text == REPLY
    with pytest.raises(ModelCallFailed) as caught:
        call_model(runnable, PROMPT, policy)
    assert caught.value.tries == 1


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (None, "cannot read derive report"),
        ("{not json", "is not JSON"),
        ('{"runs": []}', 'no "rounds" list'),
        ('{"rounds": [{"round": 1}]}', 'round 1 has no recorded "responses"'),
        ('{"rounds": []}', "records no model responses"),
    ],
)
def test_replay_of_a_bad_report_is_bad_input(tmp_path, content, says):
    path = tmp_path / "report.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ModelError) as caught:
        build_chat_model(f"replay:{path}")
    assert caught.value.exit_code == 2 and says in str(caught.value)
