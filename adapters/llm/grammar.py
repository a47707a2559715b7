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
ids are alternatives of the round's allowed ids only, antecedents distinct and in sorted
order (`distinct_antecedent_rules`); a new id is 2 to 6 words of the shown
beliefs (their ids and texts) joined by hyphens, each new id at most once per reply
(`proposal_id_rules`); the conclusion one sentence of at least five words (a capital first,
one final period, no `<` or `>`), the label a few words: all printable ASCII on one line with
bounded length, so the longest admitted reply is known (`ReplyGrammar.max_bytes`): a token is
at least one byte, so `max_tokens = max_bytes + 1` (the end token) can never cut a reply
short.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.stages.contract import RoundContract

NO_PROPOSALS = "NO PROPOSALS"
# The parser takes ids `[a-z0-9][a-z0-9._:-]{0,199}`; the grammar admits a readable subset,
# kebab-case like the networks' ids: a word that starts with a letter, then one to four more
# words after hyphens (words of 2 to 12 letters or digits), which also bounds the reply.
ID_WORD_MIN, ID_WORD_MAX, ID_MORE_WORDS = 2, 12, 4
NEW_ID_MAX = ID_WORD_MAX + ID_MORE_WORDS * (1 + ID_WORD_MAX)
# A proposed id of words the round showed: 2 to 6 of them.
SHOWN_ID_MORE_WORDS = 5
ID_STOPWORDS = frozenset({"the", "an", "is", "are", "was", "be", "it", "its", "of", "to", "and",
                          "or", "this", "that", "by", "as", "at", "on", "in"})
# A conclusion: at least five words, each of 1 to 14 characters, at most 15 words.
CONCLUSION_WORD_MAX, CONCLUSION_MIN_WORDS, CONCLUSION_MAX_WORDS = 14, 5, 15
CONCLUSION_MAX = (CONCLUSION_WORD_MAX + (CONCLUSION_MAX_WORDS - 1) * (1 + CONCLUSION_WORD_MAX)
                  + 1)
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
    id_rules, id_max = proposal_id_rules([*ids, *contract.shown_texts], blocks)
    blocks = len(id_max)
    low, high = max(contract.min_antecedents, 1), max_antecedents(contract)
    kinds = ("derive", "gate") if contract.allow_gate else ("derive",)
    rules = [f"root ::= {_literal(NO_PROPOSALS)} | {_nested_blocks(blocks)}"]
    for k in range(1, blocks + 1):
        rules.append(f"block-{k} ::= " + " | ".join(f"{kind}-{k}" for kind in kinds))
        rules.append(f'derive-{k} ::= "### DERIVE " new-id-{k} derive-body')
        if contract.allow_gate:
            rules.append(f'gate-{k} ::= "### GATE " new-id-{k} gate-body')
    rules += [
        ('derive-body ::= "\\n" conclusion "\\n- Antecedents: " antecedents '
         '"\\n- Mode: " mode "\\n- Label: " label'),
        ('gate-body ::= "\\n" conclusion "\\n- Antecedents: " antecedents '
         '"\\n- Unless: " unless "\\n- Mode: " mode "\\n- Label: " label'),
        *distinct_antecedent_rules(ids, low, high),
        f"unless ::= id{_more(', ', 'id', 0, UNLESS_MAX - 1)}",
        "id ::= " + " | ".join(_literal(i) for i in ids),
        *id_rules,
        # One sentence of words: no '.', '<' or '>' inside, one '.' at the end
        (f"conclusion ::= [A-Z] conclusion-char{_repeat(0, CONCLUSION_WORD_MAX - 1)}"
        f' (" " conclusion-char{_repeat(1, CONCLUSION_WORD_MAX)})'
        f'{_repeat(CONCLUSION_MIN_WORDS - 1, CONCLUSION_MAX_WORDS - 1)} "."'),
        "conclusion-char ::= [a-zA-Z0-9,;:'%()/-]",
        f"label ::= [A-Za-z] [A-Za-z ,'-]{_repeat(LABEL_MIN - 1, LABEL_MAX - 1)}",  # words
        'mode ::= "ALL" | "ANY"',
    ]
    if not contract.allow_gate:
        rules = [r for r in rules if not r.startswith(("gate-body ", "unless "))]
    gbnf = "\n".join(rules) + "\n"
    return ReplyGrammar(gbnf=gbnf, max_bytes=_max_reply_bytes(contract, ids, id_max))


def _nested_blocks(blocks: int) -> str:
    """`block-1 ("\\n\\n" block-2 ("\\n\\n" block-3)?)?`: blocks in order, each optional
    after the first."""
    text = f"block-{blocks}"
    for k in range(blocks - 1, 0, -1):
        text = f"block-{k} ({_literal(BLOCK_SEPARATOR)} {text})?"
    return text


def distinct_antecedent_rules(ids: list[str], low: int, high: int) -> list[str]:
    """`antecedents`: `low` to `high` distinct ids of `ids` (sorted), in their sorted order,
    so a reply cannot name one antecedent twice. `pick-j-k`: the k-th id named is ids[j] or a
    later one; `then-j-k`: after ids[j] as the k-th, a later id or, once `low` are named, the
    end. Only rules from which `low` ids can still be reached exist: linear in
    len(ids) * high."""
    n, high = len(ids), min(high, len(ids))

    def can(j: int, k: int) -> bool:
        return j < n and k <= high and n - j >= max(low - k + 1, 1)

    rules = ["antecedents ::= pick-0-1"]
    for k in range(1, high + 1):
        for j in range(n):
            if not can(j, k):
                continue
            alts = [f"{_literal(ids[j])} then-{j}-{k}"]
            if can(j + 1, k):
                alts.append(f"pick-{j + 1}-{k}")
            rules.append(f"pick-{j}-{k} ::= " + " | ".join(alts))
            then = [f'", " pick-{j + 1}-{k + 1}'] if can(j + 1, k + 1) else []
            rules.append(f"then-{j}-{k} ::= " + " | ".join(then + (['""'] if k >= low else [])))
    return rules


def id_words(texts: Iterable[str]) -> list[str]:
    """The distinct words of ids and texts a proposed id may use: lower case letters and
    digits, ID_WORD_MIN to ID_WORD_MAX long, common function words left out; sorted."""
    words = {w for t in texts for w in re.split(r"[^a-z0-9]+", t.lower())}
    return sorted(w for w in words if ID_WORD_MIN <= len(w) <= ID_WORD_MAX
                  and w not in ID_STOPWORDS)


def proposal_id_rules(texts: Iterable[str], blocks: int) -> tuple[list[str], list[int]]:
    """The rules `new-id-1` .. `new-id-<blocks>` of the proposed ids: 2 to 6 words of `texts`
    (the round's ids and the shown beliefs' texts) joined by hyphens, the first word starting
    with a letter. Block k's first word comes from the k-th share of those words (dealt round
    robin), so no two blocks of one reply can name the same id. Returns the rules and, for
    each block they allow (fewer than `blocks` when there are fewer first words), the longest
    id's length in bytes. Without any usable word, the free kebab-case id."""
    words = id_words(texts)
    firsts = [w for w in words if w[0].isalpha()]
    if not firsts:
        rules = [f"new-id-{k} ::= new-id" for k in range(1, blocks + 1)] + [
            f"new-id ::= [a-z] id-word-rest ({_literal('-')} [a-z0-9] id-word-rest)"
            + _repeat(1, ID_MORE_WORDS),
            f"id-word-rest ::= [a-z0-9]{_repeat(ID_WORD_MIN - 1, ID_WORD_MAX - 1)}"]
        return rules, [NEW_ID_MAX] * blocks
    blocks = min(blocks, len(firsts))
    rules, longest = [], max(len(w) for w in words)
    id_max = []
    for k in range(1, blocks + 1):
        share = firsts[k - 1::blocks]
        id_max.append(max(len(w) for w in share) + SHOWN_ID_MORE_WORDS * (1 + longest))
        rules.append(f"new-id-{k} ::= id-first-{k} ({_literal('-')} id-word)"
                     f"{_repeat(1, SHOWN_ID_MORE_WORDS)}")
        rules.append(f"id-first-{k} ::= " + " | ".join(_literal(w) for w in share))
    rules.append("id-word ::= " + " | ".join(_literal(w) for w in words))
    return rules, id_max


def _max_reply_bytes(contract: RoundContract, ids: list[str], id_max: list[int]) -> int:
    """The longest reply: every block at its longest, block k with its longest new id."""
    longest_id = max(len(i.encode("utf-8")) for i in ids)
    by_length = sorted((len(i.encode("utf-8")) for i in ids), reverse=True)

    def id_list(count: int) -> int:
        return count * longest_id + (count - 1) * len(", ")

    def distinct_list(count: int) -> int:
        count = min(count, len(by_length))
        return sum(by_length[:count]) + (count - 1) * len(", ")

    common = (
        1  # the newline after the header
        + CONCLUSION_MAX
        + len("\n- Antecedents: ") + distinct_list(max_antecedents(contract))
        + len("\n- Mode: ") + len("ALL")
        + len("\n- Label: ") + LABEL_MAX
    )
    derive = len("### DERIVE ") + common
    gate = len("### GATE ") + common + len("\n- Unless: ") + id_list(UNLESS_MAX)
    block = max(derive, gate) if contract.allow_gate else derive
    return max(len(NO_PROPOSALS),
               sum(block + n for n in id_max) + (len(id_max) - 1) * len(BLOCK_SEPARATOR))


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
    every property in the order the schema lists it, and free text without `<` or `>`
    (`free_text_without_markers`)."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    order = list(properties) if isinstance(properties, Mapping) else None
    return json_schema_to_gbnf(json.dumps(free_text_without_markers(schema)), order)


FREE_TEXT_CHARS = '[^<>"\\\\\\x00-\\x1f]'  # regex: no <, >, ", backslash, control


def free_text_without_markers(schema: Any) -> Any:
    """`schema` with every free-text string (one without enum, const, pattern or format)
    held to characters other than `<`, `>`, `"`, `\\` and control characters, its length
    bounds kept: a grammar-bound model then cannot copy the prompt's `<...>` placeholders
    (and needs no JSON escapes)."""
    if isinstance(schema, list):
        return [free_text_without_markers(s) for s in schema]
    if not isinstance(schema, Mapping):
        return schema
    out = {k: free_text_without_markers(v) for k, v in schema.items()}
    if out.get("type") == "string" and not {"enum", "const", "pattern", "format"} & set(out):
        low, high = int(out.get("minLength", 0)), out.get("maxLength")
        count = f"{{{low},{int(high)}}}" if high is not None else (f"{{{low},}}" if low else "*")
        out["pattern"] = f"^{FREE_TEXT_CHARS}{count}$"
    return out
