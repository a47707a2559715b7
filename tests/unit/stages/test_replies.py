"""The reply toolkit every stage reads its replies with: each shape a model writes gives the
same items at the right lines, numbers and ids however spelled, the retry message, and the
combine after the retry (the second reply wins, the first fills its gaps)."""
from __future__ import annotations

import json

import pytest

from engine.stages.replies import (Diagnostic, ReplyShape, bare_id, combine_by_key, find_items,
                                   line_of, number, retry_message)
from engine.stages.stage import Parsed

SHAPE = ReplyShape("answers", ("n", "verdict"))
TWO = [{"n": 1, "verdict": "YES"}, {"n": 2, "verdict": "NO"}]


def values(reply: str) -> list[object] | None:
    found = find_items(reply, SHAPE).items
    return None if found is None else [f.value for f in found]


@pytest.mark.parametrize("reply", [
    json.dumps({"answers": TWO}),  # the schema's object
    json.dumps(TWO),  # a bare list
    "```json\n" + json.dumps({"answers": TWO}, indent=2) + "\n```",  # a fence
    "```\n" + json.dumps(TWO) + "\n```\n",  # a fence without a language
    "My answer [see below]:\n" + json.dumps(TWO, indent=1) + "\nThat is all {really}.",
    "\n".join(json.dumps(a) for a in TWO),  # JSON lines
    "Answers, one a line:\n" + "\n".join(json.dumps(a) for a in TWO) + "\nDone.",
    json.dumps(TWO, indent=2)[:-1].rstrip() + ",\n]",  # a trailing comma
    json.dumps({"results": TWO}),  # another key holding the one list of objects
])
def test_every_shape_gives_the_same_items(reply):
    assert values(reply) == TWO


def test_a_lone_item_object_is_one_item_and_an_empty_list_is_an_answer():
    assert values(json.dumps(TWO[0])) == [TWO[0]]
    assert values('{"answers": []}') == []


@pytest.mark.parametrize("reply", ["", "No JSON here.", '{"answers": [', "[1, 2, 3] oops {"])
def test_no_answer_at_all_is_none(reply):
    assert find_items(reply, SHAPE).items is None


def test_a_list_key_holding_no_list_is_a_problem():
    found = find_items('{"answers": "all yes"}', SHAPE)
    assert found.items is None and found.problems == ['"answers" is not a list']


def test_offsets_point_at_each_item():
    reply = "Intro.\n" + "\n".join(json.dumps(a) for a in TWO)
    assert [line_of(reply, f.offset) for f in find_items(reply, SHAPE).items or []] == [2, 3]


@pytest.mark.parametrize("raw, expected", [
    (2, 2), (2.0, 2), ("2", 2), ("#2", 2), (" justification 2 ", 2), ("pair 12", 12),
    (True, None), (2.5, None), ("first", None), (None, None),
])
def test_numbers_however_written(raw, expected):
    assert number(raw) == expected


def test_ids_without_their_decoration():
    assert [bare_id(v) for v in ("`a-b`", "**a-b**", " 'a-b' ", None)] == ["a-b"] * 3 + [""]


def test_the_retry_message_lists_what_was_wrong_then_the_format():
    text = retry_message([Diagnostic("no verdict", 3), Diagnostic("empty")] * 11,
                         opening="Could not read it.", request="Again, in this format:",
                         answer_format="FORMAT\n", extra=["", "Still missing: x"])
    lines = text.splitlines()
    assert lines[:4] == ["Could not read it.", "What was wrong:", "- line 3: no verdict",
                         "- empty"]
    assert "- ... and 2 more" in lines and "Still missing: x" in lines
    assert lines[-3:] == ["Again, in this format:", "", "FORMAT"]


def test_the_second_reply_wins_and_the_first_fills_the_gaps():
    first = Parsed(items=[("a", 1), ("b", 1)], diagnostics=[Diagnostic("c: no answer")],
                   needs_retry=True)
    second = Parsed(items=[("b", 2)], diagnostics=[Diagnostic("a: no answer")],
                    needs_retry=True)
    combined = combine_by_key(first, second, lambda item: item[0])
    assert combined.items == [("a", 1), ("b", 2)] and not combined.needs_retry
    assert [d.reason for d in combined.diagnostics] == ["first reply: c: no answer",
                                                        "retry: a: no answer"]
    assert combine_by_key(Parsed(), Parsed(), lambda item: item).needs_retry
