"""What premise review says about one premise, and how a reply (or a proposals file) is read
into such verdicts. Never raises.

A verdict: `confirmed` (the lines shown state the claim), `partial` (they state less: the
`narrower` claim they do state), `misread` (they do not state it; `kind` says how:
overgeneralized, fabricated, misread, stale). `quote` is words of the lines shown: required
for confirmed and partial, checked when a misread gives one. The reply shapes tolerated are
those of engine/stages/replies.find_items.

Diagnosed (each asks for the one retry): no verdicts at all; an item that is not an object;
no id, or an id the round did not show; a missing or unknown verdict; a quote missing, or not
found in the lines shown (forge's grounding: engine/sources/grounding.py); a partial without a
narrower claim, or with the claim itself; a second verdict on the same premise. A premise
shown that no verdict names is passed over, not a problem (engine/stages/item_reader.py): the
run shows it again after the others. Only noted: a misread whose kind is missing or unknown
(recorded as `misread`). Nothing is confirmed by default: a premise without a readable,
grounded verdict stays unreviewed.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from engine.results import JsonValue

from engine.review_premises.due import PremiseUnderReview
from engine.review_premises.window import Window
from engine.sources.grounding import clean_quote, find_quote, normalize
from engine.stages.item_reader import (
    CheckedParse,
    OnBelief,
    VerdictReader,
    combine_answers,
    read_items,
)
from engine.stages.item_reader import flat_text as _text
from engine.stages.replies import ReplyShape, bare_id, keyword

CONFIRMED, PARTIAL, MISREAD = "confirmed", "partial", "misread"
VERDICTS = (CONFIRMED, PARTIAL, MISREAD)
KINDS = ("overgeneralized", "fabricated", "misread", "stale")
SHAPE = ReplyShape("verdicts", ("id", "verdict"))
Expected = Mapping[str, PremiseUnderReview]


@dataclass(frozen=True)
class PremiseVerdict(OnBelief):
    belief: str
    verdict: str  # confirmed | partial | misread
    kind: str = ""  # for misread: overgeneralized | fabricated | misread | stale
    quote: str = ""
    narrower: str = ""  # for partial
    comment: str = ""
    quote_lines: tuple[int, int] | None = None  # where the quote stands (grounded)
    shown_sha256: str = ""  # the hash of claim + lines the verdict was given on
    line: int = 0  # in the reply

    def as_dict(self) -> dict[str, object]:
        return {"id": self.belief, "verdict": self.verdict, "kind": self.kind,
                "quote": self.quote, "narrower": self.narrower, "comment": self.comment,
                "quote_lines": list(self.quote_lines) if self.quote_lines else None,
                "shown_sha256": self.shown_sha256}


def ground(quote: str, window: Window) -> tuple[int, int] | None:
    """The lines of the window where the quote stands, or None."""
    return find_quote(quote, window.text, window.first) if quote.strip() else None


def grounding_problem(v: PremiseVerdict, window: Window, claim: str) -> str:
    """Why a verdict cannot be used against these lines ("" when it can)."""
    if v.verdict in (CONFIRMED, PARTIAL) and not v.quote.strip():
        return f"a {v.verdict} verdict needs a quote from the lines shown"
    if v.quote.strip() and ground(v.quote, window) is None:
        return (f"the quote {clean_quote(v.quote)[:80]!r} does not occur in the lines shown "
                f"({window.first}-{window.last})")
    if v.verdict == PARTIAL:
        if not v.narrower.strip():
            return "a partial verdict needs the narrower claim the lines do state"
        if normalize(v.narrower) == normalize(claim):
            return "the narrower claim is the claim itself"
    return ""


@dataclass
class PremiseParse(CheckedParse[PremiseVerdict, Expected]):
    """Verdicts read from one reply; `missing`: premises shown, without a verdict."""


class _Reader(VerdictReader[PremiseParse, PremiseUnderReview]):
    noun = "premise"

    def read_answer(self, obj: Mapping[str, JsonValue], line: int, seen: set[str], belief: str,
                    where: str, shown: PremiseUnderReview | None) -> None:
        verdict = keyword(obj.get("verdict"))
        if verdict not in VERDICTS:
            self.problem(f"{where} lacks a verdict" if not verdict else
                         f"{where}: verdict must be confirmed, partial or misread, got "
                         f"{_text(obj.get('verdict'))[:40]!r}", line)
            return
        if belief in seen:
            self.problem(f"{where}: a second verdict on '{belief}'; the first is kept", line)
            return
        kind = keyword(obj.get("kind")) if verdict == MISREAD else ""
        if verdict == MISREAD and kind not in KINDS:
            if kind:
                self.note(f"{belief}: kind {kind!r} is not one of {', '.join(KINDS)}; "
                          f"recorded as misread", line)
            kind = MISREAD
        v = PremiseVerdict(belief, verdict, kind, _text(obj.get("quote")),
                           _text(obj.get("narrower")) if verdict == PARTIAL else "",
                           _text(obj.get("comment")),
                           shown_sha256=bare_id(obj.get("shown_sha256") or "")
                           or (shown.sha256 if shown else ""), line=line)
        if shown is not None:
            reason = grounding_problem(v, shown.window, shown.text)
            if reason:
                self.problem(f"{where}: {reason}", line)
                return
            v = ground_verdict(v, shown.window)
        seen.add(belief)
        self.out.items.append(v)


def ground_verdict(v: PremiseVerdict, window: Window) -> PremiseVerdict:
    return dataclasses.replace(v, quote_lines=ground(v.quote, window))


def parse_reply(text: object, expected: Expected | None = None) -> PremiseParse:
    """The verdicts of a reply. `expected` (what the round showed) enables the id,
    completeness and grounding checks; without it (a proposals file) the check against the
    graph and the source does them."""
    reader = _Reader(PremiseParse(expected=expected), expected)
    read_items(text, SHAPE, "verdict", reader, reader.read)
    return reader.finish()


def combine(first: PremiseParse, second: PremiseParse) -> PremiseParse:
    """After the retry: the second reply's verdicts, plus the first's on premises the second
    left out. What is still without a usable verdict stays unreviewed (recorded as notes);
    the round is a format failure only when the second reply still has a problem and no
    verdict was read at all (a well-formed second reply that judges nothing is dry)."""
    return combine_answers(first, second, lambda: PremiseParse(expected=second.expected),
                           "left unreviewed")
