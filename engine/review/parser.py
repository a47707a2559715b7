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
every justification shown that no verdict covers. Any of these asks for the one retry. Only
noted (no retry): an optional field with a value outside its range, which is then ignored.
Nothing is ever taken as valid by default: a justification without a readable verdict stays
unreviewed.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.review.verdicts import (
    MODES,
    NO_REASON,
    REASON_TYPES,
    UNCLASSIFIED,
    AntecedentFinding,
    Verdict,
    key,
)
from engine.stages.replies import (Diagnostic, ReplyShape, bare_id, find_items, line_of, number,
                                   second_fills_gaps)

MAX_REPLY_CHARS = 500_000
SHAPE = ReplyShape("verdicts", ("id", "justification"))
# What the round showed: belief id -> justification positions -> its antecedent ids.
Expected = Mapping[str, Mapping[int, Sequence[str]]]


@dataclass
class ReviewParse:
    """Verdicts read from one reply (engine.stages.stage.ParsedReply)."""

    items: list[Verdict] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)  # each asks for the retry
    notes: list[Diagnostic] = field(default_factory=list)  # ignored values; no retry
    missing: list[str] = field(default_factory=list)  # justification keys shown, not judged
    expected: Expected | None = None
    nothing_to_say: bool = False  # review has no "nothing": every justification needs a verdict

    @property
    def needs_retry(self) -> bool:
        return bool(self.diagnostics)

    def as_dict(self) -> dict[str, Any]:
        return {"items": len(self.items), "needs_retry": self.needs_retry,
                "missing": list(self.missing),
                "diagnostics": [d.as_dict() for d in self.diagnostics],
                "notes": [d.as_dict() for d in self.notes]}


def find_verdicts(text: str) -> list[tuple[Any, int]] | None:
    """(verdict object, offset) pairs, or None when the text holds no verdicts at all."""
    found = find_items(text, SHAPE).items
    return None if found is None else [(f.value, f.offset) for f in found]


def _boolean(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


def _text(value: Any) -> str:
    if value is None:
        return ""
    return " ".join((value if isinstance(value, str) else json.dumps(value)).split())


class _Reader:
    def __init__(self, expected: Expected | None):
        self.expected = expected
        self.out = ReviewParse(expected=expected)

    def problem(self, reason: str, line: int) -> None:
        self.out.diagnostics.append(Diagnostic(reason=reason, line=line))

    def note(self, reason: str, line: int) -> None:
        self.out.notes.append(Diagnostic(reason=reason, line=line))

    def read(self, obj: Any, line: int, index: int, seen: set[str]) -> None:
        where = f"verdict {index}"
        if not isinstance(obj, dict):
            self.problem(f"{where} is not an object: {_text(obj)[:80]!r}", line)
            return
        belief = bare_id(obj.get("id") or obj.get("belief") or "")
        if not belief:
            self.problem(f"{where} has no id", line)
            return
        where = f"verdict {index} ({belief})"
        shown = None
        if self.expected is not None:
            shown = self.expected.get(belief)
            if shown is None:
                self.problem(f"{where} names belief '{belief}', which this round did not show",
                             line)
                return
        raw_number = obj.get("justification")
        position = number(raw_number)
        if position is None:
            self.problem(f"{where} has no justification number"
                         + ("" if raw_number is None else f" (got {_text(raw_number)[:40]!r})"),
                         line)
            return
        if shown is not None and position not in shown:
            numbers = ", ".join(str(k) for k in sorted(shown))
            self.problem(f"{where}: '{belief}' was shown with justification(s) {numbers}, "
                         f"not {position}", line)
            return
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

    def verdict(self, obj: Mapping[str, Any], belief: str, position: int, valid: bool,
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
        for f in obj.get("antecedents") or obj.get("scope_findings") or []:
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
            judged = {v.key for v in self.out.items}
            for belief, positions in self.expected.items():
                for position in sorted(positions):
                    k = key(belief, position)
                    if k not in judged:
                        self.out.missing.append(k)
                        self.problem(f"no verdict on {k} (belief '{belief}', justification "
                                     f"{position})", 0)
        return self.out


def parse_reply(text: object, expected: Expected | None = None) -> ReviewParse:
    """The verdicts of a reply. `expected` (what the round showed) enables the id, number and
    completeness checks; without it (a proposals file) the graph checks them later."""
    reader = _Reader(expected)
    text = "" if text is None else text if isinstance(text, str) else str(text)
    if not text.strip():
        reader.problem("the reply is empty", 0)
        return reader.finish()
    if len(text) > MAX_REPLY_CHARS:
        reader.note(f"the reply has {len(text)} characters; only the first "
                    f"{MAX_REPLY_CHARS} were read", 0)
        text = text[:MAX_REPLY_CHARS]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    found = find_verdicts(text)
    if found is None:
        reader.problem("no JSON array of verdicts (or verdict object) in the reply", 0)
        return reader.finish()
    seen: set[str] = set()
    for index, (obj, offset) in enumerate(found, start=1):
        reader.read(obj, line_of(text, offset), index, seen)
    return reader.finish()


def combine(first: ReviewParse, second: ReviewParse) -> ReviewParse:
    """After the retry: the second reply's verdicts, plus the first's on justifications the
    second left out. What is still missing stays diagnosed, and stays unreviewed; the round
    counts as a format failure only when no verdict was read at all."""
    by_key = second_fills_gaps(first.items, second.items, lambda v: v.key)
    judged = set(by_key)
    still_missing = [k for k in second.missing if k not in judged]
    covered = set(second.missing) - set(still_missing)
    diagnostics = [d for d in second.diagnostics
                   if not any(d.reason.startswith(f"no verdict on {k} ") for k in covered)]
    merged = ReviewParse(items=list(by_key.values()), notes=first.notes + second.notes,
                         missing=still_missing, expected=second.expected)
    # The merged parse asks for no further retry; what is left unjudged is recorded as notes.
    if merged.items:
        merged.notes = diagnostics + merged.notes
    else:
        merged.diagnostics = diagnostics or [Diagnostic(reason="no verdict after the retry",
                                                        line=0)]
    return merged
