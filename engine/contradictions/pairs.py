"""Contradictions' items, prompt and reply schema: pairs shown as `## Pair <n>`, answered as
`{"pairs": [{"pair": n, "verdict": "CONTRADICTION"|"COMPATIBLE", "comment": "..."}]}`.

Every fault is diagnosed: no JSON, an item that is not an object, no or an unknown pair
number, a pair answered twice, no verdict or an unknown one, and every shown pair left
without an answer. Any of them asks for the one retry; a pair still unanswered after it stays
undecided (never read as compatible).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.model import Belief
from engine.pairs.prompt import GroupReply, groups_prompt
from engine.results import JsonValue
from engine.stages.echo import PromptEcho
from engine.stages.replies import (Diagnostic, ReplyShape, answer_again, combine_by_key,
                                   find_items, number)
from engine.stages.stage import Parsed

VERDICTS = ("CONTRADICTION", "COMPATIBLE")
REPLY_KEY = "pairs"
SHAPE = ReplyShape(REPLY_KEY, ("pair", "verdict"))
MAX_COMMENT = 500


@dataclass(frozen=True)
class ShownPair:
    n: int
    a: str
    b: str
    sha_a: str
    sha_b: str
    why: str  # "close in meaning (0.71)" or "both rest on `x`"

    @property
    def members(self) -> tuple[str, str]:
        return self.a, self.b


@dataclass(frozen=True)
class PairAnswer:
    pair: int
    verdict: str
    a: str
    b: str
    sha_a: str
    sha_b: str
    comment: str = ""

    @property
    def key(self) -> str:
        return f"pair {self.pair}"

    def as_dict(self) -> dict[str, object]:
        return {"pair": self.pair, "verdict": self.verdict, "a": self.a, "b": self.b,
                "sha_a": self.sha_a, "sha_b": self.sha_b, "comment": self.comment}


INSTRUCTIONS = """\
You are checking a network of beliefs for claims that cannot both be true.
For each pair below answer CONTRADICTION when the two statements cannot both hold (one
denies, excludes or is inconsistent with the other), else COMPATIBLE. Statements that are
merely different, or one more specific than the other, are COMPATIBLE.
"""

FORMAT = """\
Answer with one JSON object and nothing else, one entry per pair:
{"pairs": [{"pair": 1, "verdict": "CONTRADICTION", "comment": "<one sentence>"}, ...]}
"""


def build_prompt(pairs: Sequence[ShownPair], beliefs: Mapping[str, Belief],
                 dependents: Mapping[str, int], *, domain: str = "") -> str:
    return groups_prompt(INSTRUCTIONS, [(f"## Pair {p.n} ({p.why})", (p.a, p.b)) for p in pairs],
                         beliefs, dependents, FORMAT, domain=domain)


def retry_text(diagnostics: Sequence[Diagnostic]) -> str:
    return answer_again(diagnostics, what="pair", answer_format=FORMAT)


def reply_schema(pairs: Sequence[ShownPair], *, bounded: bool) -> dict[str, object]:
    comment: dict[str, object] = {"type": "string"}
    item: dict[str, object] = {
        "type": "object",
        "properties": {"pair": {"type": "integer", "enum": [p.n for p in pairs]},
                       "verdict": {"type": "string", "enum": list(VERDICTS)},
                       "comment": comment},
        "required": ["pair", "verdict", "comment"],
        "additionalProperties": False,
    }
    listing: dict[str, object] = {"type": "array", "items": item}
    if bounded:
        comment["maxLength"] = 300
        listing.update(minItems=len(pairs), maxItems=len(pairs))
    return {"type": "object", "properties": {REPLY_KEY: listing}, "required": [REPLY_KEY],
            "additionalProperties": False}


def parse_answers(reply: str, shown: Sequence[ShownPair] | None) -> Parsed[PairAnswer]:
    found = find_items(reply, SHAPE)
    diagnostics = [Diagnostic(p) for p in found.problems]
    if found.items is None:
        diagnostics.append(Diagnostic("no JSON object or list in the reply"))
    by_n = {p.n: p for p in shown} if shown is not None else None
    items: dict[int, PairAnswer] = {}
    bad: set[int] = set()
    for k, item in enumerate(found.items or [], 1):
        reason, n, answer = _read(k, item.value, by_n)
        if reason:
            diagnostics.append(Diagnostic(reason))
            if n is not None:
                bad.add(n)
        elif n in items:
            diagnostics.append(Diagnostic(f"pair {n} is answered twice"))
            bad.add(n)
        else:
            items[n] = answer
    for n in bad:
        items.pop(n, None)
    if by_n is not None:
        for n in sorted(set(by_n) - set(items) - bad):
            diagnostics.append(Diagnostic(f"pair {n}: no answer"))
    return Parsed(items=[items[n] for n in sorted(items)], diagnostics=diagnostics,
                  needs_retry=bool(diagnostics))


def _read(k: int, obj: JsonValue, by_n: Mapping[int, ShownPair] | None):
    if not isinstance(obj, dict):
        return f"item {k} is not an object", None, None
    n = number(obj.get("pair"))
    if n is None:
        return f"item {k} has no pair number", None, None
    if by_n is not None and n not in by_n:
        return f"item {k}: pair {n} was not shown", None, None
    verdict = obj.get("verdict")
    if not isinstance(verdict, str) or not verdict.strip():
        return f"pair {n}: no verdict", n, None
    verdict = verdict.strip().upper()
    if verdict not in VERDICTS:
        return (f"pair {n}: unknown verdict {obj.get('verdict')!r} "
                f"(one of {', '.join(VERDICTS)})"), n, None
    if by_n is not None:
        s = by_n[n]
        a, b, sha_a, sha_b = s.a, s.b, s.sha_a, s.sha_b
    else:
        a, b, sha_a, sha_b = (str(obj.get(x) or "") for x in ("a", "b", "sha_a", "sha_b"))
        if not all(isinstance(obj.get(x), str) and obj.get(x)
                   for x in ("a", "b", "sha_a", "sha_b")):
            return f"pair {n}: the file gives no ids with their text hashes", n, None
    comment = obj.get("comment")
    return "", n, PairAnswer(n, verdict, a, b, sha_a, sha_b,
                             comment[:MAX_COMMENT] if isinstance(comment, str) else "")


def combine_answers(first: Parsed[PairAnswer], second: Parsed[PairAnswer]) -> Parsed[PairAnswer]:
    return combine_by_key(first, second, lambda a: a.pair)


PAIRS = GroupReply(build_prompt, reply_schema, parse_answers, retry_text, combine_answers,
                   PromptEcho.of(FORMAT))
