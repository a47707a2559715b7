"""What the stages that judge one item at a time (review, premise review, repair) share when
they read a reply: the parse result, the walk over the reply's items with the problems every
such reply can have, and the checks on an item's id and justification number. Each stage's
reader adds only what its answer says. Never raises.

A problem asks for the one retry (a Diagnostic in `diagnostics`); a note is recorded and
changes nothing (`notes`).
"""
from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from engine.stages.replies import (
    Diagnostic,
    ReplyShape,
    bare_id,
    find_items,
    line_of,
    number,
    retry_message,
)

ItemT = TypeVar("ItemT")
MAX_REPLY_CHARS = 500_000


@dataclass
class ItemsParse(Generic[ItemT]):
    """Items read from one reply (engine.stages.stage.ParsedReply)."""

    items: list[ItemT] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)  # each asks for the retry
    notes: list[Diagnostic] = field(default_factory=list)  # recorded; no retry
    missing: list[str] = field(default_factory=list)  # keys shown without a usable answer
    nothing_to_say: bool = False  # these stages have no "nothing": every item needs an answer

    @property
    def needs_retry(self) -> bool:
        return bool(self.diagnostics)

    def retry_message(self, *, without: str, request: str, answer_format: str,
                      named: Callable[[str], str] = str) -> str:
        """The one retry's message: what was wrong, the keys still `without` an answer
        (each as `named` shows it), the request and the format again."""
        missing = (["", f"Still without {without}: " + ", ".join(named(k) for k in self.missing)]
                   if self.missing else [])
        return retry_message(self.diagnostics, opening="Your reply could not be used as it was.",
                             extra=missing, request=request, answer_format=answer_format)

    def as_dict(self) -> dict[str, Any]:
        return {"items": len(self.items), "needs_retry": self.needs_retry,
                "missing": list(self.missing),
                "diagnostics": [d.as_dict() for d in self.diagnostics],
                "notes": [d.as_dict() for d in self.notes]}


ParseT = TypeVar("ParseT", bound=ItemsParse)


def justification_key(belief: str, position: int) -> str:
    """How the stages that answer per justification key one: `belief#2`."""
    return f"{belief}#{position}"


def unanswered(expected: Mapping[str, Collection[int]], answered: Collection[str]
               ) -> Iterator[tuple[str, str, int]]:
    """(key, belief, position) of each justification shown and not answered, in order."""
    for belief, positions in expected.items():
        for position in sorted(positions):
            k = justification_key(belief, position)
            if k not in answered:
                yield k, belief, position


def justification_named(key: str) -> str:
    """`belief#2` as a person reads it: `belief justification 2`."""
    belief, position = key.rsplit("#", 1)
    return f"{belief} justification {position}"


def flat_text(value: Any) -> str:
    """A reply's value as one line of text (whitespace collapsed; JSON for a non-string)."""
    if value is None:
        return ""
    return " ".join((value if isinstance(value, str) else json.dumps(value)).split())


class ItemReader(Generic[ParseT]):
    """The reader of one reply's items into `out`; a stage's reader adds its `read`."""

    def __init__(self, out: ParseT):
        self.out = out

    def problem(self, reason: str, line: int) -> None:
        self.out.diagnostics.append(Diagnostic(reason=reason, line=line))

    def note(self, reason: str, line: int) -> None:
        self.out.notes.append(Diagnostic(reason=reason, line=line))

    def item_id(self, obj: Any, line: int, where: str, id_keys: tuple[str, ...]) -> str:
        """The id an item names under the first of `id_keys` it has ("" after a problem)."""
        if not isinstance(obj, dict):
            self.problem(f"{where} is not an object: {flat_text(obj)[:80]!r}", line)
            return ""
        ident = bare_id(next((obj[k] for k in id_keys if obj.get(k)), ""))
        if not ident:
            self.problem(f"{where} has no id", line)
        return ident

    def shown_id(self, obj: Any, line: int, label: str, id_keys: tuple[str, ...],
                 shown: Mapping[str, Any] | None, what: str) -> tuple[str, str, Any] | None:
        """An item's id, how messages name it (`label (id)`) and what the round showed of
        it (None without `shown`, as when a proposals file is read); None after a problem,
        such as an id the round did not show. `what`: how the message names the item
        ("belief ", "premise ", or "")."""
        ident = self.item_id(obj, line, label, id_keys)
        if not ident:
            return None
        where = f"{label} ({ident})"
        if shown is None:
            return ident, where, None
        found = shown.get(ident)
        if found is None:
            self.problem(f"{where} names {what}'{ident}', which this round did not show", line)
            return None
        return ident, where, found

    def justification(self, obj: Mapping[str, Any], ident: str, where: str,
                      shown: Collection[int] | None, line: int) -> int | None:
        """The justification number an item gives (1-based), among those the round showed
        of its belief when `shown` is known; None after a problem."""
        raw = obj.get("justification")
        position = number(raw)
        if position is None:
            self.problem(f"{where} has no justification number"
                         + ("" if raw is None else f" (got {flat_text(raw)[:40]!r})"), line)
            return None
        if shown is not None and position not in shown:
            numbers = ", ".join(str(k) for k in sorted(shown))
            self.problem(f"{where}: '{ident}' was shown with justification(s) {numbers}, "
                         f"not {position}", line)
            return None
        return position


def read_items(text: object, shape: ReplyShape, noun: str, reader: ItemReader[Any],
               read: Callable[[Any, int, int, set[str]], None]) -> bool:
    """Walk a reply's items: `read(value, line, index, seen)` for each, `seen` shared so a
    second answer on one key can be refused. False (with the problem recorded) when the
    reply is empty or holds no item at all; a reply over MAX_REPLY_CHARS is read up to it,
    noted."""
    text = "" if text is None else text if isinstance(text, str) else str(text)
    if not text.strip():
        reader.problem("the reply is empty", 0)
        return False
    if len(text) > MAX_REPLY_CHARS:
        reader.note(f"the reply has {len(text)} characters; only the first "
                    f"{MAX_REPLY_CHARS} were read", 0)
        text = text[:MAX_REPLY_CHARS]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    found = find_items(text, shape).items
    if found is None:
        reader.problem(f"no JSON array of {noun}s (or {noun} object) in the reply", 0)
        return False
    seen: set[str] = set()
    for index, item in enumerate(found, start=1):
        read(item.value, line_of(text, item.offset), index, seen)
    return True
