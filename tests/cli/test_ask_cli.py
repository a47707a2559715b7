"""`python -m engine.ask` as a user runs it, in-process against the real store, with
scripted chat models (langchain-core fakes): the answer, the retry on a bad citation, OUT
beliefs, tool calls (native and JSON), insufficient, a model that times out, --stale."""
from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from engine import tms
from engine.cli.ask import main
from tests.ask_fakes import ToolCallingChat, answer, network, wiring
from tests.derive_fakes import Hang, ScriptedChatModel

pytestmark = pytest.mark.neo4j
QUESTION = "why is auth latency high?"


@pytest.fixture
def shop(store):
    network(store)
    return store


def run(store, chat, args, capsys, tmp_path, **options):
    code = main([*args, "--report-dir", str(tmp_path / "reports"), "--quiet"],
                **wiring(store, chat, **options))
    out = capsys.readouterr()
    return code, out.out, out.err


def cited_edges(driver, database):
    with driver.session(database=database) as s:
        return sorted(tuple(r) for r in s.run(
            "MATCH (:Run {stage: 'ask'})-[:HAS_ROUND]->(r:Round)-[c:CITED]->(b:Belief) "
            "RETURN b.id, c.role, c.truth, r.question"))


def test_a_good_answer_prints_its_citations_and_is_recorded(shop, capsys, tmp_path, driver,
                                                           neo4j_settings):
    chat = ScriptedChatModel(script=[answer(citations=[("slow", "supports"),
                                                       ("old-cache", "context")],
                                            gaps=["no load test"])])
    code, out, err = run(shop, chat, [QUESTION, "--model", "fake"], capsys, tmp_path)
    assert code == 0, err
    assert out.startswith("answered: Key fetches block validation.")
    assert "supports    slow [IN, depth 1]: Auth latency rises when keys are fetched." in out
    assert "context     old-cache [OUT, depth 0]" in out and "- no load test" in out
    prompt = chat.received[0][0].text
    assert "old-cache [OUT, depth 0]" in prompt and "the cache now expires" in prompt
    assert cited_edges(driver, neo4j_settings.database) == [
        ("old-cache", "context", "OUT", QUESTION), ("slow", "supports", "IN", QUESTION)]
    report = json.loads(next((tmp_path / "reports").glob("ask-*.json")).read_text())
    assert report["stage"] == "ask" and report["status"] == "complete"
    assert tms.status(shop).beliefs == 5  # no belief written


def test_json_output_has_run_id_and_shown(shop, capsys, tmp_path):
    chat = ScriptedChatModel(script=[answer()])
    code, out, _ = run(shop, chat, [QUESTION, "--model", "fake", "--json"], capsys, tmp_path)
    assert code == 0
    data = json.loads(out)
    assert data["status"] == "answered" and data["citations"] == [
        {"id": "slow", "role": "supports"}]
    assert data["run_id"] and "slow" in data["shown"] and "p1" in data["shown"]


def test_an_unknown_id_is_diagnosed_and_the_corrected_answer_used(shop, capsys, tmp_path):
    chat = ScriptedChatModel(script=[answer(citations=[("made-up", "supports")]),
                                     answer(citations=[("p2", "supports")])])
    code, out, err = run(shop, chat, [QUESTION, "--model", "fake"], capsys, tmp_path)
    assert code == 0, err
    retry = chat.received[1][-1].text
    assert "cites made-up, which was neither shown nor fetched" in retry
    assert "supports    p2 [IN" in out and "made-up" not in out


def test_an_out_belief_cited_as_supports_is_dropped_and_listed(shop, capsys, tmp_path):
    bad = answer(citations=[("old-cache", "supports"), ("slow", "supports")])
    chat = ScriptedChatModel(script=[bad, bad])
    code, out, err = run(shop, chat, [QUESTION, "--model", "fake"], capsys, tmp_path)
    assert code == 0, err
    assert "an OUT belief may only be cited as contradicts or context" in chat.received[1][-1].text
    assert "supports    slow" in out and "supports    old-cache" not in out
    assert "left out (still wrong after one retry):" in out
    assert "- old-cache: cites old-cache as supports, but it is OUT" in out


def test_native_tool_calls_make_fetched_beliefs_citable(shop, capsys, tmp_path):
    call = AIMessage(content="", tool_calls=[{"name": "show", "args": {"id": "hidden"},
                                              "id": "call-1"}])
    chat = ToolCallingChat(script=[call, answer(text="Deploys are on Tuesdays.",
                                                citations=[("hidden", "context")])])
    code, out, err = run(shop, chat, [QUESTION, "--model", "fake"], capsys, tmp_path,
                         native_tools=True)
    assert code == 0, err
    assert {t["function"]["name"] for t in chat.bound_tools} == {
        "search", "show", "explain", "trace", "what_if"}
    tool_reply = chat.received[1][-1]
    assert isinstance(tool_reply, ToolMessage) and "Deploys happen on Tuesdays" in tool_reply.text
    assert "context     hidden [IN, depth 0]" in out


def test_json_tool_requests_for_a_model_without_tool_calling(shop, capsys, tmp_path):
    chat = ScriptedChatModel(script=[
        json.dumps({"tool": "search", "tool_input": "deploys tuesdays", "status": "answered",
                    "answer": "", "citations": [], "gaps": []}),
        answer(citations=[("hidden", "context")], tool="none")])
    code, out, err = run(shop, chat, [QUESTION, "--model", "fake"], capsys, tmp_path)
    assert code == 0, err
    assert "Result of search:" in chat.received[1][-1].text
    assert "context     hidden" in out


def test_a_tool_not_shown_before_is_still_unshown_when_never_fetched(shop, capsys, tmp_path):
    chat = ScriptedChatModel(script=[answer(citations=[("hidden", "context")]),
                                     answer(citations=[("hidden", "context")])])
    code, out, _ = run(shop, chat, [QUESTION, "--model", "fake", "--max-tool-rounds", "0"],
                       capsys, tmp_path)
    assert code == 0
    assert "- hidden: cites hidden, which was neither shown nor fetched" in out
    assert "status is \"answered\" but no belief it was shown is cited" in out


def test_insufficient_is_an_answer(shop, capsys, tmp_path):
    chat = ScriptedChatModel(script=[answer("insufficient", "The network does not say.",
                                            citations=[], gaps=["the deploy schedule"])])
    code, out, err = run(shop, chat, ["when do we deploy to europe?", "--model", "fake"],
                         capsys, tmp_path)
    assert code == 0, err
    assert out.startswith("insufficient: The network does not say.")
    assert "- the deploy schedule" in out and "left out" not in out


def test_a_model_that_times_out_is_one_error_line_and_nothing_printed(shop, capsys, tmp_path):
    chat = ScriptedChatModel(script=[Hang(3), Hang(3), Hang(3)])
    code, out, err = run(shop, chat, [QUESTION, "--model", "fake", "--timeout", "0.2"],
                         capsys, tmp_path)
    assert code == 2
    assert out == ""
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: the model failed 3 times")
    assert "no reply within 0.2 s" in lines[0]


def test_an_unreadable_reply_after_the_retry_is_an_error(shop, capsys, tmp_path):
    chat = ScriptedChatModel(script=["I think it is the keys.", "Still prose."])
    code, out, err = run(shop, chat, [QUESTION, "--model", "fake"], capsys, tmp_path)
    assert code == 2 and out == ""
    assert err.startswith("Error: the model gave no usable answer after one retry")


def test_an_answer_copying_the_format_twice_is_refused_not_printed(shop, capsys, tmp_path):
    echo = answer(text="the answer in a few sentences")
    chat = ScriptedChatModel(script=[echo, echo])
    code, out, err = run(shop, chat, [QUESTION, "--model", "fake"], capsys, tmp_path)
    assert code == 2 and out == ""
    assert err.startswith("Error: the model gave no usable answer after one retry")
    assert "echoes the prompt's example" in chat.received[1][-1].text  # the retry said why


def test_an_echo_then_a_real_answer_uses_the_real_one(shop, capsys, tmp_path):
    chat = ScriptedChatModel(script=[answer(text="the answer in a few sentences"), answer()])
    code, out, err = run(shop, chat, [QUESTION, "--model", "fake"], capsys, tmp_path)
    assert code == 0, err
    assert out.startswith("answered: Key fetches block validation.")


def test_context_only_calls_no_model(shop, capsys, tmp_path):
    chat = ScriptedChatModel(script=[])
    code, out, _ = run(shop, chat, [QUESTION, "--context-only", "--budget", "400"], capsys,
                       tmp_path)
    assert code == 0 and chat.received == []
    assert out.startswith("# Question: why is auth latency high?")
    assert "old-cache [OUT, depth 0]" in out
    assert not (tmp_path / "reports").exists()


def test_context_only_says_why_a_superseded_or_challenged_belief_is_out(shop, capsys,
                                                                      tmp_path):
    from engine.memory import dialectic, supersede

    supersede.supersede(shop, "p2", text="Auth signing keys are fetched on a timer.")
    dialectic.challenge(shop, "p1", "the auth service skips validation for health checks")
    code, out, _ = run(shop, ScriptedChatModel(script=[]),
                       [QUESTION, "--context-only", "--budget", "1500"], capsys, tmp_path)
    assert code == 0
    assert "(OUT because: OUT)" not in out
    assert "p2 [OUT, depth 0]: Auth signing keys are fetched synchronously. (OUT because: " \
        "superseded by p2-v2)" in out
    assert "p1 [OUT, depth 0]: The auth service validates a JWT on every request. (OUT " \
        "because: challenged by challenge:p1: the auth service skips validation" in out


def test_stale_lists_answers_whose_citations_changed(shop, capsys, tmp_path):
    chat = ScriptedChatModel(script=[answer()])
    assert run(shop, chat, [QUESTION, "--model", "fake"], capsys, tmp_path)[0] == 0
    code, out, _ = run(shop, chat, ["--stale"], capsys, tmp_path)
    assert code == 0 and "no earlier answer" in out
    tms.retract(shop, "p2", "keys are pushed now")
    code, out, _ = run(shop, chat, ["--stale", "--json"], capsys, tmp_path)
    stale = json.loads(out)["stale"]
    assert [(s["id"], s["truth_then"], s["truth_now"]) for s in stale] == [("slow", "IN", "OUT")]


@pytest.mark.parametrize("args, message", [
    ([], "give a question"),
    ([QUESTION], "--model is required"),
    (["--stale", QUESTION], "--stale takes no question"),
    ([QUESTION, "--model", "x", "--budget", "0"], "must be at least 1"),
])
def test_usage_errors_exit_2(shop, capsys, tmp_path, args, message):
    with pytest.raises(SystemExit) as e:
        main(args, **wiring(shop, ScriptedChatModel(script=[])))
    assert e.value.code == 2 and message in capsys.readouterr().err


def test_visible_to_shows_and_lets_cite_only_what_such_a_client_sees(shop, capsys, tmp_path):
    from engine.memory import editing

    editing.set_metadata(shop, "p2", "access_tags", ["sec"])  # and so `slow`, resting on it
    chat = ScriptedChatModel(script=[])
    code, out, _ = run(shop, chat, [QUESTION, "--context-only", "--visible-to", ""], capsys,
                       tmp_path)
    assert code == 0 and "p1 [IN" in out
    assert "p2" not in out and "slow" not in out and "signing keys" not in out
    chat = ScriptedChatModel(script=[answer(citations=[("p1", "supports")])])
    code, out, _ = run(shop, chat, [QUESTION, "--model", "fake", "--visible-to", ""], capsys,
                       tmp_path)
    prompt = "\n".join(str(m.content) for m in chat.received[0])
    assert code == 0 and out.startswith("answered:")  # its run and citation are recorded
    assert "signing keys" not in prompt and "Auth latency rises" not in prompt
    with pytest.raises(SystemExit) as usage:
        run(shop, chat, ["--stale", "--visible-to", ""], capsys, tmp_path)
    assert usage.value.code == 2 and "--visible-to cannot filter" in capsys.readouterr().err
