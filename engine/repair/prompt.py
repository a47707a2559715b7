"""The repair prompt, its JSON reply schema and RETRY, the one retry's words (and the
parser's combine).

Fixed sections (Background, Actions, Answer format), then `## Defeated justifications`, one
`### <belief> justification <n>` block per case: the claim and the belief's label, the
justification with each antecedent's text, what defeated it (review's reason type, missing
property, per-antecedent findings and comment; or the challenge's text), and the candidate
bridges, each with its text. Pure text building.
"""
from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from engine.reading.search import SearchHit
from engine.repair.due import CHALLENGE, Defeat, Defeated
from engine.repair.parser import combine
from engine.repair.repairs import ACTIONS
from engine.stages.arguments import ShownJustification
from engine.stages.contract import JsonReply
from engine.stages.item_reader import ItemsRetry, justification_named

KEY = "repairs"
MAX_TEXT = 240
MAX_COMMENT = 160

INTRO = ("You repair a belief network. Each justification below was found unsound by a "
         "reviewer or challenged by a person, and is switched off. Decide for each what "
         "to do with it.")

BACKGROUND = """\
## Background

A reason maintenance system keeps the network. A belief holds while one of its
justifications holds: all its antecedents IN (believed) and its Unless ids OUT. A defeater
in a justification's Unless list switches that justification off; a belief left with no
justification that holds goes OUT, and what rests on it follows."""

ACTIONS_SECTION = """\
## Actions (one per justification)

- link: the step lacked a premise the network already holds. Name in `bridges` the IN
  beliefs (ids exactly as shown; candidates are listed, any IN belief may be named) that
  supply what was missing. A new justification is added: the old antecedents plus these.
  Never name the belief itself or a belief that rests on it.
- soften: the antecedents support a narrower claim. Give it in `text`, different from the
  claim; the belief is reworded and what rests on it follows the new wording.
- abandon: the claim does not follow and cannot be saved; it stays defeated.
- research: the network lacks the premise that would make the step sound. State it in
  `text` as a checkable sentence; it is recorded for someone to find out.
Every repair is reviewed again; nothing you propose is taken as valid."""

FORMAT = """\
## Answer format

Only one JSON object, with one repair per justification shown, none left out, ids and
numbers exactly as shown:
{"repairs": [{"id": "<belief id>", "justification": <n>,
 "action": "link|soften|abandon|research", "bridges": ["<IN belief id>"],
 "text": "<narrower claim, or the missing premise>", "comment": "<one sentence>"}]}
(`bridges` for link, else []; `text` for soften and research, else "")"""
RETRY = ItemsRetry(without="a usable repair", named=justification_named,
                   answer_format=FORMAT, combine=combine,
                   request="Reply again with one repair for every justification shown, in "
                           "exactly this format:")


@dataclass(frozen=True)
class RepairCase:
    """One defeated justification as the prompt shows it."""

    defeated: Defeated
    claim: str
    truth: str
    justification: ShownJustification
    bridges: tuple[SearchHit, ...] = ()

    @property
    def key(self) -> str:
        return self.defeated.key


@dataclass(frozen=True)
class RepairPrompt:
    text: str
    sha256: str
    keys: tuple[str, ...]


def _defeat_lines(x: Defeat) -> list[str]:
    if x.kind == CHALLENGE:
        by = f" by {x.by}" if x.by else ""
        return [f"Challenged{by} (`{x.id}`): {x.text}"]
    f = x.finding
    if f is None:
        return [f"Review (`{x.id}`): {x.text}"]
    lines = [f"Review (`{x.id}`) found it unsound: {f.reason_type or 'unclassified'}."]
    if f.missing_property:
        lines.append(f"- Missing: {' '.join(f.missing_property.split())}")
    for a in f.antecedents:
        lines.append(f"- `{a.get('id', '')}` establishes: {a.get('establishes') or '-'}; "
                     f"does not establish: {a.get('does_not_establish') or '-'}")
    if f.comment:
        lines.append(f"- Comment: {' '.join(f.comment.split())}")
    return lines


def case_block(c: RepairCase) -> str:
    j = c.justification
    label = f"; label: {' '.join(j.label.split())}" if j.label.strip() else ""
    lines = [f"### {c.defeated.belief} justification {j.position} (belief {c.truth})",
             f"Claim: {c.claim}", f"Justification {j.position} ({j.mode}{label}):"]
    for a in j.antecedents:
        mark = "" if a.truth == "IN" else f" [{a.truth}]"
        lines.append(f"- `{a.id}`{mark}: {a.text}")
    defeaters = set(c.defeated.defeater_ids)
    for o in j.outlist:
        if o.id not in defeaters:
            lines.append(f"- Unless `{o.id}` [{o.truth}]: {o.text}")
    for x in c.defeated.defeats:
        lines += _defeat_lines(x)
    if c.bridges:
        lines.append("Candidate bridges (IN beliefs near what is missing):")
        lines += [f"- `{h.belief.id}`: {' '.join(h.belief.text.split())}" for h in c.bridges]
    else:
        lines.append("Candidate bridges: none found.")
    return "\n".join(lines)


def build_prompt(cases: Sequence[RepairCase], *, due_total: int,
                 domain: str | None = None) -> RepairPrompt:
    parts = [INTRO]
    if domain:
        parts.append("The beliefs in this network are about: " + " ".join(domain.split()))
    parts += [BACKGROUND, ACTIONS_SECTION, FORMAT,
              "## Defeated justifications\n\n" + "\n\n".join(case_block(c) for c in cases),
              f"## This round\n\n{len(cases)} of {due_total} defeated justifications to "
              "repair."]
    text = "\n\n".join(parts) + "\n"
    return RepairPrompt(text, hashlib.sha256(text.encode("utf-8")).hexdigest(),
                        tuple(c.key for c in cases))


# --- the reply schema ----------------------------------------------------------------------
def _repair_schema(belief: str, positions: Sequence[int], bridges: Sequence[str], *,
                   bounded: bool) -> dict[str, object]:
    ids: dict[str, object] = ({"type": "string", "enum": sorted(set(bridges))} if bridges
                           else {"type": "string"})
    listed: dict[str, object] = {"type": "array", "items": ids}
    text: dict[str, object] = {"type": "string"}
    comment: dict[str, object] = {"type": "string"}
    if bounded:
        listed["maxItems"] = max(1, len(set(bridges)))
        text["maxLength"], comment["maxLength"] = MAX_TEXT, MAX_COMMENT
    fields = ("id", "justification", "action", "bridges", "text", "comment")
    return {"type": "object", "properties": {
        "id": {"type": "string", "enum": [belief]},
        "justification": {"type": "integer", "enum": list(positions)},
        "action": {"type": "string", "enum": list(ACTIONS)},
        "bridges": listed, "text": text, "comment": comment},
        "required": list(fields), "additionalProperties": False}


def reply_schema(cases: Sequence[RepairCase], *, bounded: bool) -> dict[str, object]:
    repairs: dict[str, object]
    if bounded:
        one = [_repair_schema(c.defeated.belief, [c.defeated.position],
                              [h.belief.id for h in c.bridges], bounded=True) for c in cases]
        repairs = {"type": "array", "prefixItems": one, "items": False,
                   "minItems": len(one), "maxItems": len(one)}
    else:
        repairs = {"type": "array", "items": {"anyOf": [
            _repair_schema(c.defeated.belief, [c.defeated.position],
                           [h.belief.id for h in c.bridges], bounded=False) for c in cases]}}
    return {"type": "object", "properties": {KEY: repairs}, "required": [KEY],
            "additionalProperties": False}


def json_reply(cases: Sequence[RepairCase]) -> JsonReply:
    return JsonReply(schema=reply_schema(cases, bounded=True),
                     strict_schema=reply_schema(cases, bounded=False))
