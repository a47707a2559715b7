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
from engine.derive.parser import parse_reply
from engine.errors import ModelError
from engine.stages.contract import RoundContract

IDS = ("cache-ttl-60s", "reads-from-cache", "writes-invalidate")
TEXTS = ("Cached reads may be stale.",)
CONTRACT = RoundContract.markdown(IDS, min_antecedents=2, max_proposals=2, shown_texts=TEXTS)
# The words a new id may use: 60s cache cached from invalidate may reads stale ttl writes;
# block 1's first word one of cache, from, may, stale, writes; block 2's of cached,
# invalidate, reads, ttl.
GOOD = """### DERIVE cache-reads-stale
Reads may see data up to a minute old.
- Antecedents: cache-ttl-60s, reads-from-cache
- Mode: ALL
- Label: TTL bounds staleness"""
GATE = """### GATE writes-invalidate-cached-reads
Cached reads are fresh, unless the TTL is long.
- Antecedents: reads-from-cache, writes-invalidate
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
    count = min(g.max_antecedents(contract), len(contract.allowed_ids))
    ids = ", ".join(sorted(sorted(contract.allowed_ids, key=len, reverse=True)[:count]))
    words = g.id_words([*contract.allowed_ids, *contract.shown_texts])
    longest_word = max(words, key=len)
    firsts = [w for w in words if w[0].isalpha()]

    def block(k: int) -> str:
        first = max(firsts[k::blocks], key=len)
        return "\n".join([
            "### GATE " + first + ("-" + longest_word) * g.SHOWN_ID_MORE_WORDS,
            "C" + "x" * (g.CONCLUSION_WORD_MAX - 1)
            + (" " + "x" * g.CONCLUSION_WORD_MAX) * (g.CONCLUSION_MAX_WORDS - 1) + ".",
            f"- Antecedents: {ids}",
            "- Unless: " + ", ".join([longest_id] * g.UNLESS_MAX),
            "- Mode: ALL",
            "- Label: " + "L" * g.LABEL_MAX,
        ])

    return "\n\n".join(block(k) for k in range(blocks))


def test_max_bytes_is_the_longest_admitted_reply():
    assert markdown_grammar(CONTRACT).max_bytes == len(longest_reply(CONTRACT, 2).encode())


def test_new_ids_are_words_of_the_round_and_each_block_starts_from_its_own_share():
    rules, id_max = g.proposal_id_rules([*IDS, *TEXTS], 2)
    firsts = [r for r in rules if r.startswith("id-first-")]
    shares = [{a.strip().strip('"') for a in r.split(" ::= ")[1].split(" | ")} for r in firsts]
    assert shares == [{"cache", "from", "may", "stale", "writes"},
                      {"cached", "invalidate", "reads", "ttl"}]
    (words,) = [r for r in rules if r.startswith("id-word ::= ")]
    assert '"60s"' in words and '"be"' not in words  # function words are left out
    assert len(id_max) == 2


def test_antecedents_are_distinct_ids_in_sorted_order():
    rules = g.distinct_antecedent_rules(["a", "b", "c"], 2, 4)
    assert rules[0] == "antecedents ::= pick-0-1"
    assert 'pick-2-1 ::= "c" then-2-1' not in rules  # c first leaves no second antecedent
    assert 'then-2-3 ::= ""' in rules and 'then-0-1 ::= ", " pick-1-2' in rules


def test_fewer_first_words_than_blocks_allow_fewer_blocks():
    gbnf = markdown_grammar(RoundContract.markdown(("ab-12", "cd-34"), max_proposals=3)).gbnf
    assert "block-2 ::=" in gbnf and "block-3" not in gbnf


def test_without_usable_words_an_id_is_free_kebab_case():
    rules, id_max = g.proposal_id_rules(["a", "b"], 2)
    assert rules[0] == "new-id-1 ::= new-id" and id_max == [g.NEW_ID_MAX] * 2


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
    ["NO PROPOSALS", GOOD, GATE.replace("writes-invalidate-cached", "writes-invalidate"),
     GOOD + "\n\n" + GATE.replace("writes-invalidate-cached", "reads-cached"),
     GOOD.replace("reads-from-cache", "reads-from-cache, writes-invalidate")],
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
        f"{GOOD}\n\n{GOOD}\n\n{GOOD}",  # more blocks than max_proposals
        GOOD + "\nAnd some commentary.",
        GOOD.replace("cache-reads-stale", "stale"),  # one word
        GOOD.replace("cache-reads-stale", "Cache-Stale"),
        GOOD.replace("cache-reads-stale", "cache-serves-stale"),  # a word not shown
        GOOD.replace("cache-reads-stale", "cache-reads-stale-from-may-ttl-writes"),  # 7 words
        GOOD + "\n\n" + GOOD,  # the same id twice
        GOOD.replace("reads-from-cache", "cache-ttl-60s"),  # one antecedent twice
        GOOD.replace("cache-ttl-60s, reads-from-cache", "reads-from-cache, cache-ttl-60s"),
        GOOD.replace("Reads may see data up to a minute old.", "Reads are stale."),  # 3 words
        GOOD.replace("Reads may see data up to a minute old.", "<one-sentence conclusion>."),
        "NO PROPOSALS\n" + GOOD,
        "Sure! Here are my proposals:\n" + GOOD,
    ],
    ids=["unknown-id", "one-antecedent", "unknown-unless", "gate-without-unless", "bad-mode",
         "not-a-sentence", "no-label", "too-many", "trailing-text", "one-word-id", "upper-case-id",
         "unshown-word", "seven-words", "same-id-twice", "antecedent-twice", "unsorted",
         "three-word-claim", "placeholder",
         "none-then-block", "preamble"],
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


@pytest.mark.local_model
def test_free_text_in_a_json_reply_cannot_copy_a_placeholder(llama):
    schema = {"type": "object", "properties": {
        "comment": {"type": "string", "maxLength": 40},
        "id": {"type": "string", "enum": ["<kept>"]}},
        "required": ["comment", "id"], "additionalProperties": False}
    gbnf = json_grammar(schema)
    assert admits(llama, gbnf, '{"comment": "Both can hold.", "id": "<kept>"}')
    assert not admits(llama, gbnf, '{"comment": "<one sentence>", "id": "<kept>"}')
    assert not admits(llama, gbnf, '{"comment": "a < b", "id": "<kept>"}')  # the price of it
    assert not admits(llama, gbnf, '{"comment": "' + "x" * 41 + '", "id": "<kept>"}')
