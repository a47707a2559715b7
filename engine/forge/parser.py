"""Reads a model's reply (or a proposals file) into proposed premises and diagnostics.

Accepted, since none changes the meaning: the schema's object (`{"premises": [...]}`, or any
object holding one list), a bare JSON array, either inside a code fence or with prose around
it, JSON lines (one premise object per line), and a single premise object. Each item must be
an object with string `id`, `claim` and `quote`; anything else is one diagnostic naming the
item and what is wrong, never dropped silently. An explicit empty list is "nothing to say";
a reply with no readable premise and no empty list needs the one retry.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from engine.forge.items import ProposedPremise
from engine.stages.stage import Diagnostic, Parsed

LIST_KEY = "premises"
FIELDS = ("id", "claim", "quote")
MAX_REPLY_CHARS = 1_000_000
_FENCE = re.compile(r"```[a-zA-Z0-9_-]*[ \t]*\n(.*?)```", re.DOTALL)


def _whole_values(text: str) -> Iterator[tuple[Any, int]]:
    """JSON values that are a fenced block, or the whole text, with their offsets."""
    for m in _FENCE.finditer(text):
        body = m.group(1).strip()
        try:
            yield json.loads(body), m.start(1)
        except json.JSONDecodeError:
            pass
    stripped = text.strip()
    try:
        yield json.loads(stripped), text.find(stripped[:1]) if stripped else 0
    except json.JSONDecodeError:
        pass


def _embedded_values(text: str) -> Iterator[tuple[Any, int]]:
    """JSON values starting at each `{` or `[` of text with prose around them."""
    decoder = json.JSONDecoder()
    for m in re.finditer(r"[\[{]", text):
        try:
            value, _ = decoder.raw_decode(text, m.start())
        except json.JSONDecodeError:
            continue
        yield value, m.start()


def _items_of(value: Any) -> list[Any] | None:
    """The premise list a decoded value holds, or None when it holds none."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        if isinstance(value.get(LIST_KEY), list):
            return value[LIST_KEY]
        lists = [v for v in value.values() if isinstance(v, list)]
        if len(lists) == 1:
            return lists[0]
        if all(k in value for k in FIELDS):
            return [value]
    return None


def _json_lines(text: str) -> list[tuple[Any, int]]:
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip().rstrip(",")
        if line.startswith("{") and line.endswith("}"):
            try:
                out.append((json.loads(line), n))
            except json.JSONDecodeError:
                continue
    return out


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, max(offset, 0)) + 1


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
    text = reply if len(reply) <= MAX_REPLY_CHARS else reply[:MAX_REPLY_CHARS]
    if len(reply) > MAX_REPLY_CHARS:
        parsed.diagnostics.append(Diagnostic(f"reply cut at {MAX_REPLY_CHARS} characters"))
    found = _first_list(text, _whole_values(text))
    if found is None:
        lines = _json_lines(text)
        if len(lines) > 1:
            found = lines
    if found is None:
        found = _first_list(text, _embedded_values(text))
    if found is None:
        reason = ("empty reply" if not text.strip() else
                  "no JSON array of premises found (expected {\"premises\": [{\"id\", "
                  "\"claim\", \"quote\"}, ...]})")
        parsed.diagnostics.append(Diagnostic(reason))
        parsed.needs_retry = True
        return parsed
    if not found:
        parsed.nothing_to_say = True
        return parsed
    for k, (raw, line) in enumerate(found, 1):
        got = _item(raw, k, line)
        if isinstance(got, Diagnostic):
            parsed.diagnostics.append(got)
        else:
            parsed.items.append(got)
    parsed.needs_retry = not parsed.items
    return parsed


def _first_list(text: str, values: Iterator[tuple[Any, int]]) -> list[tuple[Any, int]] | None:
    for value, offset in values:
        items = _items_of(value)
        if items is not None:
            first = _line_of(text, offset)
            return [(raw, _item_line(text, raw, first)) for raw in items]
    return None


def _item_line(text: str, raw: Any, first: int) -> int:
    if isinstance(raw, dict) and isinstance(raw.get("id"), str):
        at = text.find(json.dumps(raw["id"], ensure_ascii=False))
        if at >= 0:
            return _line_of(text, at)
    return first
