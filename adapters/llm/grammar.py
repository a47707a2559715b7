"""The GBNF grammar of a round's reply, built per round from its contract: derive's markdown
format below, or a JSON stage's schema (`json_grammar`).

A decoder constrained by it can only write replies the derive parser reads:

    ### DERIVE <new-id>                 ### GATE <new-id>
    <one-sentence conclusion>           <one-sentence conclusion>
    - Antecedents: a, b                 - Antecedents: a, b
    - Mode: ALL                         - Unless: c
    - Label: <short label>              - Mode: ANY
                                        - Label: <short label>

blocks separated by a blank line, or the single line `NO PROPOSALS`. Antecedent and unless
ids are alternatives of the round's allowed ids only; a new id is kebab-case, the conclusion
one sentence (a capital first, one final period), the label a few words: all printable ASCII
on one line with bounded length, so the longest admitted reply is known
(`ReplyGrammar.max_bytes`): a
token is at least one byte, so `max_tokens = max_bytes + 1` (the end token) can never cut a
reply short.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.stages.contract import RoundContract

NO_PROPOSALS = "NO PROPOSALS"
# The parser takes ids `[a-z0-9][a-z0-9._:-]{0,199}`; the grammar admits a readable subset,
# kebab-case like the networks' ids: a word that starts with a letter, then one to four more
# words after hyphens (words of 2 to 12 letters or digits), which also bounds the reply.
ID_WORD_MIN, ID_WORD_MAX, ID_MORE_WORDS = 2, 12, 4
NEW_ID_MAX = ID_WORD_MAX + ID_MORE_WORDS * (1 + ID_WORD_MAX)
CONCLUSION_MIN, CONCLUSION_MAX = 16, 200
LABEL_MIN, LABEL_MAX = 3, 60
UNLESS_MAX = 2
BLOCK_SEPARATOR = "\n\n"


@dataclass(frozen=True)
class ReplyGrammar:
    gbnf: str
    max_bytes: int  # the longest reply (UTF-8 bytes) the grammar admits


def max_antecedents(contract: RoundContract) -> int:
    return max(contract.min_antecedents, 4)


def markdown_grammar(contract: RoundContract, *, max_proposals: int | None = None) -> ReplyGrammar:
    """The grammar of a reply to this round: at most `max_proposals` blocks (default the
    contract's), citing only `contract.allowed_ids`."""
    ids = sorted(set(contract.allowed_ids))
    blocks = min(contract.max_proposals, max_proposals or contract.max_proposals)
    if blocks < 1 or len(ids) < max(contract.min_antecedents, 1):
        return ReplyGrammar(f"root ::= {_literal(NO_PROPOSALS)}\n", len(NO_PROPOSALS))
    low, high = max(contract.min_antecedents, 1), max_antecedents(contract)
    rules = [
        f"root ::= {_literal(NO_PROPOSALS)}"
        f" | block{_more(BLOCK_SEPARATOR, 'block', 0, blocks - 1)}",
        "block ::= derive" + (" | gate" if contract.allow_gate else ""),
        'derive ::= "### DERIVE " new-id "\\n" conclusion "\\n- Antecedents: " antecedents '
        '"\\n- Mode: " mode "\\n- Label: " label',
        'gate ::= "### GATE " new-id "\\n" conclusion "\\n- Antecedents: " antecedents '
        '"\\n- Unless: " unless "\\n- Mode: " mode "\\n- Label: " label',
        f"antecedents ::= id{_more(', ', 'id', low - 1, high - 1)}",
        f"unless ::= id{_more(', ', 'id', 0, UNLESS_MAX - 1)}",
        "id ::= " + " | ".join(_literal(i) for i in ids),
        f"new-id ::= [a-z] id-word-rest ({_literal('-')} [a-z0-9] id-word-rest)"
        + _repeat(1, ID_MORE_WORDS),
        f"id-word-rest ::= [a-z0-9]{_repeat(ID_WORD_MIN - 1, ID_WORD_MAX - 1)}",
        # One sentence: no '.' inside ([ --] and [/-~]: printable ASCII less '.'), one at the end
        f'conclusion ::= [A-Z] [ --/-~]{_repeat(CONCLUSION_MIN - 2, CONCLUSION_MAX - 2)} "."',
        f"label ::= [A-Za-z] [A-Za-z ,'-]{_repeat(LABEL_MIN - 1, LABEL_MAX - 1)}",  # words
        'mode ::= "ALL" | "ANY"',
    ]
    if not contract.allow_gate:
        rules = [r for r in rules if not r.startswith(("gate ", "unless "))]
    gbnf = "\n".join(rules) + "\n"
    return ReplyGrammar(gbnf=gbnf, max_bytes=_max_reply_bytes(contract, ids, blocks))


def _max_reply_bytes(contract: RoundContract, ids: list[str], blocks: int) -> int:
    longest_id = max(len(i.encode("utf-8")) for i in ids)

    def id_list(count: int) -> int:
        return count * longest_id + (count - 1) * len(", ")

    common = (
        1 + NEW_ID_MAX  # newline after the header, the new id
        + CONCLUSION_MAX
        + len("\n- Antecedents: ") + id_list(max_antecedents(contract))
        + len("\n- Mode: ") + len("ALL")
        + len("\n- Label: ") + LABEL_MAX
    )
    derive = len("### DERIVE ") + common
    gate = len("### GATE ") + common + len("\n- Unless: ") + id_list(UNLESS_MAX)
    block = max(derive, gate) if contract.allow_gate else derive
    return max(len(NO_PROPOSALS), blocks * block + (blocks - 1) * len(BLOCK_SEPARATOR))


def _repeat(low: int, high: int) -> str:
    """GBNF bounded repetition `{low,high}`."""
    return f"{{{low},{high}}}"


def _more(separator: str, rule: str, low: int, high: int) -> str:
    """` (separator rule){low,high}`, or nothing when no more may follow."""
    return f" ({_literal(separator)} {rule}){_repeat(low, high)}" if high > 0 else ""


def _literal(text: str) -> str:
    for raw, escaped in (("\\", "\\\\"), ('"', '\\"'), ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t")):
        text = text.replace(raw, escaped)
    return f'"{text}"'


def json_grammar(schema: Mapping[str, Any]) -> str:
    """GBNF admitting exactly the JSON values of `schema` (llama.cpp's own converter), with
    every property in the order the schema lists it."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    order = list(properties) if isinstance(properties, Mapping) else None
    return json_schema_to_gbnf(json.dumps(schema), order)
