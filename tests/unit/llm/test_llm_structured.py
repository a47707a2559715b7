"""--structured: the JSON schema, its rendering into the markdown format, and each provider's
request and reply, against a loopback server that answers like the provider."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import HumanMessage

from adapters.llm import build_chat_model, model_for_round
from adapters.llm.structured import proposal_schema, render_markdown, structured_rounds
from engine.stages.contract import RoundContract
from engine.derive.parser import parse_reply
from engine.derive.proposals import Mode, ProposalKind
from tests.llm_fakes import FakeStructuredChat

IDS = ("cache-ttl-60s", "reads-from-cache", "writes-invalidate", "ttl-disabled")
CONTRACT = RoundContract.markdown(IDS, min_antecedents=2, max_proposals=5)
DERIVE = {
    "kind": "DERIVE", "id": "cache-serves-stale-reads", "conclusion": "Reads may be\na minute  old.",
    "antecedents": ["cache-ttl-60s", "reads-from-cache"], "unless": [], "mode": "ALL",
    "label": "TTL bounds staleness",
}
GATE = {
    "kind": "GATE", "id": "cache-is-safe", "conclusion": "Cached reads are safe.",
    "antecedents": ["writes-invalidate", "reads-from-cache"], "unless": ["ttl-disabled"], "mode": "ANY",
    "label": "Invalidation keeps it fresh",
}
PROMPT = [HumanMessage("propose")]


def test_the_schema_limits_cited_ids_to_the_round():
    items = proposal_schema(CONTRACT)["properties"]["proposals"]["items"]["properties"]
    assert items["antecedents"]["items"]["enum"] == sorted(IDS)
    assert items["unless"]["items"]["enum"] == sorted(IDS)
    assert items["antecedents"]["minItems"] == 2


def test_the_unbounded_schema_keeps_to_openais_strict_subset():
    schema = proposal_schema(CONTRACT, bounded=False)
    text = json.dumps(schema)
    for keyword in ("minItems", "maxItems", "maxLength", "pattern"):
        assert keyword not in text
    item = schema["properties"]["proposals"]["items"]
    assert set(item["required"]) == set(item["properties"]) and item["additionalProperties"] is False


def test_no_gates_when_the_round_forbids_them():
    schema = proposal_schema(RoundContract.markdown(IDS, allow_gate=False))
    assert schema["properties"]["proposals"]["items"]["properties"]["kind"]["enum"] == ["DERIVE"]


def test_rendered_json_parses_to_the_same_proposals():
    text, skipped = render_markdown({"proposals": [DERIVE, GATE]})
    parsed = parse_reply(text)
    assert skipped == [] and parsed.rejected == []
    derive, gate = parsed.proposals
    assert (derive.kind, derive.id, derive.text, derive.mode) == (
        ProposalKind.DERIVE, "cache-serves-stale-reads", "Reads may be a minute old.", Mode.ALL)
    assert (gate.kind, gate.antecedents, gate.unless, gate.mode, gate.label) == (
        ProposalKind.GATE, ("writes-invalidate", "reads-from-cache"), ("ttl-disabled",), Mode.ANY,
        "Invalidation keeps it fresh")


def test_no_proposals_renders_as_the_line():
    assert render_markdown({"proposals": []}) == ("NO PROPOSALS", [])
    assert parse_reply("NO PROPOSALS").no_proposals


def test_items_that_cannot_be_proposals_are_set_aside():
    broken = {**DERIVE, "mode": "SOME"}
    text, skipped = render_markdown({"proposals": [broken, "text", DERIVE]})
    assert skipped == [broken, "text"] and text.count("### DERIVE") == 1


line = st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=30)
proposal = st.fixed_dictionaries({
    "kind": st.sampled_from(["DERIVE", "GATE"]),
    "id": st.from_regex(r"[a-z0-9][a-z0-9._:-]{0,30}", fullmatch=True),
    "conclusion": st.lists(line, min_size=1, max_size=5).map(" ".join),
    "antecedents": st.lists(st.sampled_from(IDS), min_size=1, max_size=4),
    "unless": st.lists(st.sampled_from(IDS), min_size=1, max_size=2),
    "mode": st.sampled_from(["ALL", "ANY"]),
    "label": st.lists(line, min_size=1, max_size=4).map(" ".join),
})


@settings(max_examples=int(__import__("os").environ.get("STRUCTURED_EXAMPLES", "60")), deadline=None)
@given(st.lists(proposal, max_size=4))
def test_any_schema_reply_renders_to_what_the_parser_reads_back(proposals):
    """Every item is either read back exactly as it was given, or set aside (a conclusion
    such as '#' or '---' reads as markdown structure): never changed in meaning."""
    for p in proposals:
        if p["kind"] == "DERIVE":
            p["unless"] = []
    text, skipped = render_markdown({"proposals": proposals})
    parsed = parse_reply(text)
    assert parsed.rejected == []
    kept = [p for p in proposals if p not in skipped]
    assert [(p.kind.value, p.id, p.text, list(p.antecedents), list(p.unless), p.mode.value, p.label)
            for p in parsed.proposals] == [
        (p["kind"], p["id"], p["conclusion"], p["antecedents"], p["unless"], p["mode"], p["label"])
        for p in kept]
    for p in skipped:
        assert p["conclusion"].lstrip().startswith(("#", "-", "*", "_")) or \
            p["label"].lstrip().startswith(("#", "-", "*", "_", "`"))


def test_a_conclusion_that_reads_as_a_heading_is_set_aside():
    heading = {**DERIVE, "conclusion": "# not a conclusion"}
    text, skipped = render_markdown({"proposals": [heading, DERIVE]})
    assert skipped == [heading] and text.count("### DERIVE") == 1


def test_a_structured_round_answers_markdown_and_keeps_the_json():
    chat = FakeStructuredChat(reply={"proposals": [DERIVE]})
    reply = structured_rounds(chat, method="json_schema")(CONTRACT).invoke(PROMPT)
    assert parse_reply(reply.content).proposals[0].id == "cache-serves-stale-reads"
    assert reply.response_metadata["structured_output"] == {"proposals": [DERIVE]}
    assert reply.usage_metadata["input_tokens"] == 11 and reply.usage_metadata["output_tokens"] == 7
    schema, options = chat.asked[-1]
    assert options == {"include_raw": True, "method": "json_schema"}
    assert schema["properties"]["proposals"]["maxItems"] == 5


def test_a_reply_outside_the_schema_is_handed_on_as_text():
    chat = FakeStructuredChat(reply=None, raw_text="I think the cache is fine")
    reply = structured_rounds(chat)(CONTRACT).invoke(PROMPT)
    assert reply.content == "I think the cache is fine"
    assert reply.response_metadata["structured_error"] == "not JSON"
    assert parse_reply(reply.content).is_format_failure


def test_openai_asks_for_strict_json_schema_without_bounds():
    chat = FakeStructuredChat(reply={"proposals": []})
    model_for_round("openai:gpt-4o-mini", chat, structured=True)(CONTRACT).invoke(PROMPT)
    schema, options = chat.asked[-1]
    assert options == {"include_raw": True, "method": "json_schema", "strict": True}
    assert "minItems" not in json.dumps(schema)


def test_without_structured_a_provider_model_is_used_as_it_is():
    chat = FakeStructuredChat()
    assert model_for_round("ollama:qwen3:8b", chat, structured=False)(CONTRACT) is chat


def _derive_round(spec, environ, server):
    server.proposals = {"proposals": [DERIVE, GATE]}
    chat = build_chat_model(spec, timeout=30, environ=environ)
    reply = model_for_round(spec, chat, structured=True)(CONTRACT).invoke(PROMPT)
    assert [p.id for p in parse_reply(reply.content).proposals] == ["cache-serves-stale-reads", "cache-is-safe"]
    assert reply.usage_metadata["input_tokens"] == 21 and reply.usage_metadata["output_tokens"] == 9
    assert reply.response_metadata["structured_output"] == server.proposals
    return server.posted()[-1]


def test_ollama_structured_sends_the_schema_as_format(provider_server):
    body = _derive_round("ollama:qwen3:8b", {"OLLAMA_HOST": provider_server.url}, provider_server)
    assert body["format"]["properties"]["proposals"]["items"]["properties"]["antecedents"]["items"]["enum"] == sorted(IDS)


def test_openai_structured_sends_a_strict_json_schema(provider_server):
    environ = {"OPENAI_BASE_URL": provider_server.url + "/v1", "OPENAI_API_KEY": "sk-test"}
    body = _derive_round("openai:gpt-4o-mini", environ, provider_server)
    response_format = body["response_format"]
    assert response_format["type"] == "json_schema" and response_format["json_schema"]["strict"] is True


def test_anthropic_structured_forces_a_tool_with_the_schema(provider_server):
    environ = {"ANTHROPIC_BASE_URL": provider_server.url, "ANTHROPIC_API_KEY": "sk-test"}
    body = _derive_round("anthropic:claude-haiku-4-5", environ, provider_server)
    tool = body["tools"][0]
    assert body["tool_choice"]["name"] == tool["name"] == "derive_proposals"
    assert tool["input_schema"]["properties"]["proposals"]["items"]["properties"]["unless"]["items"]["enum"] == sorted(IDS)


@pytest.mark.parametrize("spec", ["ollama:qwen3:8b", "openai:gpt-4o-mini"])
def test_unstructured_provider_calls_return_the_text(provider_server, spec):
    environ = {"OLLAMA_HOST": provider_server.url, "OPENAI_BASE_URL": provider_server.url + "/v1"}
    provider_server.proposals = {"proposals": []}
    chat = build_chat_model(spec, environ=environ)
    reply = model_for_round(spec, chat, structured=False)(CONTRACT).invoke(PROMPT)
    assert json.loads(reply.content) == {"proposals": []}


# --- a JSON stage (JsonReply): the schema as the stage wrote it, the JSON text back ------------
def _json_contract():
    from engine.stages.contract import JsonReply

    bounded = {"type": "object", "properties": {"verdicts": {"type": "array", "maxItems": 3}},
               "required": ["verdicts"]}
    strict = {"type": "object", "properties": {"verdicts": {"type": "array"}},
              "required": ["verdicts"], "additionalProperties": False}
    return RoundContract(("a", "b"), JsonReply(bounded, strict), stage="review")


def test_a_json_stage_gets_its_schema_and_the_json_text_back():
    chat = FakeStructuredChat(reply={"verdicts": [{"id": "a", "valid": False}]})
    reply = structured_rounds(chat)(_json_contract()).invoke(PROMPT)
    assert json.loads(reply.content) == {"verdicts": [{"id": "a", "valid": False}]}
    assert reply.usage_metadata["input_tokens"] == 11
    schema, options = chat.asked[-1]
    assert schema["title"] == "review_reply" and schema["properties"]["verdicts"]["maxItems"] == 3


def test_strict_providers_get_the_strict_schema():
    chat = FakeStructuredChat(reply={"verdicts": []})
    structured_rounds(chat, bounded=False)(_json_contract()).invoke(PROMPT)
    schema, _ = chat.asked[-1]
    assert schema["additionalProperties"] is False and "maxItems" not in json.dumps(schema)


def test_an_undecodable_json_reply_hands_the_raw_text_on():
    chat = FakeStructuredChat(reply=None, raw_text="I refuse")
    reply = structured_rounds(chat)(_json_contract()).invoke(PROMPT)
    assert reply.content == "I refuse"
    assert "not JSON" in reply.response_metadata["structured_error"]
