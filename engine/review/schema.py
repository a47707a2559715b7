"""The JSON reply schema of one review round (engine.stages.contract.JsonReply).

The top level is an object with the verdicts under `verdicts`.

`schema`, for constrained decoders (the local model's grammar, Ollama's `format`): the array
is a tuple (`prefixItems`), one verdict per justification shown, in the order shown, each
allowing only that belief's id, that justification's number and its antecedents, with
lengths bounded so a small model's reply stays short. A decoder held to it cannot leave a
justification out, judge one twice, or name anything the round did not show.

`strict_schema`, for OpenAI's strict mode (no tuples, no bounds, every property required):
each verdict is one of a set of alternatives, one per belief shown, allowing that belief's
id, its justification numbers and its antecedents.
"""
from __future__ import annotations

from collections.abc import Sequence

from engine.stages.arguments import UnderReview
from engine.review.verdicts import MODES, NO_REASON, REASON_TYPES
from engine.stages.contract import JsonReply

KEY = "verdicts"
MAX_COMMENT = 120
MAX_PROPERTY = 80
MAX_FINDING = 60
FIELDS = ("id", "justification", "valid", "sufficient", "necessary",
          "unnecessary_antecedents", "mode", "reason_type", "missing_property", "comment",
          "antecedents")


def _text(limit: int, *, bounded: bool) -> dict[str, object]:
    return {"type": "string", "maxLength": limit} if bounded else {"type": "string"}


def _one_of(values: Sequence[str]) -> dict[str, object]:
    return {"type": "string", "enum": list(values)} if values else {"type": "string"}


def verdict_schema(belief_id: str, positions: Sequence[int], antecedents: Sequence[str], *,
                   bounded: bool) -> dict[str, object]:
    antecedents = sorted(set(antecedents))
    finding = {
        "type": "object",
        "properties": {"id": _one_of(antecedents),
                       "establishes": _text(MAX_FINDING, bounded=bounded),
                       "does_not_establish": _text(MAX_FINDING, bounded=bounded)},
        "required": ["id", "establishes", "does_not_establish"],
        "additionalProperties": False,
    }
    unnecessary: dict[str, object] = {"type": "array", "items": _one_of(antecedents)}
    findings: dict[str, object] = {"type": "array", "items": finding}
    if bounded:
        unnecessary["maxItems"] = len(antecedents)
        findings["maxItems"] = len(antecedents)
    properties = {
        "id": {"type": "string", "enum": [belief_id]},
        "justification": {"type": "integer", "enum": list(positions)},
        "valid": {"type": "boolean"},
        "sufficient": {"type": "boolean"},
        "necessary": {"type": "boolean"},
        "unnecessary_antecedents": unnecessary,
        "mode": {"type": "string", "enum": list(MODES)},
        "reason_type": {"type": "string", "enum": [*REASON_TYPES, NO_REASON]},
        "missing_property": _text(MAX_PROPERTY, bounded=bounded),
        "comment": _text(MAX_COMMENT, bounded=bounded),
        "antecedents": findings,
    }
    return {"type": "object", "properties": properties, "required": list(FIELDS),
            "additionalProperties": False}


def reply_schema(shown: Sequence[UnderReview], *, bounded: bool) -> dict[str, object]:
    verdicts: dict[str, object]
    if bounded:
        tuple_items = [verdict_schema(b.id, [j.position], j.antecedent_ids, bounded=True)
                       for b in shown for j in b.justifications]
        verdicts = {"type": "array", "prefixItems": tuple_items, "items": False,
                    "minItems": len(tuple_items), "maxItems": len(tuple_items)}
    else:
        verdicts = {"type": "array", "items": {"anyOf": [
            verdict_schema(b.id, [j.position for j in b.justifications],
                           [a for j in b.justifications for a in j.antecedent_ids],
                           bounded=False)
            for b in shown]}}
    return {"type": "object", "properties": {KEY: verdicts}, "required": [KEY],
            "additionalProperties": False}


def json_reply(shown: Sequence[UnderReview]) -> JsonReply:
    return JsonReply(schema=reply_schema(shown, bounded=True),
                     strict_schema=reply_schema(shown, bounded=False))
