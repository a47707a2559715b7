"""The JSON reply schema of one review round (engine.stages.contract.JsonReply).

The top level is an object with the verdicts under `verdicts`. Each verdict is one of a set
of alternatives, one per belief shown, that allows only that belief's id, its justification
numbers and its antecedent ids, so a constrained decoder cannot name anything else. `schema`
bounds lengths and counts for a grammar (exactly one verdict per justification shown);
`strict_schema` drops the bounds and requires every property, for OpenAI's strict mode.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.review.material import UnderReview
from engine.review.verdicts import MODES, NO_REASON, REASON_TYPES
from engine.stages.contract import JsonReply

KEY = "verdicts"
MAX_COMMENT = 300
MAX_PROPERTY = 200
MAX_FINDING = 160
FIELDS = ("id", "justification", "valid", "sufficient", "necessary",
          "unnecessary_antecedents", "mode", "reason_type", "missing_property", "comment",
          "antecedents")


def _ids_array(ids: Sequence[str], *, bounded: bool) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "array",
                              "items": {"type": "string", "enum": list(ids)} if ids
                              else {"type": "string"}}
    if bounded:
        schema["maxItems"] = len(ids)
    return schema


def _text(limit: int, *, bounded: bool) -> dict[str, Any]:
    return {"type": "string", "maxLength": limit} if bounded else {"type": "string"}


def verdict_schema(b: UnderReview, *, bounded: bool) -> dict[str, Any]:
    antecedents = sorted({a for j in b.justifications for a in j.antecedent_ids})
    finding = {
        "type": "object",
        "properties": {
            "id": {"type": "string", "enum": antecedents} if antecedents else {"type": "string"},
            "establishes": _text(MAX_FINDING, bounded=bounded),
            "does_not_establish": _text(MAX_FINDING, bounded=bounded),
        },
        "required": ["id", "establishes", "does_not_establish"],
        "additionalProperties": False,
    }
    findings: dict[str, Any] = {"type": "array", "items": finding}
    if bounded:
        findings["maxItems"] = max(len(antecedents), 1)
    properties = {
        "id": {"type": "string", "enum": [b.id]},
        "justification": {"type": "integer",
                          "enum": [j.position for j in b.justifications]},
        "valid": {"type": "boolean"},
        "sufficient": {"type": "boolean"},
        "necessary": {"type": "boolean"},
        "unnecessary_antecedents": _ids_array(antecedents, bounded=bounded),
        "mode": {"type": "string", "enum": list(MODES)},
        "reason_type": {"type": "string", "enum": [*REASON_TYPES, NO_REASON]},
        "missing_property": _text(MAX_PROPERTY, bounded=bounded),
        "comment": _text(MAX_COMMENT, bounded=bounded),
        "antecedents": findings,
    }
    # The findings cost a small model many tokens: optional under a grammar, asked for in
    # the prompt; strict mode requires every property.
    required = [f for f in FIELDS if bounded is False or f != "antecedents"]
    return {"type": "object", "properties": properties, "required": required,
            "additionalProperties": False}


def reply_schema(shown: Sequence[UnderReview], *, bounded: bool) -> dict[str, Any]:
    count = sum(len(b.justifications) for b in shown)
    verdicts: dict[str, Any] = {
        "type": "array",
        "items": {"anyOf": [verdict_schema(b, bounded=bounded) for b in shown]},
    }
    if bounded:
        verdicts["minItems"] = count
        verdicts["maxItems"] = count
    return {"type": "object", "properties": {KEY: verdicts}, "required": [KEY],
            "additionalProperties": False}


def json_reply(shown: Sequence[UnderReview]) -> JsonReply:
    return JsonReply(schema=reply_schema(shown, bounded=True),
                     strict_schema=reply_schema(shown, bounded=False))
