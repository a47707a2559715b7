"""Forge under the local model's grammar is extractive: each premise is one sentence of the
chunk, quoted as it stands, with an id of its own words; other back-ends keep free claims."""
from __future__ import annotations

import json

import pytest

from engine.forge.parser import parse_premises
from engine.forge.prompt import (
    chunk_sentences,
    claim_id,
    extractive_schema,
)
from engine.forge.validate import Ground, check_premises
from engine.sources.reader import Chunk

MARKDOWN = """## Token validation

The JWKS signing keys are fetched synchronously from the identity provider when the cache
misses. The JWKS key cache expires every five minutes.
- Sessions live in Redis for thirty minutes.
Too short."""
CODE = '''"""Settings of the catalog service."""

# Each catalog instance keeps a pool of 10 connections to Postgres.
POOL_SIZE = 10
    """Catalog reads go to the replica; writes go to the primary."""'''


def chunk(text: str) -> Chunk:
    return Chunk("docs/auth.md", 1, text.count("\n") + 1, text, "sha-1")


def test_sentences_are_words_of_the_file_without_line_marks():
    assert chunk_sentences(chunk(MARKDOWN)) == [
        ("The JWKS signing keys are fetched synchronously from the identity provider when "
         "the cache misses."),
        "The JWKS key cache expires every five minutes.",
        "Sessions live in Redis for thirty minutes.",
    ]
    assert chunk_sentences(chunk(CODE)) == [
        "Settings of the catalog service.",
        "Each catalog instance keeps a pool of 10 connections to Postgres.",
        "Catalog reads go to the replica; writes go to the primary.",
    ]


def test_a_sentence_with_a_double_quote_is_left_out():
    assert chunk_sentences(chunk('The key "kid" names the signing key in use.')) == []


def test_an_id_is_built_from_the_claims_own_words():
    assert claim_id("The JWKS key cache expires every five minutes.") == (
        "jwks-key-cache-expires-every-five")
    assert claim_id("10 connections are kept per instance.") == (
        "connections-kept-per-instance")


def test_the_extractive_schema_offers_each_sentence_as_a_whole_premise():
    schema = extractive_schema(chunk(MARKDOWN), max_premises=6)
    premises = schema["properties"]["premises"]
    assert (premises["minItems"], premises["maxItems"]) == (3, 3)
    choices = [c for slot in premises["prefixItems"] for c in slot["anyOf"]]
    assert [c["properties"]["claim"]["const"] for c in choices] == chunk_sentences(chunk(MARKDOWN))
    assert all(c["properties"]["quote"] == c["properties"]["claim"] for c in choices)
    assert choices[1]["properties"]["id"]["const"] == "jwks-key-cache-expires-every-five"


def test_each_premise_slot_offers_its_own_share_so_no_sentence_comes_twice():
    slots = extractive_schema(chunk(MARKDOWN), max_premises=2)["properties"]["premises"][
        "prefixItems"]
    claims = [[c["properties"]["claim"]["const"] for c in slot["anyOf"]] for slot in slots]
    first, second, third = chunk_sentences(chunk(MARKDOWN))
    assert claims == [[first, third], [second]]


def test_no_sentence_no_extractive_schema():
    assert extractive_schema(chunk("POOL_SIZE = 10"), 6) is None


def test_an_extracted_premise_passes_validation_grounded_in_its_lines():
    c = chunk(MARKDOWN)
    choice = extractive_schema(c, 6)["properties"]["premises"]["prefixItems"][0]["anyOf"][0]
    item = {k: v["const"] for k, v in choice["properties"].items()}
    parsed = parse_premises(json.dumps({"premises": [item]}))
    got = check_premises(parsed.items, lambda p: Ground(c.path, c.text, 1, "h", c.sha256), set())
    assert not got.skipped and got.valid[0].lines == (3, 4)


def test_other_back_ends_keep_free_claims():
    from engine.forge.stage import ForgeSettings, ForgeStage

    stage = ForgeStage(plan=(), reader=None, at=lambda: "", settings=ForgeSettings())
    reply = stage.contract(chunk(MARKDOWN)).reply
    premises = reply.schema["properties"]["premises"]
    claim = premises["items"]["properties"]["claim"]
    assert premises["maxItems"] == 6
    # a claim is free text, bounded in length; no sentence is imposed
    assert claim == {"type": "string", "minLength": 1, "maxLength": 300}
    # the quote is one of the chunk's lines as they stand (one too short to quote left out)
    assert premises["items"]["properties"]["quote"]["enum"] == [
        "## Token validation",
        "The JWKS signing keys are fetched synchronously from the identity provider when the "
        "cache",
        "misses. The JWKS key cache expires every five minutes.",
        "- Sessions live in Redis for thirty minutes."]
    assert reply.strict_schema["properties"]["premises"]["items"]["properties"]["claim"] == {
        "type": "string"}
    # only the local model's grammar is extractive: each claim one of the chunk's sentences
    slots = reply.grammar_schema["properties"]["premises"]["prefixItems"]
    assert sorted(c["properties"]["claim"]["const"] for s in slots for c in s["anyOf"]) == [
        "Sessions live in Redis for thirty minutes.",
        "The JWKS key cache expires every five minutes.",
        "The JWKS signing keys are fetched synchronously from the identity provider when the "
        "cache misses."]


@pytest.mark.local_model
def test_the_local_model_can_only_extract(tmp_path):
    from adapters.llm.grammar import json_grammar
    from adapters.llm.local import check_grammar
    from tests.local_model import local_model_or_skip

    llama = local_model_or_skip()._llama
    gbnf = json_grammar(extractive_schema(chunk(MARKDOWN), 2))
    check_grammar(llama, gbnf)
    from tests.unit.llm.test_llm_grammar import admits

    first, second, third = (
        {"id": claim_id(s), "claim": s, "quote": s} for s in chunk_sentences(chunk(MARKDOWN)))

    def reply(*premises):
        return json.dumps({"premises": list(premises)})

    assert admits(llama, gbnf, reply(first, second)) and admits(llama, gbnf, reply(third, second))
    assert not admits(llama, gbnf, reply(first, first))
    assert not admits(llama, gbnf, reply(first, second, third))
    assert not admits(llama, gbnf, reply({**first, "claim": "<one testable statement>"}, second))
    assert not admits(llama, gbnf, reply({**first, "id": "made-up-id"}, second))
