"""ask's answer parser: what it reads, and each diagnosis a retry quotes."""
from __future__ import annotations

import json

from engine.ask.answer import combine, parse_answer
from engine.ask.loop import tool_args, tool_request
from engine.ask.prompt import reply_schema
from engine.ask.tools import AskSession

SESSION = AskSession(shown={"p1": "IN", "old": "OUT"}, fetched={"f": "IN"})


def reasons(parsed) -> list[str]:
    return [d.reason for d in parsed.diagnostics]


def test_a_good_answer_in_prose_and_a_fence_is_read():
    reply = "Here it is:\n```json\n" + json.dumps({
        "status": "answered", "answer": "Yes.", "gaps": [],
        "citations": [{"id": "p1", "role": "supports"}, {"id": "f", "role": "context"},
                      {"id": "p1", "role": "supports"}]}) + "\n```"
    parsed = parse_answer(reply, SESSION)
    assert not parsed.needs_retry and reasons(parsed) == []
    [answer] = parsed.items
    assert [(c.id, c.role) for c in answer.citations] == [("p1", "supports"), ("f", "context")]


def test_each_fault_is_diagnosed():
    reply = json.dumps({"status": "maybe", "answer": 3,
                        "citations": [{"id": "x", "role": "supports"},
                                      {"id": "old", "role": "supports"},
                                      {"id": "p1", "role": "agrees"}, "p1"]})
    parsed = parse_answer(reply, SESSION)
    found = " | ".join(reasons(parsed))
    assert parsed.needs_retry
    for part in ("missing field(s): gaps", 'status must be "answered" or "insufficient"',
                 "answer must be a string", "cites x, which was neither shown nor fetched",
                 "cites old as supports, but it is OUT", "role must be supports",
                 "citation 4 is not an object"):
        assert part in found, part
    assert [d["id"] for d in parsed.items[0].dropped] == ["x", "old", "p1", ""]


def test_no_json_needs_the_retry_and_combine_keeps_the_usable_answer():
    first = parse_answer("I cannot say.", SESSION)
    assert first.needs_retry and not first.items
    second = parse_answer(json.dumps({"status": "insufficient", "answer": "No idea.",
                                      "citations": [], "gaps": ["load tests"]}), SESSION)
    both = combine(first, second)
    assert not both.needs_retry and both.items[0].status == "insufficient"
    assert combine(second, first).items == second.items
    assert combine(first, first).needs_retry


def test_answered_without_citations_is_a_problem():
    parsed = parse_answer(json.dumps({"status": "answered", "answer": "Yes.",
                                      "citations": [], "gaps": []}), SESSION)
    assert parsed.needs_retry and parsed.items[0].problems


def test_tool_requests_and_their_arguments():
    assert tool_request(json.dumps({"tool": "none", "status": "answered"})) is None
    assert tool_request('{"tool": "show", "tool_input": "p1"}') == ("show", "p1")
    assert tool_args("what_if", "retract p1") == {"operation": "retract", "id": "p1"}
    assert tool_args("search", "cache reads") == {"words": "cache reads"}


def test_the_schema_lets_only_shown_ids_be_cited():
    reply = reply_schema(("b", "a"), tools=True)
    item = reply.schema["properties"]["citations"]["items"]["properties"]["id"]
    assert item["enum"] == ["a", "b"]
    assert reply.schema["properties"]["tool"]["enum"][0] == "none"
    assert "maxItems" not in reply.strict_schema["properties"]["citations"]


def test_an_answer_that_copies_the_format_is_an_echo_and_retried():
    reply = json.dumps({"status": "answered", "answer": "The answer in a few sentences.",
                        "citations": [{"id": "p1", "role": "supports"}],
                        "gaps": ["what the network would need to answer better", "a real gap"]})
    parsed = parse_answer(reply, SESSION)
    assert parsed.needs_retry
    found = " | ".join(reasons(parsed))
    assert "the answer echoes the prompt's example" in found
    assert "a gap echoes the prompt's example" in found
    [answer] = parsed.items
    assert answer.answer == "" and answer.gaps == ["a real gap"]
    assert any("echoes the prompt's example" in p for p in answer.problems)
