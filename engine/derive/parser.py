"""Reads a model's reply (or a proposals file) into proposals and diagnostics.

Two formats:
- the current one (engine/derive/proposals.py FORMAT): `### DERIVE id` / `### GATE id`, then
  the conclusion, `- Antecedents:`, `- Unless:` (GATE), `- Mode:`, `- Label:`;
- the legacy v0.9 one, so old reports can be re-read: `### DERIVE: \\`id\\`` /
  `### GATE (outlist): \\`id\\``, `- **Antecedents**:`, `- **Unless**:`, `- **Label**:`, no Mode.

Tolerated, since they do not change the meaning: CRLF or CR line ends, trailing spaces, blank
lines between fields, backticks (or bold) around ids, any letter case in the DERIVE/GATE
keyword, in field names and in Mode, a missing bullet before a field, bold field names in
either format, `Unless: none` on a DERIVE, a header at level 2 or 4 or numbered
(`### 2. DERIVE id`), a reply wrapped in a code fence. Never accepted: a block without a
conclusion, without Antecedents or without Label, a Mode other than ALL/ANY, a GATE without
Unless, a field given twice, a header without exactly one id.

Every `### DERIVE|GATE` header yields a proposal or one diagnostic (its line and every reason),
and so does any other heading naming DERIVE or GATE in capitals: nothing is dropped silently.
The parser is line-by-line and linear in the reply's length; a reply beyond MAX_REPLY_CHARS
is parsed up to that point, with a note saying so.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from engine.derive.proposals import Mode, Proposal, ProposalKind
from engine.stages.replies import Diagnostic

MAX_REPLY_CHARS = 1_000_000

# `### DERIVE id` in any letter case; at level 2 or 4 only with the keyword in capitals (so
# "## Gate analysis" stays a heading); an optional number or bold around the keyword.
_HEADER = re.compile(
    r"^\s{0,3}###\s*(?:\d{1,3}[.):]\s*)?(?:\*\*)?(DERIVE|GATE)\b(?:\*\*)?(.*)$",
    re.IGNORECASE)
_HEADER_CAPS = re.compile(
    r"^\s{0,3}(?:##|####)\s*(?:\d{1,3}[.):]\s*)?(?:\*\*)?(DERIVE|GATE)\b(?:\*\*)?(.*)$")
# A heading that names DERIVE or GATE (in capitals) but is not a header: counted as a block
# and rejected, so a proposal in a format we do not read is never dropped silently.
_NEAR_HEADER = re.compile(r"^\s{0,3}#{1,6}.*\b(DERIVE|GATE)\b")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(\s|$)")
_RULE = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")
# Applied to a stripped line. Written so that no two unbounded runs of spaces meet (no
# quadratic backtracking on lines of garbage whitespace).
_FIELD = re.compile(
    r"(?:[-*+]\s+)?(?:(\*\*|__)\s*)?(antecedents|unless|mode|label)\s*(?:(\*\*|__)\s*)?:"
    r"\s*(?:(?:\*\*|__)\s*)?(.*)",
    re.IGNORECASE,
)
_NO_PROPOSALS = re.compile(r"^NO\s+PROPOSALS[.!]?$", re.IGNORECASE)
_EMPTY_UNLESS = {"", "none", "n/a", "-", "(none)", "nothing"}
_FIELD_NAMES = {"antecedents": "Antecedents", "unless": "Unless", "mode": "Mode", "label": "Label"}


@dataclass
class ParseResult:
    proposals: list[Proposal] = field(default_factory=list)
    rejected: list[Diagnostic] = field(default_factory=list)  # one per rejected block
    notes: list[Diagnostic] = field(default_factory=list)  # about the reply as a whole
    blocks: int = 0  # `### DERIVE|GATE` headers seen
    no_proposals: bool = False  # an explicit NO PROPOSALS line
    formats: set[str] = field(default_factory=set)  # "current", "legacy"

    @property
    def is_format_failure(self) -> bool:
        """Nothing parsable and no NO PROPOSALS line: not saturation, a broken reply."""
        return not self.proposals and not self.no_proposals

    # What the stage machinery reads (engine.stages.stage.ParsedReply).
    @property
    def items(self) -> list[Proposal]:
        return self.proposals

    @property
    def needs_retry(self) -> bool:
        return self.is_format_failure

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return self.rejected + self.notes

    def as_dict(self) -> dict[str, object]:
        return {
            "blocks": self.blocks,
            "parsed": len(self.proposals),
            "rejected": [d.as_dict() for d in self.rejected],
            "notes": [d.as_dict() for d in self.notes],
            "no_proposals": self.no_proposals,
            "formats": sorted(self.formats),
        }


def parse_reply(text: object) -> ParseResult:
    """Parse a reply. Never raises on any input."""
    result = ParseResult()
    if text is None:
        text = ""
    if not isinstance(text, str):
        text = str(text)
    if not text.strip():
        result.notes.append(Diagnostic("the reply is empty"))
        return result
    if len(text) > MAX_REPLY_CHARS:
        result.notes.append(Diagnostic(
            f"the reply has {len(text)} characters; only the first {MAX_REPLY_CHARS} were read"))
        text = text[:MAX_REPLY_CHARS]
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")

    block: _Block | None = None
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip()
        header = _HEADER.match(line) or _HEADER_CAPS.match(line)
        if header:
            if block is not None:
                _finish(block, result)
            result.blocks += 1
            block = _Block(number, header.group(1).upper(), header.group(2))
            continue
        near = _NEAR_HEADER.match(line) if line.lstrip().startswith("#") else None
        if near:
            if block is not None:
                _finish(block, result)
                block = None
            result.blocks += 1
            result.rejected.append(Diagnostic(
                f"{line.strip()[:120]!r} is not a `### {near.group(1)} <id>` header", number))
            continue
        if block is not None and (_HEADING.match(line) or _RULE.match(line)):
            _finish(block, result)
            block = None
        if _is_no_proposals(line):
            result.no_proposals = True
            if block is not None:
                _finish(block, result)
                block = None
            continue
        if block is not None:
            block.take(number, line)
    if block is not None:
        _finish(block, result)
    if result.blocks == 0 and not result.no_proposals:
        result.notes.append(Diagnostic(
            "no `### DERIVE <id>` or `### GATE <id>` block and no NO PROPOSALS line"))
    return result


def _is_no_proposals(line: str) -> bool:
    bare = line.strip().strip("*_`").strip()
    return bool(_NO_PROPOSALS.match(bare))


def _bare_id(token: str) -> str:
    return token.strip().strip("`*").strip()


def _split_ids(value: str) -> tuple[str, ...]:
    return tuple(i for i in (_bare_id(part) for part in value.split(",")) if i)


class _Block:
    def __init__(self, line: int, keyword: str, rest: str):
        self.line = line
        self.kind = ProposalKind(keyword)
        self.problems: list[str] = []
        self.legacy = False
        self.id = self._header_id(rest)
        self.text_parts: list[str] = []
        self.fields: dict[str, str] = {}
        self.seen_field = False

    def _header_id(self, rest: str) -> str:
        rest = rest.strip()
        outlist = re.match(r"\(\s*outlist\s*\)", rest, re.IGNORECASE)
        if outlist:
            self.legacy = True
            rest = rest[outlist.end():].strip()
        if rest.startswith(":"):
            self.legacy = True
            rest = rest[1:].strip()
        if rest.startswith("`") and rest.count("`") >= 2:
            inner, _, after = rest[1:].partition("`")
            tokens = [inner.strip()] + after.split()
        else:
            tokens = rest.split()
        if not tokens or not _bare_id(tokens[0]):
            self.problems.append(f"no id after ### {self.kind.value}")
            return ""
        if len(tokens) > 1:
            self.problems.append(
                f"the header must be `### {self.kind.value} <id>` with one id, got {rest!r}")
        return _bare_id(tokens[0])

    def take(self, number: int, line: str) -> None:
        if not line.strip():
            return
        m = _FIELD.fullmatch(line.strip())
        if m:
            self.seen_field = True
            name = m.group(2).lower()
            if m.group(1) or m.group(3):
                self.legacy = True
            if name in self.fields:
                self.problems.append(f"{_FIELD_NAMES[name]} given twice (line {number})")
                return
            self.fields[name] = m.group(4).strip()
            return
        if not self.seen_field:
            self.text_parts.append(line.strip())
        # text after the fields is commentary, not part of the block

    def proposal(self) -> Proposal | None:
        problems = list(self.problems)
        text = " ".join(self.text_parts).strip()
        if not text:
            problems.append("no conclusion text")
        antecedents: tuple[str, ...] = ()
        if "antecedents" not in self.fields:
            problems.append("no Antecedents line")
        else:
            antecedents = _split_ids(self.fields["antecedents"])
            if not antecedents:
                problems.append("Antecedents is empty")
        unless: tuple[str, ...] = ()
        raw_unless = self.fields.get("unless")
        if raw_unless is not None and _bare_id(raw_unless).lower() not in _EMPTY_UNLESS:
            unless = _split_ids(raw_unless)
        if self.kind is ProposalKind.GATE and not unless:
            problems.append("a GATE needs an Unless line naming the ids that must be OUT")
        mode = Mode.ALL
        raw_mode = self.fields.get("mode")
        if raw_mode is not None:
            word = raw_mode.strip().strip("`*").strip().upper()
            if word in ("ALL", "ANY"):
                mode = Mode(word)
            else:
                problems.append(f"Mode must be ALL or ANY, got {raw_mode!r}")
        label = self.fields.get("label", "").strip()
        if "label" not in self.fields:
            problems.append("no Label line")
        elif not label:
            problems.append("Label is empty")
        if problems:
            self.problems = problems
            return None
        return Proposal(self.kind, self.id, text, antecedents, unless, mode, label, self.line)


def _finish(block: _Block, result: ParseResult) -> None:
    proposal = block.proposal()
    result.formats.add("legacy" if block.legacy else "current")
    if proposal is None:
        where = f"### {block.kind.value} {block.id}".rstrip()
        result.rejected.append(Diagnostic(f"{where}: " + "; ".join(block.problems), block.line))
    else:
        result.proposals.append(proposal)
