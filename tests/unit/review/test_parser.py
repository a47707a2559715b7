"""The review reply parser: every tolerance reads the same verdicts, every diagnosis names
its reason, and nothing is ever taken as valid by default."""
from __future__ import annotations

import json

import pytest

from engine.review.parser import combine, parse_reply
from tests.review_fakes import verdict

EXPECTED = {"mixed": {1: ("p1", "p2"), 2: ("p3",)}, "solo": {1: ("p1", "p2")}}
THREE = [verdict("mixed", 1, False), verdict("mixed", 2), verdict("solo", 1)]


def keys(parsed):
    return sorted((v.key, v.valid) for v in parsed.items)


GOOD = [("mixed#1", False), ("mixed#2", True), ("solo#1", True)]


@pytest.mark.parametrize("text", [
    json.dumps({"verdicts": THREE}),  # what structured output and the grammar give
    json.dumps(THREE),  # a bare array
    "```json\n" + json.dumps(THREE, indent=2) + "\n```",  # a code fence
    "```\n" + json.dumps({"verdicts": THREE}) + "\n```\n",  # a fence without a language
    "Here are my verdicts:\n\n" + json.dumps(THREE, indent=1) + "\n\nI hope this helps [1].",
    "\n".join(json.dumps(v) for v in THREE),  # JSON lines
    "Verdicts, one a line:\n" + "\n".join(json.dumps(v) for v in THREE) + "\nDone.",
    json.dumps(THREE, indent=2)[:-1].rstrip() + ",\n]",  # a trailing comma
    "Some [IN] prose with {braces} first.\n" + json.dumps({"verdicts": THREE}),
])
def test_each_tolerated_shape_reads_the_same_verdicts(text):
    parsed = parse_reply(text, EXPECTED)
    assert keys(parsed) == GOOD
    assert parsed.diagnostics == [] and not parsed.needs_retry


def test_tolerated_values():
    text = json.dumps([
        verdict("`mixed`", "#1", "false", mode="any", reason_type="Missing_Bridge"),
        verdict("mixed", "2", "TRUE"),
        verdict("solo", 1.0, True, unnecessary_antecedents=["`p2`"]),
    ])
    parsed = parse_reply(text, EXPECTED)
    assert keys(parsed) == GOOD
    first = next(v for v in parsed.items if v.key == "mixed#1")
    assert (first.mode, first.reason_type) == ("ANY", "missing-bridge")
    assert next(v for v in parsed.items if v.key == "solo#1").unnecessary_antecedents == ("p2",)


def test_lines_point_at_each_verdict():
    text = "Intro.\n" + "\n".join(json.dumps(v) for v in THREE)
    assert [v.line for v in parse_reply(text, EXPECTED).items] == [2, 3, 4]
    pretty = json.dumps({"verdicts": THREE}, indent=2)
    lines = [v.line for v in parse_reply(pretty, EXPECTED).items]
    assert lines[0] == 3 and lines == sorted(lines) and len(set(lines)) == 3


def reasons(parsed):
    return [d.reason for d in parsed.diagnostics]


@pytest.mark.parametrize("items, reason", [
    ([verdict("mixed", 1, ...)], "verdict 1 (mixed) #1 lacks `valid`"),
    ([verdict("mixed", 1, "maybe")], "valid must be true or false, got 'maybe'"),
    ([verdict("mixed", 1, None)], "valid must be true or false"),
    ([verdict("mixed", 1, 1)], "valid must be true or false"),
    ([verdict("nope", 1)], "names belief 'nope', which this round did not show"),
    ([verdict("mixed", 3)], "'mixed' was shown with justification(s) 1, 2, not 3"),
    ([verdict("mixed", 0)], "not 0"),
    ([{"id": "mixed", "valid": True}], "verdict 1 (mixed) has no justification number"),
    ([verdict("mixed", "first")], "has no justification number (got 'first')"),
    ([verdict("mixed", True)], "has no justification number"),
    ([{"justification": 1, "valid": True}], "verdict 1 has no id"),
    (["mixed#1 is fine"], "verdict 1 is not an object"),
    ([verdict("mixed", 1), verdict("mixed", 1, False)], "a second verdict on mixed#1; the first is kept"),
])
def test_each_diagnosis_names_its_reason(items, reason):
    parsed = parse_reply(json.dumps(items), EXPECTED)
    assert any(reason in r for r in reasons(parsed)), reasons(parsed)
    assert parsed.needs_retry


def test_the_first_of_two_verdicts_is_kept():
    parsed = parse_reply(json.dumps([verdict("solo", 1), verdict("solo", 1, False)]), EXPECTED)
    assert [(v.key, v.valid) for v in parsed.items] == [("solo#1", True)]


def test_a_belief_no_verdict_names_is_passed_over_without_a_retry():
    parsed = parse_reply(json.dumps(THREE[:2]), EXPECTED)
    assert keys(parsed) == GOOD[:2]
    assert parsed.missing == parsed.passed_over == ["solo#1"]
    assert reasons(parsed) == [] and not parsed.needs_retry


def test_a_justification_left_out_of_a_judged_belief_is_diagnosed_and_stays_unjudged():
    parsed = parse_reply(json.dumps([THREE[0], THREE[2]]), EXPECTED)
    assert keys(parsed) == [GOOD[0], GOOD[2]]
    assert parsed.missing == ["mixed#2"] and parsed.passed_over == []
    assert reasons(parsed) == ["no verdict on mixed#2 (belief 'mixed', justification 2)"]
    assert parsed.needs_retry


@pytest.mark.parametrize("text, reason", [
    ("", "the reply is empty"),
    ("   \n", "the reply is empty"),
    ("Everything looks valid to me.", "no JSON array of verdicts"),
    ("[1, 2, 3]", "verdict 1 is not an object"),
    ('{"verdicts": "all valid"}', "no JSON array of verdicts"),
    ('{"id": "mixed", "justification": 1, "valid": tru', "no JSON array of verdicts"),
])
def test_a_reply_without_verdicts_is_diagnosed_and_nothing_is_valid(text, reason):
    parsed = parse_reply(text, EXPECTED)
    assert parsed.items == []
    assert reason in reasons(parsed)[0]
    assert sorted(parsed.missing) == ["mixed#1", "mixed#2", "solo#1"]
    assert parsed.needs_retry


@pytest.mark.parametrize("text", ["[]", '{"verdicts": []}', "I judge none of these: []"])
def test_a_well_formed_reply_without_verdicts_passes_everything_over_without_a_retry(text):
    parsed = parse_reply(text, EXPECTED)
    assert parsed.items == [] and parsed.diagnostics == [] and not parsed.needs_retry
    assert parsed.passed_over == ["mixed#1", "mixed#2", "solo#1"]


def test_out_of_range_optional_values_are_noted_and_ignored_without_retry():
    parsed = parse_reply(json.dumps([
        verdict("mixed", 1, False, reason_type="vibes", mode="SOME", sufficient="yes"),
        verdict("mixed", 2, unnecessary_antecedents=["p9"]), verdict("solo", 1)]), EXPECTED)
    assert not parsed.needs_retry
    v = {x.key: x for x in parsed.items}
    assert (v["mixed#1"].reason_type, v["mixed#1"].mode, v["mixed#1"].sufficient) == (
        "unclassified", None, None)
    assert v["mixed#2"].unnecessary_antecedents == ()
    notes = " | ".join(d.reason for d in parsed.notes)
    assert "'vibes' is not one of the seven" in notes and "'SOME' is not ALL or ANY" in notes
    assert "'p9' is not an antecedent" in notes and "sufficient 'yes'" in notes


def test_a_valid_verdict_has_no_reason_type_and_an_invalid_one_always_has_one():
    parsed = parse_reply(json.dumps([
        verdict("mixed", 1, False, reason_type=...), verdict("mixed", 2, reason_type="over-generalizes"),
        verdict("solo", 1)]), EXPECTED)
    v = {x.key: x for x in parsed.items}
    assert v["mixed#1"].reason_type == "unclassified" and v["mixed#2"].reason_type == ""


def test_findings_per_antecedent_are_read():
    parsed = parse_reply(json.dumps([verdict("solo", 1, False, antecedents=[
        {"id": "p1", "establishes": "validation happens", "does_not_establish": "its cost"},
        "junk"])]), {"solo": {1: ("p1", "p2")}})
    (v,) = parsed.items
    assert [a.as_dict() for a in v.antecedents] == [
        {"id": "p1", "establishes": "validation happens", "does_not_establish": "its cost"}]


def test_without_the_round_ids_are_left_to_the_graph_check():
    parsed = parse_reply(json.dumps([verdict("anything", 7, shown_sha256="ab" * 32)]), None)
    assert [(v.key, v.shown_sha256) for v in parsed.items] == [("anything#7", "ab" * 32)]
    assert not parsed.needs_retry


def test_combine_keeps_what_either_reply_judged_and_diagnoses_what_neither_did():
    first = parse_reply(json.dumps([verdict("mixed", 1, False), verdict("solo", 1, "yes")]),
                        EXPECTED)
    second = parse_reply(json.dumps([verdict("mixed", 2), verdict("solo", 1, "maybe")]),
                         EXPECTED)
    merged = combine(first, second)
    assert keys(merged) == GOOD[:2]
    assert merged.missing == ["solo#1"] and merged.passed_over == []
    assert not merged.needs_retry  # something was judged: applied; the rest stays unreviewed
    assert any("no verdict on solo#1" in d.reason for d in merged.notes)


def test_combine_of_a_failure_and_a_well_formed_empty_reply_is_dry_not_a_failure():
    merged = combine(parse_reply("no", EXPECTED), parse_reply('{"verdicts": []}', EXPECTED))
    assert merged.items == [] and not merged.needs_retry
    assert merged.passed_over == ["mixed#1", "mixed#2", "solo#1"]


def test_combine_of_two_failures_is_a_format_failure():
    merged = combine(parse_reply("no", EXPECTED), parse_reply("still no", EXPECTED))
    assert merged.items == [] and merged.needs_retry
    assert "no JSON array" in merged.diagnostics[0].reason


def test_the_second_reply_wins_where_both_judged():
    first = parse_reply(json.dumps(THREE), EXPECTED)
    second = parse_reply(json.dumps([verdict("mixed", 1, True)] + THREE[1:]), EXPECTED)
    assert keys(combine(first, second))[0] == ("mixed#1", True)


@pytest.mark.parametrize("text", ["{" * 5000, '{"verdicts": [' * 300, "\x00\ud800", "```"])
def test_garbage_never_raises_and_is_diagnosed_with_nothing_judged(text):
    parsed = parse_reply(text, EXPECTED)
    assert parsed.items == [] and parsed.needs_retry
    assert parsed.diagnostics[0].reason == ("no JSON array of verdicts (or verdict object) in "
                                            "the reply")
    assert parsed.missing == ["mixed#1", "mixed#2", "solo#1"]


def test_nested_brackets_read_as_an_empty_array_judge_nothing():
    parsed = parse_reply("[" * 5000 + "]", EXPECTED)
    assert parsed.items == [] and parsed.missing == ["mixed#1", "mixed#2", "solo#1"]
    assert parsed.passed_over == parsed.missing and not parsed.needs_retry
