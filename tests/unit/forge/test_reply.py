"""Forge's grounding, reply parser and validation rules (pure, no store)."""
from __future__ import annotations

import json

import pytest

from engine.forge.items import ProposedPremise
from engine.forge.parser import parse_premises
from engine.forge.validate import ForgeRules, Ground, check_premises
from engine.sources.grounding import find_quote, normalize

TEXT = "Intro.\nThe auth service validates the JWT signature\non every request.\nDone."


# --- grounding -------------------------------------------------------------------------
def test_a_quote_is_found_across_line_breaks_with_its_lines():
    assert find_quote("validates the JWT signature on every request", TEXT, 10) == (11, 12)


@pytest.mark.parametrize("quote", [
    "validates   the  JWT\tsignature",  # whitespace
    "THE AUTH SERVICE",  # case
    "“The auth service validates”",  # curly quotes around it
    "11| The auth service validates",  # a copied line-number gutter
])
def test_normalized_quotes_are_grounded(quote):
    assert find_quote(quote, TEXT, 10) is not None


def test_curly_quotes_and_dashes_inside_match_straight_ones():
    assert find_quote("it's a \"fast\" path - mostly", "It’s a “fast” path – mostly.") == (1, 1)
    assert normalize("a\u2014b\u2026") == "a-b..."


@pytest.mark.parametrize("quote", ["", "   ", "validates the session", "JWT signature on every call"])
def test_words_not_in_the_text_are_not_grounded(quote):
    assert find_quote(quote, TEXT) is None


# --- parser ----------------------------------------------------------------------------
ONE = {"id": "auth-validates-jwt", "claim": "Auth validates JWTs.", "quote": "validates the JWT"}


@pytest.mark.parametrize("reply", [
    json.dumps({"premises": [ONE]}),
    json.dumps([ONE]),
    "Here you go:\n```json\n" + json.dumps([ONE], indent=2) + "\n```\nHope it helps.",
    "Sure! " + json.dumps({"premises": [ONE]}) + " That is all.",
    json.dumps(ONE) + "\n",  # JSON lines, one premise
    json.dumps({"results": [ONE]}),  # another key holding the one list
])
def test_every_accepted_shape_parses(reply):
    parsed = parse_premises(reply)
    assert [p.id for p in parsed.items] == ["auth-validates-jwt"]
    assert not parsed.needs_retry and not parsed.diagnostics


def test_json_lines_with_several_premises_keep_their_lines():
    two = dict(ONE, id="b-two")
    parsed = parse_premises("notes\n" + json.dumps(ONE) + "\n" + json.dumps(two))
    assert [(p.id, p.line) for p in parsed.items] == [("auth-validates-jwt", 2), ("b-two", 3)]


def test_an_explicit_empty_list_is_nothing_to_say():
    parsed = parse_premises('{"premises": []}')
    assert parsed.nothing_to_say and not parsed.needs_retry and not parsed.items


@pytest.mark.parametrize("reply,reason", [
    ("", "empty reply"),
    ("I found these premises: auth uses JWT.", "no JSON array of premises"),
    ('{"premises": [', "no JSON array of premises"),
])
def test_unreadable_replies_are_diagnosed_and_need_the_retry(reply, reason):
    parsed = parse_premises(reply)
    assert parsed.needs_retry and not parsed.items
    assert reason in parsed.diagnostics[0].reason


def test_bad_items_are_each_diagnosed_and_good_ones_kept():
    reply = json.dumps({"premises": [ONE, "text", {"id": "x-y", "claim": "C."},
                                     {"id": "x-z", "claim": 3, "quote": "q"}]})
    parsed = parse_premises(reply)
    assert [p.id for p in parsed.items] == ["auth-validates-jwt"]
    assert [d.reason for d in parsed.diagnostics] == [
        "premise 2: not an object but str", "premise 3: missing 'quote'",
        "premise 4: 'claim' must be text"]
    assert not parsed.needs_retry


def test_only_bad_items_need_the_retry():
    parsed = parse_premises(json.dumps([{"id": "a-b"}]))
    assert parsed.needs_retry and parsed.diagnostics


# --- validation ------------------------------------------------------------------------
GROUND = Ground("docs/auth.md", TEXT, 10, "hash-1", "chunk-1")


def premise(pid="auth-validates-jwt", claim="Auth validates JWTs.", quote="validates the JWT",
            line=1):
    return ProposedPremise(pid, claim, quote, line)


def check(items, existing=(), **kw):
    return check_premises(items, lambda p: GROUND, set(existing), **kw)


def reasons(checked):
    return {s.id: s.reason for s in checked.skipped}


def test_a_valid_premise_carries_its_source_lines_hash_and_chunk():
    got = check([premise()])
    assert not got.skipped
    p = got.valid[0]
    assert (p.source, p.lines, p.source_hash, p.chunk) == ("docs/auth.md", (11, 11), "hash-1",
                                                            "chunk-1")


def test_each_rule_skips_with_its_reason():
    items = [
        premise("Bad Id"),
        premise("dup-one", line=2), premise("dup-one", line=3),
        premise("taken-id"),
        premise("empty-claim", claim="  "),
        premise("long-claim", claim="x" * 301),
        premise("made-up", quote="validates the session token"),
    ]
    got = check(items, existing={"taken-id"})
    assert [p.id for p in got.valid] == ["dup-one"]
    r = reasons(got)
    assert r["Bad Id"].startswith("invalid id 'Bad Id'")
    assert r["dup-one"] == "duplicate id: already proposed at line 2 of this reply"
    assert r["taken-id"] == "already exists"
    assert r["empty-claim"] == "empty claim"
    assert r["long-claim"].startswith("claim is 301 characters, far longer than one sentence")
    assert r["made-up"] == "not grounded: the quote does not occur in docs/auth.md lines 10-13"


def test_a_source_that_cannot_be_read_is_the_reason():
    got = check_premises([premise()], lambda p: "source missing: docs/auth.md", set())
    assert reasons(got) == {"auth-validates-jwt": "source missing: docs/auth.md"}


def test_a_claim_too_close_to_an_existing_belief_is_a_likely_duplicate():
    vectors = {"Auth validates JWTs.": [1.0, 0.0], "Requests are routed.": [0.0, 1.0],
               "Auth checks JWTs.": [0.99, 0.05]}

    def nearest(v):
        return ("auth-jwt-existing", 0.97) if v[0] > 0.9 else ("other", 0.1)

    items = [premise(), premise("routing", "Requests are routed.", "on every request"),
             premise("auth-checks", "Auth checks JWTs.", "The auth service")]
    got = check(items, rules=ForgeRules(similar=0.95),
                vectors=lambda texts: [vectors[t] for t in texts], nearest=nearest)
    assert [p.id for p in got.valid] == ["routing"]
    r = reasons(got)
    assert r["auth-validates-jwt"] == ("likely duplicate of existing belief 'auth-jwt-existing' "
                                       "(cosine 0.97 >= 0.95, --similar)")
    assert r["auth-checks"].startswith("likely duplicate of existing belief")


def test_near_duplicates_within_one_reply_keep_the_first():
    vectors = {"A one.": [1.0, 0.0], "A one again.": [0.999, 0.01]}
    items = [premise("a-one", "A one.", "Intro"), premise("a-two", "A one again.", "Done")]
    got = check(items, vectors=lambda ts: [vectors[t] for t in ts], nearest=lambda v: None)
    assert [p.id for p in got.valid] == ["a-one"]
    assert reasons(got)["a-two"].startswith("likely duplicate of proposed earlier in this reply 'a-one'")


# --- the reply schema ------------------------------------------------------------------
def test_the_bounded_schema_offers_the_chunks_lines_as_quotes():
    from engine.forge.prompt import quotable_lines, reply_schema
    from engine.sources.reader import Chunk

    chunk = Chunk("a.py", 1, 4, '# Short\nThe pool keeps 10 connections.\nx = "a string"\n'
                  'path = C:\\\\temp and more', "h")
    quotes = quotable_lines(chunk)
    assert quotes == ["The pool keeps 10 connections."]
    bounded = reply_schema(3, bounded=True, quotes=quotes)
    item = bounded["properties"]["premises"]["items"]["properties"]
    assert item["quote"] == {"type": "string", "enum": quotes}
    assert bounded["properties"]["premises"]["maxItems"] == 3
    strict = reply_schema(3, bounded=False)
    assert strict["properties"]["premises"]["items"]["properties"]["quote"] == {"type": "string"}
    assert "maxItems" not in strict["properties"]["premises"]
    assert all(find_quote(q, chunk.text) for q in quotes)
