"""Reads a review reply (or a proposals file) into verdicts and diagnostics. Never raises.

The reply is one JSON value holding the verdicts. Tolerated: the object `{"verdicts": [...]}`
(what structured output and the grammar give), a bare array, a single verdict object, a code
fence around either, prose before and after, JSON lines (one verdict object per line), a
trailing comma, `"valid": "true"` as a string, `"justification": "2"` or `"#2"`, backticks
around ids, any letter case in mode and reason type.

Diagnosed, each with its reason and line: a reply with no JSON array or verdict object in it;
an item that is not an object; an item with no id, or naming a belief the round did not show;
no justification number, or one the belief was not shown with; no `valid`, or a `valid` that
is not true or false; a second verdict on the same justification (the first is kept); and
every justification left without a verdict of a belief the reply does judge. Any of these
asks for the one retry. A belief shown that no verdict names at all is passed over, not a
problem (engine/stages/item_reader.py): the run shows it again after the others. Only noted
(no retry): an optional field with a value outside its range, which is then ignored.
Nothing is ever taken as valid by default: a justification without a readable verdict stays
unreviewed.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from engine.results import JsonValue

from engine.review.verdicts import (
    MODES,
    NO_REASON,
    REASON_TYPES,
    UNCLASSIFIED,
    AntecedentFinding,
    Verdict,
    key,
)
from engine.stages.item_reader import CheckedParse, JustificationReader, read_items, unanswered
from engine.stages.item_reader import flat_text as _text
from engine.stages.replies import ReplyShape, bare_id, second_fills_gaps

SHAPE = ReplyShape("verdicts", ("id", "justification"))
# What the round showed: belief id -> justification positions -> its antecedent ids.
Expected = Mapping[str, Mapping[int, Sequence[str]]]


@dataclass
class ReviewParse(CheckedParse[Verdict, Expected]):
    """Verdicts read from one reply; `missing`: justification keys shown, not judged."""


def _boolean(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


class _Reader(JustificationReader[ReviewParse, Sequence[str]]):
    label = "verdict"
    what = "belief "

    def read_answer(self, obj: Mapping[str, JsonValue], line: int, seen: set[str], belief: str,
                    where: str, shown: Mapping[int, Sequence[str]] | None, position: int
                    ) -> None:
        valid = _boolean(obj.get("valid"))
        if valid is None:
            self.problem(f"{where} #{position} lacks `valid`" if "valid" not in obj else
                         f"{where} #{position}: valid must be true or false, got "
                         f"{_text(obj['valid'])[:40]!r}", line)
            return
        k = key(belief, position)
        if k in seen:
            self.problem(f"{where}: a second verdict on {k}; the first is kept", line)
            return
        seen.add(k)
        antecedents = tuple(shown[position]) if shown is not None else None
        self.out.items.append(self.verdict(obj, belief, position, valid, antecedents, line))

    def verdict(self, obj: Mapping[str, object], belief: str, position: int, valid: bool,
                antecedents: tuple[str, ...] | None, line: int) -> Verdict:
        k = key(belief, position)
        flags = {}
        for name in ("sufficient", "necessary"):
            raw = obj.get(name)
            flags[name] = _boolean(raw)
            if raw is not None and flags[name] is None:
                self.note(f"{k}: {name} {_text(raw)[:40]!r} is not true or false; ignored", line)
        unnecessary: list[str] = []
        raw_list = obj.get("unnecessary_antecedents") or []
        for item in raw_list if isinstance(raw_list, list) else [raw_list]:
            ident = bare_id(item)
            if antecedents is not None and ident not in antecedents:
                self.note(f"{k}: unnecessary antecedent {ident!r} is not an antecedent of this "
                          "justification; ignored", line)
            elif ident and ident not in unnecessary:
                unnecessary.append(ident)
        mode = None
        if obj.get("mode") is not None:
            word = bare_id(obj["mode"]).upper()
            if word in MODES:
                mode = word
            else:
                self.note(f"{k}: mode {_text(obj['mode'])[:40]!r} is not ALL or ANY; ignored",
                          line)
        reason = bare_id(obj.get("reason_type") or obj.get("defeat_reason_type") or "")
        reason = reason.lower().replace("_", "-").replace(" ", "-")
        if valid:
            reason = ""
        elif reason not in REASON_TYPES:
            if reason and reason != NO_REASON:
                self.note(f"{k}: reason type {reason!r} is not one of the seven; recorded as "
                          f"{UNCLASSIFIED}", line)
            reason = UNCLASSIFIED
        findings = []
        given = obj.get("antecedents") or obj.get("scope_findings")
        for f in given if isinstance(given, list) else []:
            if isinstance(f, dict) and bare_id(f.get("id")):
                findings.append(AntecedentFinding(
                    bare_id(f.get("id")), _text(f.get("establishes")),
                    _text(f.get("does_not_establish") or f.get("does_not"))))
        return Verdict(
            belief=belief, justification=position, valid=valid,
            sufficient=flags["sufficient"], necessary=flags["necessary"],
            unnecessary_antecedents=tuple(unnecessary), mode=mode, reason_type=reason,
            missing_property=_text(obj.get("missing_property")),
            comment=_text(obj.get("comment")), antecedents=tuple(findings),
            shown_sha256=bare_id(obj.get("shown_sha256") or ""), line=line)

    def finish(self) -> ReviewParse:
        if self.expected is not None:
            left = unanswered(self.expected, {v.key for v in self.out.items})
            self.unanswered(((k, belief) for k, belief, _ in left), _no_verdict)
        return self.out


def _no_verdict(key: str, belief: str) -> str:
    return f"no verdict on {key} (belief '{belief}', justification {key.rsplit('#', 1)[1]})"


def parse_reply(text: object, expected: Expected | None = None) -> ReviewParse:
    """The verdicts of a reply. `expected` (what the round showed) enables the id, number and
    completeness checks; without it (a proposals file) the graph checks them later."""
    reader = _Reader(ReviewParse(expected=expected), expected)
    read_items(text, SHAPE, "verdict", reader, reader.read)
    return reader.finish()


def combine(first: ReviewParse, second: ReviewParse) -> ReviewParse:
    """After the retry: the second reply's verdicts, plus the first's on justifications the
    second left out. What is still missing stays diagnosed, and stays unreviewed; the round
    counts as a format failure only when the second reply still has a problem and no verdict
    was read at all (a well-formed second reply that judges nothing is a dry round)."""
    by_key = second_fills_gaps(first.items, second.items, lambda v: v.key)
    judged = set(by_key)
    still_missing = [k for k in second.missing if k not in judged]
    covered = set(second.missing) - set(still_missing)
    diagnostics = [d for d in second.diagnostics
                   if not any(d.reason.startswith(f"no verdict on {k} ") for k in covered)]
    merged = ReviewParse(items=list(by_key.values()), notes=first.notes + second.notes,
                         missing=still_missing,
                         passed_over=[k for k in second.passed_over if k not in judged],
                         expected=second.expected)
    # The merged parse asks for no further retry; what is left unjudged is recorded as notes.
    if merged.items:
        merged.notes = diagnostics + merged.notes
    else:
        merged.diagnostics = diagnostics
    return merged
