"""The per-round GBNF grammar: what it admits, checked with llama.cpp's own grammar engine
(token by token, as decoding would), and by sampling the real model under it."""
from __future__ import annotations

import ctypes
import json

import pytest
from langchain_core.messages import HumanMessage

from adapters.llm import grammar as g
from adapters.llm.grammar import json_grammar, markdown_grammar
from adapters.llm.local import check_grammar, grammar_rounds
from engine.stages.contract import RoundContract
from engine.derive.parser import parse_reply
from engine.errors import ModelError

IDS = ("cache-ttl-60s", "reads-from-cache", "writes-invalidate")
CONTRACT = RoundContract.markdown(IDS, min_antecedents=2, max_proposals=2)
GOOD = """### DERIVE cache-serves-stale-reads
Reads may see data up to a minute old.
- Antecedents: cache-ttl-60s, reads-from-cache
- Mode: ALL
- Label: TTL bounds staleness"""
GATE = """### GATE cache-is-fresh
Cached reads are fresh, unless the TTL is long.
- Antecedents: writes-invalidate, reads-from-cache
- Unless: cache-ttl-60s
- Mode: ANY
- Label: Invalidation keeps reads fresh"""


def id_alternatives(gbnf: str) -> list[str]:
    (rule,) = [line for line in gbnf.splitlines() if line.startswith("id ::= ")]
    return [alt.strip().strip('"') for alt in rule.removeprefix("id ::= ").split(" | ")]


def test_the_only_citable_ids_are_the_rounds():
    assert id_alternatives(markdown_grammar(CONTRACT).gbnf) == sorted(IDS)


def test_too_few_ids_leave_only_no_proposals():
    grammar = markdown_grammar(RoundContract.markdown(("only-one",), min_antecedents=2))
    assert grammar.gbnf == 'root ::= "NO PROPOSALS"\n'


def test_no_gate_rule_when_gates_are_not_allowed():
    gbnf = markdown_grammar(RoundContract.markdown(IDS, allow_gate=False)).gbnf
    assert "GATE" not in gbnf and "unless" not in gbnf


def test_ids_are_escaped_as_gbnf_literals():
    assert id_alternatives(markdown_grammar(RoundContract.markdown(('a"b', "c\\d"))).gbnf) == ['a\\"b', "c\\\\d"]


def longest_reply(contract: RoundContract, blocks: int) -> str:
    longest_id = max(contract.allowed_ids, key=len)
    ids = ", ".join([longest_id] * g.max_antecedents(contract))
    block = "\n".join([
        "### GATE " + "a" * g.ID_WORD_MAX + ("-" + "b" * g.ID_WORD_MAX) * g.ID_MORE_WORDS,
        "C" + "x" * (g.CONCLUSION_MAX - 2) + ".",
        f"- Antecedents: {ids}",
        "- Unless: " + ", ".join([longest_id] * g.UNLESS_MAX),
        "- Mode: ALL",
        "- Label: " + "L" * g.LABEL_MAX,
    ])
    return "\n\n".join([block] * blocks)


def test_max_bytes_is_the_longest_admitted_reply():
    assert markdown_grammar(CONTRACT).max_bytes == len(longest_reply(CONTRACT, 2).encode())


# --- with llama.cpp's grammar engine (needs llama-cpp-python and the SmolLM2 file) ---------


def admits(llama, gbnf: str, text: str) -> bool:
    """Whether llama.cpp's grammar sampler lets the model write `text` and then stop."""
    import llama_cpp

    sampler = llama_cpp.llama_sampler_init_grammar(llama._model.vocab, gbnf.encode(), b"root")
    assert sampler, "llama.cpp rejected the grammar"
    try:
        for token in [*llama.tokenize(text.encode(), add_bos=False, special=False), llama.token_eos()]:
            candidate = (llama_cpp.llama_token_data * 1)(llama_cpp.llama_token_data(token, 0.0, 0.0))
            array = llama_cpp.llama_token_data_array(candidate, 1, -1, False)
            llama_cpp.llama_sampler_apply(sampler, ctypes.byref(array))
            if candidate[0].logit == float("-inf"):
                return False
            if token != llama.token_eos():
                llama_cpp.llama_sampler_accept(sampler, token)
        return True
    finally:
        llama_cpp.llama_sampler_free(sampler)


@pytest.fixture(scope="module")
def llama(smollm2):
    return smollm2._llama


@pytest.mark.local_model
@pytest.mark.slow
def test_llama_cpp_parses_the_grammar(llama):
    check_grammar(llama, markdown_grammar(CONTRACT).gbnf)
    with pytest.raises(ModelError):
        check_grammar(llama, "root ::= undefined-rule")


@pytest.mark.local_model
@pytest.mark.slow
@pytest.mark.parametrize(
    "reply",
    ["NO PROPOSALS", GOOD, GATE, GOOD + "\n\n" + GATE, GOOD.replace("reads-from-cache", "reads-from-cache, writes-invalidate")],
    ids=["none", "derive", "gate", "two", "three-antecedents"],
)
def test_admitted(llama, reply):
    assert admits(llama, markdown_grammar(CONTRACT).gbnf, reply)


@pytest.mark.local_model
@pytest.mark.slow
@pytest.mark.parametrize(
    "reply",
    [
        GOOD.replace("reads-from-cache", "reads-from-disk"),  # an id not in the round
        GOOD.replace("cache-ttl-60s, reads-from-cache", "cache-ttl-60s"),  # too few antecedents
        GATE.replace("- Unless: cache-ttl-60s", "- Unless: the-weather"),  # unknown unless id
        GATE.replace("- Unless: cache-ttl-60s\n", ""),  # a GATE without Unless
        GOOD.replace("- Mode: ALL", "- Mode: SOME"),
        GOOD.replace("Reads may see data up to a minute old.", "reads may. see data"),  # not a sentence
        GOOD.replace("\n- Label: TTL bounds staleness", ""),
        "\n\n".join([GOOD, GOOD, GOOD]),  # more blocks than max_proposals
        GOOD + "\nAnd some commentary.",
        GOOD.replace("cache-serves-stale-reads", "stale"),  # not kebab-case
        GOOD.replace("cache-serves-stale-reads", "Cache-Stale"),
        "NO PROPOSALS\n" + GOOD,
        "Sure! Here are my proposals:\n" + GOOD,
    ],
    ids=["unknown-id", "one-antecedent", "unknown-unless", "gate-without-unless", "bad-mode",
         "not-a-sentence", "no-label", "too-many", "trailing-text", "one-word-id", "upper-case-id", "none-then-block", "preamble"],
)
def test_refused(llama, reply):
    assert not admits(llama, markdown_grammar(CONTRACT).gbnf, reply)


@pytest.mark.local_model
@pytest.mark.slow
def test_no_gate_when_gates_are_not_allowed(llama):
    assert not admits(llama, markdown_grammar(RoundContract.markdown(IDS, allow_gate=False)).gbnf, GATE)


@pytest.mark.local_model
@pytest.mark.slow
def test_the_longest_reply_is_admitted_and_one_more_character_is_not(llama):
    gbnf = markdown_grammar(CONTRACT).gbnf
    longest = longest_reply(CONTRACT, 2)
    assert admits(llama, gbnf, longest)
    assert not admits(llama, gbnf, longest + "L")


@pytest.mark.local_model
@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sampled_replies_parse_and_cite_only_the_rounds_ids(smollm2, seed):
    chat = smollm2.model_copy(update={"seed": seed, "temperature": 1.0, "max_proposals": 1})
    chat._llama, chat._formatter = smollm2._llama, smollm2._formatter  # share the loaded model
    prompt = "Beliefs: " + "; ".join(IDS) + ". Propose one derived belief."
    reply = grammar_rounds(chat)(CONTRACT).invoke([HumanMessage(prompt)])
    parsed = parse_reply(reply.content)
    assert parsed.rejected == [] and (parsed.proposals or parsed.no_proposals)
    for proposal in parsed.proposals:
        assert set(proposal.antecedents) | set(proposal.unless) <= set(IDS)
    assert reply.response_metadata["finish_reason"] == "stop"


# --- a JSON stage's reply: the grammar compiled from its schema -----------------------------
VERDICTS = {
    "type": "object",
    "properties": {"verdicts": {"type": "array", "maxItems": 2, "items": {
        "type": "object",
        "properties": {"id": {"type": "string", "enum": ["auth-ok", "db-ok"]},
                       "valid": {"type": "boolean"}},
        "required": ["id", "valid"], "additionalProperties": False}}},
    "required": ["verdicts"], "additionalProperties": False,
}


@pytest.mark.local_model
@pytest.mark.slow
def test_a_json_schema_becomes_a_grammar_admitting_only_its_values(llama):
    gbnf = json_grammar(VERDICTS)
    check_grammar(llama, gbnf)
    assert admits(llama, gbnf, '{"verdicts": [{"id": "auth-ok", "valid": true}]}')
    assert not admits(llama, gbnf, '{"verdicts": [{"id": "made-up", "valid": true}]}')
    assert not admits(llama, gbnf, '{"verdicts": [{"id": "auth-ok"}]}')


@pytest.mark.local_model
@pytest.mark.slow
def test_the_local_model_decodes_a_json_round_under_its_schema(smollm2):
    from engine.stages.contract import JsonReply

    contract = RoundContract(("auth-ok", "db-ok"), JsonReply(VERDICTS), stage="review")
    reply = grammar_rounds(smollm2)(contract).invoke(
        [HumanMessage("Judge auth-ok and db-ok. Reply in JSON.")])
    data = json.loads(reply.content)
    assert set(data) == {"verdicts"}
    assert all(v["id"] in ("auth-ok", "db-ok") for v in data["verdicts"])
