"""Reading a repairer's reply: every action checked, every problem diagnosed, nothing assumed."""
from __future__ import annotations

from engine.repair.parser import combine, parse_reply
from tests.repair_fakes import repair, reply

EXPECTED = {"solo": {1: "Key fetches block request validation."},
            "mixed": {1: "Auth is the main latency bottleneck.", 2: "Auth is the main latency bottleneck."}}


def all_four() -> list[dict]:
    return [repair("solo", 1, "link", bridges=["p5"]),
            repair("mixed", 1, "soften", text="Auth adds latency."),
            repair("mixed", 2, "research", text="Auth's share of latency is measured.")]


def reasons(parsed) -> str:
    return " | ".join(d.reason for d in parsed.diagnostics)


def test_a_complete_reply_reads_every_action():
    parsed = parse_reply(reply(*all_four()), EXPECTED)
    assert not parsed.needs_retry
    assert [(r.key, r.action) for r in parsed.items] == [
        ("solo#1", "link"), ("mixed#1", "soften"), ("mixed#2", "research")]
    assert parsed.items[0].bridges == ("p5",) and parsed.items[0].text == ""
    assert parsed.items[1].bridges == () and parsed.items[1].text == "Auth adds latency."


def test_a_fenced_reply_with_prose_and_spelled_numbers_reads_the_same():
    items = all_four()
    items[0]["justification"] = "#1"
    items[0]["bridges"] = "`p5`"
    text = "Here you go:\n```json\n" + reply(*items) + "\n```\nDone."
    parsed = parse_reply(text, EXPECTED)
    assert not parsed.needs_retry and parsed.items[0].bridges == ("p5",)


def test_each_broken_action_is_diagnosed_and_nothing_is_taken_by_default():
    parsed = parse_reply(reply(
        repair("solo", 1, "link"),  # no bridges
        repair("mixed", 1, "soften", text="Auth is the main latency bottleneck"),  # the same
        repair("mixed", 2, "repair it"),  # not an action
        repair("ghost", 1, "abandon"),  # not shown
        repair("solo", 3, "abandon"),  # not shown with that number
    ), EXPECTED)
    assert parsed.needs_retry and parsed.items == []
    text = reasons(parsed)
    assert "solo#1: link names no bridges" in text
    assert "the softened text is the claim as it stands" in text
    assert "action must be one of link, soften, abandon, research, got 'repair it'" in text
    assert "names 'ghost', which this round did not show" in text
    assert "not 3" in text
    assert sorted(parsed.missing) == ["mixed#1", "mixed#2", "solo#1"]


def test_research_and_soften_need_a_text_and_a_second_repair_keeps_the_first():
    parsed = parse_reply(reply(repair("solo", 1, "research"), repair("mixed", 1, "abandon"),
                               repair("mixed", 1, "link", bridges=["p5"]),
                               repair("mixed", 2, "abandon")), EXPECTED)
    assert "solo#1: research needs a `text`" in reasons(parsed)
    assert "a second repair of mixed#1; the first is kept" in reasons(parsed)
    assert [(r.key, r.action) for r in parsed.items] == [("mixed#1", "abandon"),
                                                         ("mixed#2", "abandon")]


def test_the_graph_check_turns_a_bad_bridge_into_a_diagnosis():
    def graph(repairs):
        return {r.key: ["bridge 'nope' does not exist"] for r in repairs if "nope" in r.bridges}

    items = all_four()
    items[0]["bridges"] = ["nope"]
    parsed = parse_reply(reply(*items), EXPECTED, graph)
    assert parsed.needs_retry and "solo#1: bridge 'nope' does not exist" in reasons(parsed)
    assert [r.key for r in parsed.items] == ["mixed#1", "mixed#2"]
    assert parsed.missing == ["solo#1"]


def test_after_the_retry_the_second_fills_the_gaps_and_what_is_left_stays_undecided():
    first = parse_reply(reply(repair("solo", 1, "link"), *all_four()[1:]), EXPECTED)
    second = parse_reply(reply(repair("solo", 1, "link")), EXPECTED)
    merged = combine(first, second)
    assert not merged.needs_retry
    assert sorted(r.key for r in merged.items) == ["mixed#1", "mixed#2"]
    assert merged.missing == ["solo#1"]
    nothing = combine(parse_reply("no idea", EXPECTED), parse_reply("still none", EXPECTED))
    assert nothing.needs_retry and nothing.items == []


def test_a_proposals_file_is_read_without_the_round():
    parsed = parse_reply(reply(repair("anything", 4, "abandon")), None)
    assert not parsed.needs_retry and parsed.items[0].key == "anything#4"
