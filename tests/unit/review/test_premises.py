"""review --premises, the pure parts: the source lines shown beside a claim (a chunk over
the budget split and said so, the pin never cut), and reading a reply into verdicts (every
premise needs a verdict; a quote must stand in the lines shown; nothing confirmed by
default)."""
from __future__ import annotations

import hashlib
import json

from engine.review_premises.due import PremiseUnderReview
from engine.review_premises.prompt import build_prompt
from engine.review_premises.verdicts import combine, parse_reply
from engine.review_premises.window import TooLong, Window, review_sha256, window_for
from engine.sources.reader import Chunk, SourceText


def source(lines: list[str], cuts: list[tuple[int, int]]) -> SourceText:
    text = "\n".join(lines)
    chunks = tuple(Chunk("doc.md", a, b, "\n".join(lines[a - 1:b]),
                         hashlib.sha256(str((a, b)).encode()).hexdigest()) for a, b in cuts)
    return SourceText("doc.md", "f" * 64, len(text), "markdown", text, chunks)


PARAGRAPH = ["The auth service validates a JWT on every request.",
             "Keys are cached for an hour.", "", "The gateway forwards after auth."]


def test_a_chunk_within_the_budget_is_shown_whole_around_the_pin():
    w = window_for(source(PARAGRAPH, [(1, 2), (4, 4)]), (2, 2), budget=1000)
    assert isinstance(w, Window)
    assert (w.first, w.last, w.pin, w.split) == (1, 2, (2, 2), False)
    assert w.text == "\n".join(PARAGRAPH[:2]) and w.note(1000) == ""


def test_a_chunk_over_the_budget_is_split_and_the_prompt_says_so():
    lines = [f"Sentence number {i} says something about the system." for i in range(1, 41)]
    w = window_for(source(lines, [(1, 40)]), (20, 21), budget=60)
    assert isinstance(w, Window) and w.split
    assert w.first <= 20 and w.last >= 21 and (w.first, w.last) != (1, 40)
    assert w.text == "\n".join(lines[w.first - 1:w.last])  # whole lines, pin included
    note = w.note(60)
    assert "over the budget of 60 tokens" in note and f"split into {w.parts} parts" in note
    p = PremiseUnderReview("p", "A claim.", w, review_sha256("A claim.", w), "f" * 64, 1)
    assert note in build_prompt([p], due_total=1, budget=60).text


def test_a_pin_too_long_for_the_parts_a_prompt_may_show_is_not_shown_at_all():
    lines = [f"Sentence number {i} says something about the system." for i in range(1, 41)]
    got = window_for(source(lines, [(1, 40)]), (1, 40), budget=60, max_parts=2)
    assert isinstance(got, TooLong) and got.pin == (1, 40)


def test_a_pin_beyond_the_text_has_no_window():
    assert window_for(source(PARAGRAPH, [(1, 4)]), (9, 9)) is None


def test_the_review_key_changes_with_the_claim_and_with_the_lines():
    s = source(PARAGRAPH, [(1, 2), (4, 4)])
    w = window_for(s, (1, 1))
    other = window_for(s, (4, 4))
    assert isinstance(w, Window) and isinstance(other, Window)
    assert review_sha256("A.", w) == review_sha256("A.", w)
    assert review_sha256("A.", w) != review_sha256("B.", w)
    assert review_sha256("A.", w) != review_sha256("A.", other)


def shown(pid: str, pin: tuple[int, int], claim: str) -> PremiseUnderReview:
    w = window_for(source(PARAGRAPH, [(1, 2), (4, 4)]), pin)
    assert isinstance(w, Window)
    return PremiseUnderReview(pid, claim, w, review_sha256(claim, w), "f" * 64, 1)


EXPECTED = {"jwt": shown("jwt", (1, 1), "Auth validates JWTs."),
            "gate": shown("gate", (4, 4), "The gateway waits for auth.")}


def reply(*items) -> str:
    return json.dumps({"verdicts": list(items)})


def test_grounded_verdicts_are_read_with_the_lines_of_their_quotes():
    got = parse_reply(reply(
        {"id": "jwt", "verdict": "confirmed", "quote": "validates a JWT on every request"},
        {"id": "gate", "verdict": "Misread", "kind": "fabricated", "quote": ""}), EXPECTED)
    assert not got.needs_retry
    by = {v.belief: v for v in got.items}
    assert by["jwt"].quote_lines == (1, 1) and by["jwt"].shown_sha256 == EXPECTED["jwt"].sha256
    assert (by["gate"].verdict, by["gate"].kind) == ("misread", "fabricated")


def test_an_ungrounded_quote_or_a_missing_verdict_is_diagnosed_and_never_confirmed():
    got = parse_reply(reply(
        {"id": "jwt", "verdict": "confirmed", "quote": "validates every token twice"},
        {"id": "gate"}), EXPECTED)
    assert got.needs_retry and got.items == []
    reasons = " ".join(d.reason for d in got.diagnostics)
    assert "does not occur in the lines shown (1-2)" in reasons
    assert "(gate) lacks a verdict" in reasons
    assert sorted(got.missing) == ["gate", "jwt"]


def test_a_partial_needs_a_narrower_claim_that_is_not_the_claim():
    got = parse_reply(reply(
        {"id": "jwt", "verdict": "partial", "quote": "validates a JWT",
         "narrower": "Auth validates JWTs."},
        {"id": "gate", "verdict": "partial", "quote": "forwards after auth"}), EXPECTED)
    reasons = [d.reason for d in got.diagnostics]
    assert any("the narrower claim is the claim itself" in r for r in reasons)
    assert any("needs the narrower claim" in r for r in reasons)


def test_after_the_retry_what_is_still_ungrounded_stays_unreviewed():
    first = parse_reply(reply(
        {"id": "jwt", "verdict": "confirmed", "quote": "validates a JWT"},
        {"id": "gate", "verdict": "confirmed", "quote": "waits for auth"}), EXPECTED)
    second = parse_reply(reply(
        {"id": "gate", "verdict": "confirmed", "quote": "still not there"}), EXPECTED)
    merged = combine(first, second)
    assert [v.belief for v in merged.items] == ["jwt"]
    assert not merged.needs_retry and merged.missing == ["gate"]
    assert any("left unreviewed" in n.reason for n in merged.notes)


def test_a_proposals_file_is_read_without_what_the_round_showed():
    got = parse_reply("prose\n```json\n" + json.dumps({"mode": "premises", "verdicts": [
        {"id": "x", "verdict": "confirmed", "quote": "q", "shown_sha256": "ab"}]}) + "\n```")
    (v,) = got.items
    assert (v.belief, v.shown_sha256, v.quote_lines) == ("x", "ab", None)
