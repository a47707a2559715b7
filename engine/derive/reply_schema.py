"""Derive's reply as JSON, for back-ends with structured output (`--structured`): the JSON
schema of a round's proposals (antecedents and unless-ids limited to the round's allowed ids,
an enum, so a provider that enforces schemas can only cite ids that exist), and the markdown
the derive parser reads rendered back from a decoded reply. Derive's stage puts both in its
round's contract (MarkdownProposals.json_schema / render_json); the adapter compiles
whatever schema the contract gives it.
"""
from __future__ import annotations

import re
from collections.abc import Mapping

from engine.derive.parser import parse_reply
from engine.stages.contract import RoundContract

NEW_ID_PATTERN = "^[a-z0-9][a-z0-9._:-]{0,199}$"
FIELDS = ("kind", "id", "conclusion", "antecedents", "unless", "mode", "label")


def proposal_schema(contract: RoundContract, *, bounded: bool = True) -> dict[str, object]:
    """The JSON schema of a round's reply.

    Every property is required and no others are allowed (OpenAI's strict subset); a DERIVE
    has an empty "unless". `bounded` adds length and count limits (minItems, maxItems,
    maxLength, pattern) for back-ends that compile the schema to a grammar; leave it off for
    OpenAI strict mode, which does not accept all of them.
    """
    ids = sorted(set(contract.allowed_ids))
    id_item: dict[str, object] = {"type": "string", "enum": ids}
    antecedents: dict[str, object] = {
        "type": "array",
        "items": id_item,
        "description": f"existing belief ids the conclusion rests on, at least "
        f"{contract.min_antecedents}, only load-bearing ones",
    }
    unless: dict[str, object] = {
        "type": "array",
        "items": id_item,
        "description": "GATE only: existing ids whose being IN defeats the conclusion; "
        "empty for DERIVE",
    }
    new_id: dict[str, object] = {
        "type": "string",
        "description": "id of the new belief: lower case letters, digits and . _ : -",
    }
    conclusion: dict[str, object] = {"type": "string", "description": "one-sentence conclusion"}
    label: dict[str, object] = {"type": "string", "description": "short label"}
    proposals: dict[str, object] = {"type": "array"}
    if bounded:
        antecedents |= {
            "minItems": contract.min_antecedents,
            "maxItems": max(contract.min_antecedents, 6),
        }
        unless |= {"maxItems": 3}
        new_id |= {"pattern": NEW_ID_PATTERN, "maxLength": 64}
        conclusion |= {"minLength": 8, "maxLength": 240}
        label |= {"minLength": 2, "maxLength": 80}
        proposals |= {"maxItems": contract.max_proposals}
    kinds = ["DERIVE", "GATE"] if contract.allow_gate else ["DERIVE"]
    proposals["items"] = {
        "type": "object",
        "properties": {
            "kind": {"type": "string", "enum": kinds},
            "id": new_id,
            "conclusion": conclusion,
            "antecedents": antecedents,
            "unless": unless,
            "mode": {
                "type": "string",
                "enum": ["ALL", "ANY"],
                "description": "ALL: needs every antecedent; ANY: each one suffices",
            },
            "label": label,
        },
        "required": list(FIELDS),
        "additionalProperties": False,
    }
    return {
        "title": "derive_proposals",
        "description": "New derived beliefs proposed from the existing beliefs; "
        "an empty list means no proposals.",
        "type": "object",
        "properties": {"proposals": proposals},
        "required": ["proposals"],
        "additionalProperties": False,
    }


def render_markdown(data: object) -> tuple[str, list[object]]:
    """The markdown reply for a decoded JSON reply, and the items that could not be rendered."""
    proposals = data.get("proposals") if isinstance(data, Mapping) else None
    if not isinstance(proposals, list):
        raise ValueError('expected an object with a "proposals" list')
    blocks: list[str] = []
    skipped: list[object] = []
    for item in proposals:
        block = _render_block(item)
        if block is None:
            skipped.append(item)
        else:
            blocks.append(block)
    return ("\n\n".join(blocks) if blocks else "NO PROPOSALS"), skipped


def _render_block(item: object) -> str | None:
    if not isinstance(item, Mapping):
        return None
    kind, mode = _line(item.get("kind")).upper(), _line(item.get("mode")).upper()
    new_id, conclusion, label = (_line(item.get(k)) for k in ("id", "conclusion", "label"))
    antecedents, unless = _ids(item.get("antecedents")), _ids(item.get("unless") or [])
    if kind not in ("DERIVE", "GATE") or mode not in ("ALL", "ANY"):
        return None
    if not (new_id and conclusion and label and antecedents) or unless is None:
        return None
    lines = [f"### {kind} {new_id}", conclusion, f"- Antecedents: {', '.join(antecedents)}"]
    if unless:
        lines.append(f"- Unless: {', '.join(unless)}")
    lines += [f"- Mode: {mode}", f"- Label: {label}"]
    block = "\n".join(lines)
    # A conclusion or label that reads as markdown structure (a heading, a rule, a field)
    # would not come back as written: set such an item aside rather than change its meaning.
    parsed = parse_reply(block).proposals
    if len(parsed) != 1 or (parsed[0].text, parsed[0].label) != (conclusion, label):
        return None
    return block


def _line(value: object) -> str:
    """One line of text: newlines and runs of blanks become single spaces."""
    return re.sub(r"\s+", " ", value).strip() if isinstance(value, str) else ""


def _ids(value: object) -> list[str] | None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None
    return [v.strip() for v in value if v.strip()]
