"""Reads a model's reply (or a proposals file) into proposed premises and diagnostics.

Every shape engine/stages/replies.py accepts is read (the schema's object, any object holding
one list of objects, a bare array, a fence, prose around it, JSON lines, a single premise
object with `id`, `claim` and `quote`, trailing commas). Each item must be
an object with string `id`, `claim` and `quote`; anything else is one diagnostic naming the
item and what is wrong, never dropped silently. An explicit empty list is "nothing to say";
a reply with no readable premise and no empty list needs the one retry.
"""
from __future__ import annotations

from typing import Any

from engine.forge.items import ProposedPremise
from engine.stages.replies import MAX_REPLY_CHARS, ReplyShape, find_items, line_of
from engine.stages.stage import Diagnostic, Parsed

FIELDS = ("id", "claim", "quote")
SHAPE = ReplyShape("premises", FIELDS, required_all=True)


def _item(raw: Any, k: int, line: int) -> ProposedPremise | Diagnostic:
    if not isinstance(raw, dict):
        return Diagnostic(f"premise {k}: not an object but {type(raw).__name__}", line)
    missing = [f for f in FIELDS if f not in raw]
    if missing:
        return Diagnostic(f"premise {k}: missing {', '.join(repr(f) for f in missing)}", line)
    wrong = [f for f in FIELDS if not isinstance(raw[f], str)]
    if wrong:
        return Diagnostic(f"premise {k}: {', '.join(repr(f) for f in wrong)} must be text", line)
    lines = raw.get("lines")
    span = (tuple(int(x) for x in lines) if isinstance(lines, list) and len(lines) == 2
            and all(isinstance(x, int) for x in lines) else None)
    return ProposedPremise(
        id=raw["id"].strip(), claim=" ".join(raw["claim"].split()), quote=raw["quote"],
        line=line, source=str(raw.get("source") or ""), lines=span,  # type: ignore[arg-type]
        source_hash=str(raw.get("source_hash") or ""), chunk=str(raw.get("chunk") or ""))


def parse_premises(reply: str) -> Parsed[ProposedPremise]:
    parsed: Parsed[ProposedPremise] = Parsed()
    found = find_items(reply, SHAPE)
    if found.cut:
        parsed.diagnostics.append(Diagnostic(f"reply cut at {MAX_REPLY_CHARS} characters"))
    if found.items is None:
        reason = ("empty reply" if not reply.strip() else
                  "no JSON array of premises found (expected {\"premises\": [{\"id\", "
                  "\"claim\", \"quote\"}, ...]})")
        parsed.diagnostics.append(Diagnostic(reason))
        parsed.needs_retry = True
        return parsed
    if not found.items:
        parsed.nothing_to_say = True
        return parsed
    for k, item in enumerate(found.items, 1):
        got = _item(item.value, k, line_of(reply, item.offset))
        if isinstance(got, Diagnostic):
            parsed.diagnostics.append(got)
        else:
            parsed.items.append(got)
    parsed.needs_retry = not parsed.items
    return parsed
