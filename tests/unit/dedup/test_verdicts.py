"""Dedup's reply parser: every accepted shape and every diagnosis."""
from __future__ import annotations

import json

import pytest

from engine.dedup.prompt import reply_schema
from engine.dedup.verdicts import ShownCluster, combine_verdicts, parse_verdicts

SHOWN = (ShownCluster(1, ("a", "b"), ("sa", "sb")),
         ShownCluster(2, ("c", "d", "e"), ("sc", "sd", "se")))
ANSWERS = [{"cluster": 1, "verdict": "SAME", "keep": "a", "same": ["a", "b"],
            "contradicts": [], "comment": "one claim"},
           {"cluster": 2, "verdict": "CONTRADICTION", "keep": "", "same": [],
            "contradicts": [["d", "c"]], "comment": "c denies d"}]


def _ok(parsed):
    assert parsed.diagnostics == [] and not parsed.needs_retry
    assert [(v.cluster, v.verdict) for v in parsed.items] == [(1, "SAME"), (2, "CONTRADICTION")]
    assert parsed.items[0].same == ("a", "b") and parsed.items[0].shas == ("sa", "sb")
    assert parsed.items[1].contradicts == (("c", "d"),)


@pytest.mark.parametrize("reply", [
    json.dumps({"verdicts": ANSWERS}),
    json.dumps(ANSWERS),
    "```json\n" + json.dumps({"verdicts": ANSWERS}, indent=2) + "\n```",
    "Here is my answer:\n" + json.dumps(ANSWERS) + "\nI hope it helps.",
    "\n".join(json.dumps(a) for a in ANSWERS),
])
def test_every_shape_a_model_writes_is_read(reply):
    _ok(parse_verdicts(reply, SHOWN))


def _with(**change):
    answers = [dict(ANSWERS[0], **change), ANSWERS[1]]
    return json.dumps({"verdicts": answers})


@pytest.mark.parametrize("reply, reason", [
    ("I think they are all the same.", "no JSON object or list in the reply"),
    (json.dumps({"verdicts": [ANSWERS[1]]}), "cluster 1: no answer"),
    (json.dumps({"verdicts": ["SAME", ANSWERS[1]]}), "item 1 is not an object"),
    (_with(cluster=None), "item 1 has no cluster number"),
    (_with(cluster=9), "item 1: cluster 9 was not shown"),
    (_with(verdict=None), "cluster 1: no verdict"),
    (_with(verdict="MAYBE"), "cluster 1: unknown verdict 'MAYBE'"),
    (_with(keep="zz"), "cluster 1: unknown id `zz`"),
    (_with(same=["a", "q"]), "cluster 1: unknown id `q`"),
    (_with(same=["a"], keep=""), "cluster 1: SAME names fewer than two members"),
    (_with(contradicts=[["a"]]), "cluster 1: contradicts holds"),
    (json.dumps({"verdicts": [ANSWERS[0], dict(ANSWERS[1], contradicts=[])]}),
     "cluster 2: CONTRADICTION names no pair"),
    (json.dumps({"verdicts": [ANSWERS[0], ANSWERS[0], ANSWERS[1]]}), "cluster 1 is answered twice"),
    (json.dumps({"verdicts": "SAME"}), '"verdicts" is not a list'),
])
def test_every_fault_is_diagnosed_and_asks_for_the_retry(reply, reason):
    parsed = parse_verdicts(reply, SHOWN)
    assert parsed.needs_retry
    assert any(d.reason.startswith(reason) for d in parsed.diagnostics), parsed.diagnostics
    assert all(v.verdict != "DIFFERENT" for v in parsed.items)  # never DIFFERENT by default


def test_a_faulty_answer_leaves_its_cluster_undecided_not_different():
    parsed = parse_verdicts(_with(verdict=None), SHOWN)
    assert [v.cluster for v in parsed.items] == [2]


def test_a_pair_of_two_contradicting_needs_no_pair_listed():
    shown = (ShownCluster(1, ("a", "b"), ("sa", "sb")),)
    parsed = parse_verdicts('{"cluster": 1, "verdict": "contradiction"}', shown)
    assert parsed.items[0].contradicts == (("a", "b"),) and not parsed.needs_retry


def test_same_without_a_list_means_every_member():
    parsed = parse_verdicts('[{"cluster": 2, "verdict": "SAME_CLAIM"}, {"cluster": 1, '
                            '"verdict": "DIFFERENT_CLAIMS"}]', SHOWN)
    assert [(v.verdict, v.same) for v in parsed.items] == [
        ("DIFFERENT", ()), ("SAME", ("c", "d", "e"))]


def test_the_retry_fills_in_what_the_first_reply_missed():
    first = parse_verdicts(json.dumps([ANSWERS[1]]), SHOWN)
    assert first.needs_retry
    second = parse_verdicts(json.dumps([ANSWERS[0]]), SHOWN)
    combined = combine_verdicts(first, second)
    assert [v.cluster for v in combined.items] == [1, 2] and not combined.needs_retry


def test_still_unanswered_after_the_retry_stays_undecided():
    first = parse_verdicts("no idea", SHOWN)
    second = parse_verdicts(json.dumps([ANSWERS[1]]), SHOWN)
    combined = combine_verdicts(first, second)
    assert [v.cluster for v in combined.items] == [2]
    assert any("cluster 1: no answer" in d.reason for d in combined.diagnostics)
    both_bad = combine_verdicts(first, parse_verdicts("still nothing", SHOWN))
    assert both_bad.items == [] and both_bad.needs_retry


def test_a_proposals_file_carries_its_own_members():
    items = parse_verdicts(json.dumps(ANSWERS), SHOWN).items
    text = json.dumps({"verdicts": [v.as_dict() for v in items]})
    again = parse_verdicts(text, None)
    assert again.items == items and not again.needs_retry
    broken = parse_verdicts(json.dumps([dict(ANSWERS[0])]), None)
    assert broken.needs_retry and "gives no members" in broken.diagnostics[0].reason


def test_the_schema_restricts_clusters_and_ids_to_those_shown():
    bounded = reply_schema(SHOWN, bounded=True)
    item = bounded["properties"]["verdicts"]["items"]
    assert item["properties"]["cluster"]["enum"] == [1, 2]
    assert item["properties"]["same"]["items"]["enum"] == ["a", "b", "c", "d", "e"]
    assert bounded["properties"]["verdicts"]["maxItems"] == 2
    strict = reply_schema(SHOWN, bounded=False)
    sitem = strict["properties"]["verdicts"]["items"]
    assert set(sitem["required"]) == set(sitem["properties"]) and not sitem["additionalProperties"]
    assert "maxItems" not in json.dumps(strict) and "maxLength" not in json.dumps(strict)
