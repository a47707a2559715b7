"""What the negatives stage says of one belief, and how a reply (or a proposals file) is read
into such verdicts. Never raises.

A verdict: `negative` true (the belief states a problem: its `kind`, one of KINDS) or false
(it states none: describing how errors are handled, a limit that is a design choice, is not
a problem). The reply shapes tolerated are those of engine/stages/replies.find_items.

Diagnosed (each asks for the one retry): no verdicts at all; an item that is not an object;
no id, or an id the round did not show; `negative` missing or not a yes/no; a negative
verdict without a known kind; a second verdict on the same belief. A belief shown that no
answer names is passed over (not a problem: engine/stages/turns.py shows it again after the
others had their turn). Nothing is decided by default: a belief without a readable verdict
stays unjudged.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from engine.results import JsonValue

from engine.stages.item_reader import (
    CheckedParse,
    OnBelief,
    VerdictReader,
    combine_answers,
    read_items,
)
from engine.stages.item_reader import flat_text as _text
from engine.stages.replies import ReplyShape, bare_id, keyword

KINDS = ("bug", "risk", "limitation", "gap", "debt", "open-issue")
SHAPE = ReplyShape("verdicts", ("id", "negative"))
Expected = Mapping[str, str]  # id -> the sha256 of the text the round showed
_YES = {"true", "yes", "negative"}
_NO = {"false", "no", "not-negative", "none"}


@dataclass(frozen=True)
class NegativeVerdict(OnBelief):
    belief: str
    negative: bool
    kind: str = ""  # for a negative one: one of KINDS
    comment: str = ""
    shown_sha256: str = ""  # the sha256 of the text the verdict was given on
    line: int = 0  # in the reply

    def as_dict(self) -> dict[str, object]:
        return {"id": self.belief, "negative": self.negative, "kind": self.kind,
                "comment": self.comment, "shown_sha256": self.shown_sha256}


@dataclass
class NegativeParse(CheckedParse[NegativeVerdict, Expected]):
    """Verdicts read from one reply; `missing`: beliefs shown, without a verdict."""


def _yes_no(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    word = _word(value)
    return True if word in _YES else False if word in _NO else None


def _word(value: object) -> str:
    return keyword(value) if isinstance(value, str) else ""


class _Reader(VerdictReader[NegativeParse, str]):
    noun = "belief"

    def read_answer(self, obj: Mapping[str, JsonValue], line: int, seen: set[str], belief: str,
                    where: str, shown: str | None) -> None:
        negative = _yes_no(obj.get("negative"))
        if negative is None:
            self.problem(f"{where} lacks negative: true or false"
                         + ("" if obj.get("negative") is None else
                            f" (got {_text(obj.get('negative'))[:40]!r})"), line)
            return
        kind = _word(obj.get("kind")) if negative else ""
        if negative and kind not in KINDS:
            self.problem(f"{where}: a negative verdict needs a kind, one of "
                         f"{', '.join(KINDS)}" + (f" (got {kind!r})" if kind else ""), line)
            return
        if belief in seen:
            self.problem(f"{where}: a second verdict on '{belief}'; the first is kept", line)
            return
        seen.add(belief)
        sha = bare_id(obj.get("shown_sha256") or "") or (shown or "")
        self.out.items.append(NegativeVerdict(belief, negative, kind,
                                              _text(obj.get("comment")), sha, line))


def parse_reply(text: object, expected: Expected | None = None) -> NegativeParse:
    """The verdicts of a reply. `expected` (what the round showed, with each text's sha256)
    enables the id and completeness checks; without it (a proposals file) the check against
    the graph does them."""
    reader = _Reader(NegativeParse(expected=expected), expected)
    read_items(text, SHAPE, "verdict", reader, reader.read)
    return reader.finish()


def combine(first: NegativeParse, second: NegativeParse) -> NegativeParse:
    """After the retry: the second reply's verdicts, plus the first's on beliefs the second
    left out; what is still without a usable verdict stays unjudged (notes)."""
    return combine_answers(first, second, lambda: NegativeParse(expected=second.expected),
                           "left unjudged")
