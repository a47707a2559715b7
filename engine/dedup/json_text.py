"""The JSON values in a model's reply, however it wrote them: the whole reply, a code fence,
JSON with prose around it, or one value per line (JSON lines).

`json_items` flattens what was found into the objects of the answer: an object holding the
list under `key` gives that list; a bare list gives its elements; a bare object is one item.
Anything else found is reported, never guessed at.
"""
from __future__ import annotations

import json
from typing import Any

MAX_REPLY_CHARS = 1_000_000
_DECODER = json.JSONDecoder()


def json_values(text: str) -> list[Any]:
    """Every top-level JSON object or array in `text`, in order (decoding from each `{` or
    `[` that starts a complete value, then continuing after it)."""
    text = text[:MAX_REPLY_CHARS]
    values: list[Any] = []
    i = 0
    while i < len(text):
        starts = [p for p in (text.find("{", i), text.find("[", i)) if p >= 0]
        if not starts:
            break
        start = min(starts)
        try:
            value, end = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError:
            i = start + 1
            continue
        values.append(value)
        i = end
    return values


def json_items(text: str, key: str) -> tuple[list[Any], list[str], bool]:
    """(items, problems, found_any): the answer's items from every JSON value in `text`.
    `found_any` is False when the reply holds no JSON value at all."""
    values = json_values(text)
    items: list[Any] = []
    problems: list[str] = []
    for value in values:
        if isinstance(value, dict) and key in value:
            inner = value[key]
            if isinstance(inner, list):
                items.extend(inner)
            else:
                problems.append(f'"{key}" is not a list')
        elif isinstance(value, list):
            items.extend(value)
        elif isinstance(value, dict):
            items.append(value)
    return items, problems, bool(values)
