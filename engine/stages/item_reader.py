"""What the stages that judge one item at a time (review, premise review, repair) share when
they read a reply: the parse result, the one retry (ItemsRetry; RetriesItems gives a stage
its retry_message and combine), the walk over the reply's items with the problems every
such reply can have, and the checks on an item's id and justification number (done whole by
JustificationReader for review and repair). Each stage's reader adds only what its answer
says. Never raises.

A problem asks for the one retry (a Diagnostic in `diagnostics`); a note is recorded and
changes nothing (`notes`). An item shown that the reply says nothing about (no answer names
it) is neither: the model passed it over, which is not a format failure. It is listed in
`passed_over`, and the run shows it again once every other due item has had its turn
(engine/stages/turns.py). A reply that is well-formed and passes over everything is a dry
round, not a failure.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
import json
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from engine.results import JsonValue
from engine.stages.replies import (
    Diagnostic,
    ReplyShape,
    bare_id,
    find_items,
    line_of,
    number,
    retry_message,
    second_fills_gaps,
)
from engine.stages.stage import KeyedItems, RoundInput

ItemT = TypeVar("ItemT")
MAX_REPLY_CHARS = 500_000


@dataclass
class ItemsParse(Generic[ItemT]):
    """Items read from one reply (engine.stages.stage.ParsedReply)."""

    items: list[ItemT] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)  # each asks for the retry
    notes: list[Diagnostic] = field(default_factory=list)  # recorded; no retry
    missing: list[str] = field(default_factory=list)  # keys shown without a usable answer
    passed_over: list[str] = field(default_factory=list)  # of those, the ones the reply
    # never names: not a problem, no retry
    nothing_to_say: bool = False  # these stages have no "nothing": every item needs an answer

    @property
    def needs_retry(self) -> bool:
        return bool(self.diagnostics)

    def as_dict(self) -> dict[str, object]:
        return {"items": len(self.items), "needs_retry": self.needs_retry,
                "missing": list(self.missing), "passed_over": list(self.passed_over),
                "diagnostics": [d.as_dict() for d in self.diagnostics],
                "notes": [d.as_dict() for d in self.notes]}


ExpectedT = TypeVar("ExpectedT")


@dataclass
class CheckedParse(ItemsParse[ItemT], Generic[ItemT, ExpectedT]):
    """Items read from one reply with what the round showed (`expected`), so ids and
    completeness could be checked; None when a proposals file was read."""

    expected: ExpectedT | None = None


class OnBelief:
    """An answer on one belief (negatives, premise review), keyed by the belief's id."""

    belief: str

    @property
    def key(self) -> str:
        return self.belief


ParseT = TypeVar("ParseT", bound=ItemsParse)


@dataclass(frozen=True)
class ItemsRetry(Generic[ParseT]):
    """The one retry of a stage that answers per item: its message names what was wrong,
    the keys still `without` an answer (each as `named` shows it), then says the `request`
    and the answer format again; `combine` joins the two replies' parses."""

    without: str
    request: str
    answer_format: str
    combine: Callable[[ParseT, ParseT], ParseT]
    named: Callable[[str], str] = str

    def message(self, parsed: ParseT) -> str:
        missing = (["", f"Still without {self.without}: "
                    + ", ".join(self.named(k) for k in parsed.missing)] if parsed.missing else [])
        return retry_message(parsed.diagnostics,
                             opening="Your reply could not be used as it was.", extra=missing,
                             request=self.request, answer_format=self.answer_format)


class RetriesItems(KeyedItems, Generic[ParseT]):
    """`retry_message` and `combine` for a stage (review, premise review, repair) from its
    `retry`, and `item_dict` and `item_key` from KeyedItems."""

    retry: ItemsRetry[ParseT]

    def retry_message(self, parsed: ParseT, shown: RoundInput) -> str:
        return self.retry.message(parsed)

    def combine(self, first: ParseT, second: ParseT) -> ParseT:
        return self.retry.combine(first, second)


def combine_answers(first: ParseT, second: ParseT, fresh: Callable[[], ParseT],
                    unanswered: str) -> ParseT:
    """After the retry of a stage that answers per item (premise review, negatives): the
    second reply's items, plus the first's on keys the second left out. What is still
    without a usable answer stays so, its diagnostic kept as a note prefixed `unanswered`;
    the round is a format failure only when the second reply still has a problem and no
    item was read at all (a well-formed second reply that answers nothing is dry).
    `fresh()`: an empty parse of the stage's kind (carrying what the second one expected)."""
    by_key = second_fills_gaps(first.items, second.items, lambda item: item.key)
    answered_late = set(by_key) - {item.key for item in second.items}
    leftover = [d for d in second.diagnostics
                if not any(f"'{k}'" in d.reason or f"({k})" in d.reason for k in answered_late)]
    merged = fresh()
    merged.items = list(by_key.values())
    merged.notes = first.notes + second.notes
    merged.missing = [k for k in second.missing if k not in by_key]
    merged.passed_over = [k for k in second.passed_over if k not in by_key]
    if merged.items:
        merged.notes = [Diagnostic(f"{unanswered}: " + d.reason, d.line) for d in leftover] \
            + merged.notes
    else:
        merged.diagnostics = leftover
    return merged


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


def flat_text(value: object) -> str:
    """A reply's value as one line of text (whitespace collapsed; JSON for a non-string)."""
    if value is None:
        return ""
    return " ".join((value if isinstance(value, str) else json.dumps(value)).split())


ShownT = TypeVar("ShownT")  # what a round showed of one item
ClaimT = TypeVar("ClaimT")  # what a round showed of one justification


class ItemReader(Generic[ParseT, ShownT]):
    """The reader of one reply's items into `out`; a stage's reader adds its `read`.
    `expected`: what the round showed of each item, by id (None when a proposals file is
    read)."""

    def __init__(self, out: ParseT, expected: Mapping[str, ShownT] | None = None):
        self.out = out
        self.expected = expected
        self.named: set[str] = set()  # the shown items some answer of the reply names

    def problem(self, reason: str, line: int) -> None:
        self.out.diagnostics.append(Diagnostic(reason=reason, line=line))

    def note(self, reason: str, line: int) -> None:
        self.out.notes.append(Diagnostic(reason=reason, line=line))

    def item_id(self, obj: JsonValue, line: int, where: str, id_keys: tuple[str, ...]) -> str:
        """The id an item names under the first of `id_keys` it has ("" after a problem)."""
        if not isinstance(obj, dict):
            self.problem(f"{where} is not an object: {flat_text(obj)[:80]!r}", line)
            return ""
        ident = bare_id(next((obj[k] for k in id_keys if obj.get(k)), ""))
        if not ident:
            self.problem(f"{where} has no id", line)
        return ident

    def shown_id(self, obj: JsonValue, line: int, label: str, id_keys: tuple[str, ...],
                 what: str) -> tuple[str, str, ShownT | None] | None:
        """An item's id, how messages name it (`label (id)`) and what the round showed of
        it (None without `expected`); None after a problem, such as an id the round did not
        show. `what`: how the message names the item ("belief ", "premise ", or "")."""
        ident = self.item_id(obj, line, label, id_keys)
        if not ident:
            return None
        where = f"{label} ({ident})"
        if self.expected is None:
            return ident, where, None
        found = self.expected.get(ident)
        if found is None:
            self.problem(f"{where} names {what}'{ident}', which this round did not show", line)
            return None
        self.named.add(ident)
        return ident, where, found

    def unanswered(self, keys: Iterable[tuple[str, str]], problem: Callable[[str, str], str]
                   ) -> None:
        """Each shown key (with its item's id) that has no usable answer: passed over when
        no answer of the reply names its item; else the reply took the item up and left this
        part of it out or unreadable: the problem `problem(key, item)` says (none when it
        says "", as when the unreadable answer is diagnosed already)."""
        for key, item in keys:
            self.out.missing.append(key)
            if item not in self.named:
                self.out.passed_over.append(key)
            elif reason := problem(key, item):
                self.problem(reason, 0)

    def justification(self, obj: Mapping[str, object], ident: str, where: str,
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


class JustificationReader(ItemReader[ParseT, Mapping[int, ClaimT]], ABC):
    """The reader of a reply with one answer per justification shown (review, repair): an
    item's id and justification number are checked against what the round showed, then
    `read_answer` reads the rest. Messages name an item `label N (id)` and its id `what`."""

    label = "answer"
    what = ""  # "belief " or ""

    def read(self, obj: JsonValue, line: int, index: int, seen: set[str]) -> None:
        found = self.shown_id(obj, line, f"{self.label} {index}", ("id", "belief"), self.what)
        if found is None or not isinstance(obj, dict):  # (not an object: a problem already)
            return
        belief, where, shown = found
        position = self.justification(obj, belief, where, shown, line)
        if position is not None:
            self.read_answer(obj, line, seen, belief, where, shown, position)

    @abstractmethod
    def read_answer(self, obj: Mapping[str, JsonValue], line: int, seen: set[str], belief: str,
                    where: str, shown: Mapping[int, ClaimT] | None, position: int) -> None:
        """Read the answer on justification `position` of `belief` (`shown`: what the round
        showed of each of its justifications, by number)."""


class VerdictReader(ItemReader[ParseT, ShownT], ABC):
    """The reader of a reply with one verdict per item shown (negatives, premise review): an
    item's id is checked against what the round showed, then `read_answer` reads the rest.
    `noun` is what the stage calls an item ("belief", "premise"): the key an answer may give
    its id under besides `id`, and how messages name the id; an answer is `verdict N (id)`."""

    noun = "item"

    def read(self, obj: JsonValue, line: int, index: int, seen: set[str]) -> None:
        found = self.shown_id(obj, line, f"verdict {index}", ("id", self.noun), f"{self.noun} ")
        if found is not None and isinstance(obj, dict):  # (not an object: a problem already)
            self.read_answer(obj, line, seen, *found)

    @abstractmethod
    def read_answer(self, obj: Mapping[str, JsonValue], line: int, seen: set[str], ident: str,
                    where: str, shown: ShownT | None) -> None:
        """Read the verdict on item `ident` (`shown`: what the round showed of it, None when
        a proposals file is read)."""

    def finish(self) -> ParseT:
        """The parse, once every answer is read: each shown item without a usable verdict is
        missing (`unanswered`), a problem `no verdict on <noun> 'id'` unless a diagnostic
        names the item already (its answer was unreadable; a second verdict cannot leave one
        without, the first stands)."""
        if self.expected is not None:
            judged = {item.key for item in self.out.items}
            self.unanswered(((k, k) for k in self.expected if k not in judged), lambda _, item: (
                "" if any(f"({item})" in d.reason for d in self.out.diagnostics)
                else f"no verdict on {self.noun} '{item}'"))
        return self.out


def read_items(text: object, shape: ReplyShape, noun: str, reader: ItemReader[ParseT, ShownT],
               read: Callable[[JsonValue, int, int, set[str]], None]) -> bool:
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
