"""The premise review prompt, its JSON reply schema and RETRY, the one retry's words (and
the parser's combine).

Fixed sections (the task, the verdicts and kinds, the answer format), then `## Premises to
check`, one `### <id>` block per premise: its claim, the source path with the pinned lines,
the note when the chunk was split, and the lines shown with a `n| ` gutter (the grounding
forgives a quote that copies it). Pure text building; the material comes from
engine/review_premises/due.py.
"""
from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from engine.review_premises.due import PremiseUnderReview
from engine.review_premises.verdicts import KINDS, VERDICTS, combine
from engine.stages.contract import JsonReply, verdict_per_item
from engine.stages.echo import PromptEcho
from engine.stages.item_reader import ItemsRetry

INTRO = ("You check premises of a belief network against the source each was drawn from: "
         "is the claim what the lines say?")

TASK = """\
## Task

For every premise below, read its claim and the source lines shown with it, and give one
verdict:
- confirmed: the lines state the claim (paraphrase is fine, nothing added);
- partial: the lines state less than the claim; give the narrower claim they do state;
- misread: the lines do not state it. Kind: overgeneralized (they state it of fewer cases),
  fabricated (nothing there says it), misread (they say something else), stale (they say it
  no longer holds).
Quote the words of the lines that decide it (required for confirmed and partial), copied
exactly from the lines shown, without the line numbers. Judge only from the lines shown."""

FORMAT = """\
## Answer format

Only one JSON object, one verdict per premise shown, none left out, ids exactly as shown:
{"verdicts": [{"id": "<premise id>", "verdict": "confirmed|partial|misread",
 "kind": "<for misread: overgeneralized|fabricated|misread|stale, else empty>",
 "quote": "<words copied from the lines shown>", "narrower": "<for partial: the claim the
 lines do state, else empty>", "comment": "<one sentence>"}]}"""
RETRY = ItemsRetry(without="a usable verdict", answer_format=FORMAT, combine=combine,
                   request="Reply again with a verdict on every premise shown, each quote "
                           "copied exactly from its lines, in exactly this format:")

ECHO = PromptEcho.of(FORMAT)
MAX_COMMENT = 200
MAX_QUOTE = 400


@dataclass(frozen=True)
class PremisePrompt:
    text: str
    sha256: str
    ids: tuple[str, ...]


def premise_block(p: PremiseUnderReview, budget: int) -> list[str]:
    w = p.window
    pin = f"line {w.pin[0]}" if w.pin[0] == w.pin[1] else f"lines {w.pin[0]}-{w.pin[1]}"
    lines = [f"### {p.id}", f"Claim: {p.text}",
             f"Source: {w.path}, pinned at {pin}; shown: lines {w.first}-{w.last}"]
    note = w.note(budget)
    if note:
        lines.append(note)
    lines.append("```")
    width = len(str(w.last))
    lines += [f"{str(n).rjust(width)}| {text}"
              for n, text in enumerate(w.text.split("\n"), start=w.first)]
    lines.append("```")
    return lines


def build_prompt(shown: Sequence[PremiseUnderReview], *, due_total: int, budget: int,
                 domain: str | None = None) -> PremisePrompt:
    parts = [INTRO + (f" The network is about: {domain}." if domain else ""), "", TASK, "",
             FORMAT, "", "## Premises to check", ""]
    for p in shown:
        parts += premise_block(p, budget) + [""]
    parts.append(f"({len(shown)} of {due_total} premises due for a check are shown.)")
    text = "\n".join(parts) + "\n"
    return PremisePrompt(text, hashlib.sha256(text.encode("utf-8")).hexdigest(),
                         tuple(p.id for p in shown))


def _verdict_schema(ids: Sequence[str], bounded: bool) -> dict[str, object]:
    def text(limit: int) -> dict[str, object]:
        return {"type": "string", "maxLength": limit} if bounded else {"type": "string"}

    return {"type": "object",
            "properties": {"id": {"type": "string", "enum": list(ids)},
                           "verdict": {"type": "string", "enum": list(VERDICTS)},
                           "kind": {"type": "string", "enum": ["", *KINDS]},
                           "quote": text(MAX_QUOTE), "narrower": text(MAX_QUOTE),
                           "comment": text(MAX_COMMENT)},
            "required": ["id", "verdict", "kind", "quote", "narrower", "comment"],
            "additionalProperties": False}


def json_reply(shown: Sequence[PremiseUnderReview]) -> JsonReply:
    """A tuple of one verdict per premise shown, in order, for grammars; an array of
    verdicts on the ids shown for strict structured output."""
    return verdict_per_item([p.id for p in shown], _verdict_schema)
