"""What every stage reads out of a model's reply before its own rules apply: the JSON items
of the answer however the model wrote them, numbers and ids however it spelled them, one
`Diagnostic` type, the one retry message, and the combine after the retry.

Accepted shapes, since none changes the meaning: the schema's object (`{"<key>": [...]}`), a
bare array, a single item object, a code fence around any of them, prose before and after,
JSON lines (one item object a line), and trailing commas. A stage names its list key and
what a lone object must hold to count as an item (`ReplyShape`); anything else found is left
to the stage to diagnose, never guessed at.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from engine.results import JsonValue
from engine.stages.stage import Diagnostic, Parsed

__all__ = ["Diagnostic", "FoundItem", "ReplyShape", "answer_again", "bare_id", "combine_by_key",
           "find_items", "json_values", "line_of", "number", "retry_message", "second_fills_gaps"]

MAX_REPLY_CHARS = 1_000_000
MAX_LISTED = 20  # diagnostics quoted in a retry message
JSON_ERRORS = (ValueError, RecursionError)  # deep nesting exhausts the decoder's recursion
_DECODER = json.JSONDecoder()
_FENCE = re.compile(r"```[ \t]*[A-Za-z0-9_-]*[ \t]*\n(.*?)(?:\n[ \t]*```|\Z)", re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[\]}])")
_OPENING = re.compile(r"[\[{]")
_LIST_FIELD = re.compile(r'"[A-Za-z_]+"\s*:\s*\[')
_NUMBER = re.compile(r"^\s*(?:[A-Za-z]+\s*)?#?\s*(\d{1,6})\s*$")

ItemT = TypeVar("ItemT")
KeyT = TypeVar("KeyT", str, int)  # what names an item: its id, or its number


@dataclass(frozen=True)
class ReplyShape:
    """How a stage's answer looks: the key of its list, and what a lone object must hold to
    be one item of it (a single answer, or one line of JSON lines)."""

    key: str
    item_fields: tuple[str, ...]  # a lone object with any of these is an item
    required_all: bool = False  # ... with all of them, rather

    def is_item(self, value: JsonValue) -> bool:
        if not isinstance(value, dict):
            return False
        present = [f in value for f in self.item_fields]
        return all(present) if self.required_all else any(present)

    def items_of(self, value: JsonValue) -> list[JsonValue] | None:
        """The item list a decoded value holds, or None when it holds none."""
        if isinstance(value, list):
            return value
        if not isinstance(value, dict):
            return None
        if self.key in value:
            inner = value[self.key]
            return inner if isinstance(inner, list) else None
        if self.is_item(value):
            return [value]
        lists = [v for v in value.values() if isinstance(v, list)]
        if len(lists) == 1 and all(isinstance(x, dict) for x in lists[0]):
            return lists[0]
        return None


@dataclass(frozen=True)
class FoundItem:
    value: JsonValue  # one raw item of the answer, as decoded (not yet checked)
    offset: int  # where it starts in the reply


@dataclass
class Found:
    """The items of a reply, and what about their container was wrong."""

    items: list[FoundItem] | None  # None: the reply holds no answer at all
    problems: list[str] = field(default_factory=list)
    cut: bool = False  # the reply was longer than MAX_REPLY_CHARS and was cut

    @property
    def nothing(self) -> bool:
        return self.items is None


def line_of(text: str, offset: int) -> int:
    """The 1-based line of `offset` in `text`."""
    return text.count("\n", 0, max(offset, 0)) + 1


def find_items(reply: str, shape: ReplyShape) -> Found:
    """The answer's items in `reply`: the first list (or object holding one under the key)
    found in the whole reply, a fence, or the prose; else every lone item object (JSON lines,
    objects in prose)."""
    text = reply[:MAX_REPLY_CHARS]
    found = Found(None, cut=len(reply) > MAX_REPLY_CHARS)
    for value in _whole(text):
        if isinstance(value, dict) and shape.key in value and not isinstance(
                value[shape.key], list):
            found.problems.append(f'"{shape.key}" is not a list')
        listed = shape.items_of(value)
        if listed is not None:
            found.items = _scan(text, 0, shape) or [FoundItem(v, 0) for v in listed]
            return found
    for fence in _FENCE.finditer(text):
        items = _scan(fence.group(1), fence.start(1), shape)
        if items is not None:
            found.items = items
            return found
    found.items = _scan(text, 0, shape)
    return found


def json_values(reply: str) -> list[JsonValue]:
    """Every top-level JSON value (object or array) in the reply, in order: for a stage whose
    answer is one object rather than a list of items (ask)."""
    text = reply[:MAX_REPLY_CHARS]
    values: list[JsonValue] = []
    pos = 0
    while (match := _OPENING.search(text, pos)) is not None:
        try:
            value, end = _DECODER.raw_decode(text, match.start())
        except JSON_ERRORS:
            pos = match.start() + 1
            continue
        values.append(value)
        pos = end
    return values


def _whole(text: str) -> list[JsonValue]:
    stripped = _TRAILING_COMMA.sub(r"\1", text.strip())
    try:
        return [json.loads(stripped)]
    except JSON_ERRORS:
        return []


def _decode_array(text: str, start: int) -> list[tuple[JsonValue, int]] | None:
    """The elements of the JSON array opening at `start`, with their offsets (a trailing
    comma is allowed); None when it is not a well-formed array."""
    pos, n = start + 1, len(text)
    items: list[tuple[JsonValue, int]] = []
    while True:
        while pos < n and text[pos].isspace():
            pos += 1
        if pos < n and text[pos] == "]":
            return items
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except JSON_ERRORS:
            return None
        items.append((value, pos))
        pos = end
        while pos < n and text[pos].isspace():
            pos += 1
        if pos < n and text[pos] == ",":
            pos += 1
        elif not (pos < n and text[pos] == "]"):
            return None


def _scan(text: str, base: int, shape: ReplyShape) -> list[FoundItem] | None:
    loose: list[FoundItem] = []
    pos = 0
    while (match := _OPENING.search(text, pos)) is not None:
        p = match.start()
        if text[p] == "[":
            elements = _decode_array(text, p)
            if elements is not None and all(isinstance(v, dict) for v, _ in elements) and (
                    elements or not loose):
                return [FoundItem(v, base + o) for v, o in elements] if elements else loose
            pos = p + 1
            continue
        try:
            value, end = _DECODER.raw_decode(text, p)
        except JSON_ERRORS:
            pos = p + 1
            continue
        listed = shape.items_of(value)
        if listed is not None and listed and listed[0] is value:
            loose.append(FoundItem(value, base + p))
        elif listed is not None:
            field_list = _LIST_FIELD.search(text, p, end)
            inner = _decode_array(text, field_list.end() - 1) if field_list else None
            if inner is not None and len(inner) == len(listed):
                return [FoundItem(v, base + o) for v, o in inner]
            return [FoundItem(v, base + p) for v in listed]
        pos = end
    return loose or None


def number(value: object) -> int | None:
    """A whole number as a model writes one: 2, 2.0, "2", "#2", "justification 2"."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        m = _NUMBER.match(value)
        return int(m.group(1)) if m else None
    return None


def bare_id(value: object) -> str:
    """An id as a model writes one, without the backticks, stars or quotes around it."""
    return str(value).strip().strip("`*\"'").strip() if value is not None else ""


def keyword(value: object) -> str:
    """A word of a closed set as a model writes one (`Open_Issue`, "not negative"), as the
    set spells it: bare, lower case, `_` and spaces as `-`."""
    return bare_id(value).lower().replace("_", "-").replace(" ", "-")


def retry_message(diagnostics: Sequence[Diagnostic], *, opening: str, answer_format: str,
                  request: str = "", extra: Sequence[str] = (),
                  max_listed: int = MAX_LISTED) -> str:
    """The one retry's message: what was wrong (with reply lines where known), anything the
    stage adds, then the format again."""
    lines = [opening]
    if diagnostics:
        lines.append("What was wrong:")
        lines += [f"- line {d.line}: {d.reason}" if d.line else f"- {d.reason}"
                  for d in diagnostics[:max_listed]]
        if len(diagnostics) > max_listed:
            lines.append(f"- ... and {len(diagnostics) - max_listed} more")
    lines += list(extra)
    lines += ["", request] if request else []
    lines += ["", answer_format.rstrip("\n")]
    return "\n".join(lines)


def answer_again(diagnostics: Sequence[Diagnostic], *, what: str, answer_format: str) -> str:
    """The retry message of a stage that answers item by item (`what`: cluster, pair)."""
    return retry_message(diagnostics, opening="Your answer could not be used as it was.",
                         request=f"Answer again for every {what}, in this format.",
                         answer_format=answer_format)


def combine_by_key(first: Parsed[ItemT], second: Parsed[ItemT],
                   key: Callable[[ItemT], KeyT]) -> Parsed[ItemT]:
    """After the retry: the second reply's answers, and the first's for what the second left
    out (by `key`), in key order. What neither answered stays undecided; the round is a
    format failure only when nothing at all was usable."""
    items = second_fills_gaps(first.items, second.items, key)
    diagnostics = [Diagnostic("first reply: " + d.reason, d.line) for d in first.diagnostics]
    diagnostics += [Diagnostic("retry: " + d.reason, d.line) for d in second.diagnostics]
    return Parsed(items=[items[k] for k in sorted(items)], diagnostics=diagnostics,
                  needs_retry=not items)


def second_fills_gaps(first: Sequence[ItemT], second: Sequence[ItemT],
                      key: Callable[[ItemT], KeyT]) -> dict[KeyT, ItemT]:
    """The merge under every combine: by key, the second reply's answer where it gave one,
    the first's elsewhere (first-seen order)."""
    items: dict[KeyT, ItemT] = {key(v): v for v in first}
    items.update((key(v), v) for v in second)
    return items
