"""The read-only tools `ask` offers the model (search, show, explain, trace, what_if) and the
session that remembers every belief the model was shown or fetched, with its label: a
citation is checked against it. A tool never writes (what_if runs in a rolled-back
transaction) and never raises at the model: bad arguments come back as {"error": ...}.
"""
from __future__ import annotations

from typing import Protocol

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from engine import results, tms
from engine.embedding.cache import Embedder
from engine.errors import EngineError
from engine.model import Truth
from engine.reading import search as searching
from engine.reading.ranking import RankingTx
from engine.store import Store
from engine.tms.records import ResolutionTx
from engine.tms import explain as explaining

TOOL_SEARCH_LIMIT = 8
TOOL_NAMES = ("search", "show", "explain", "trace", "what_if")

_ID = {"type": "string", "description": "a belief id, e.g. auth-uses-jwt"}
TOOL_SPECS: dict[str, dict[str, object]] = {
    "search": {
        "description": "Find beliefs by words in their text or id (OUT ones included, marked).",
        "parameters": {"type": "object", "properties": {
            "words": {"type": "string", "description": "words to look for"}},
            "required": ["words"]}},
    "show": {
        "description": "One belief in full: text, label, depth, justifications, dependents.",
        "parameters": {"type": "object", "properties": {"id": _ID}, "required": ["id"]}},
    "explain": {
        "description": "Why a belief is IN (its support down to premises) or OUT (what fails).",
        "parameters": {"type": "object", "properties": {"id": _ID}, "required": ["id"]}},
    "trace": {
        "description": "The premises a belief ultimately rests on, each with its label.",
        "parameters": {"type": "object", "properties": {"id": _ID}, "required": ["id"]}},
    "what_if": {
        "description": "What retracting or asserting a belief would change; nothing is written.",
        "parameters": {"type": "object", "properties": {
            "operation": {"type": "string", "enum": ["retract", "assert"]}, "id": _ID},
            "required": ["operation", "id"]}},
}


def tool_schemas() -> list[dict[str, object]]:
    """The tools in the OpenAI function format, which bind_tools of every provider reads."""
    return [{"type": "function", "function": {"name": name, **spec}}
            for name, spec in TOOL_SPECS.items()]


@dataclass
class AskSession:
    """What one question's model has seen: the bundle's beliefs and what tools fetched,
    each id with its label (IN, OUT, UNDETERMINED) as it was shown."""

    shown: dict[str, str] = field(default_factory=dict)
    fetched: dict[str, str] = field(default_factory=dict)
    tool_calls: list[dict[str, object]] = field(default_factory=list)

    def label_of(self, belief_id: str) -> str | None:
        return self.shown.get(belief_id) or self.fetched.get(belief_id)

    def allowed_ids(self) -> tuple[str, ...]:
        return tuple(sorted(set(self.shown) | set(self.fetched)))

    def note(self, found: Mapping[str, str]) -> None:
        for bid, truth in found.items():
            if bid not in self.shown:
                self.fetched.setdefault(bid, truth)


class AskToolsTx(RankingTx, ResolutionTx, Protocol):
    """What the tools read: the ranking (search), and beliefs, explanations and what-ifs."""


class AskTools:
    """The tools over a store, each call noting what it showed in `session`."""

    def __init__(self, store: Store[AskToolsTx], session: AskSession, *,
                 embedder: Embedder | None = None):
        self.store = store
        self.session = session
        self.embedder = embedder
        self._calls: dict[str, Callable[[dict[str, object]], tuple[object, dict[str, str]]]] = {
            "search": self._search, "show": self._show, "explain": self._explain,
            "trace": self._trace, "what_if": self._what_if}

    def run(self, name: str, args: Mapping[str, object] | None) -> dict[str, object]:
        given = dict(args or {})
        entry: dict[str, object] = {"tool": name, "args": given}
        call = self._calls.get(name)
        if call is None:
            result: object = {"error": f"no tool {name!r}: use one of {', '.join(TOOL_NAMES)}"}
            found: dict[str, str] = {}
        else:
            try:
                result, found = call(given)
            except EngineError as e:
                result, found = {"error": str(e)}, {}
            except (TypeError, ValueError, KeyError) as e:
                result, found = {"error": f"bad arguments for {name}: {e}"}, {}
        self.session.note(found)
        entry["fetched"] = sorted(found)
        entry["error"] = result.get("error") if isinstance(result, dict) else None
        self.session.tool_calls.append(entry)
        return result if isinstance(result, dict) else {"result": result}

    def _search(self, args: dict[str, object]) -> tuple[object, dict[str, str]]:
        hits = searching.search(self.store, str(args["words"]), limit=TOOL_SEARCH_LIMIT,
                                include_out=True, embedder=self.embedder)
        return ({"hits": [h.as_dict() for h in hits]},
                {h.belief.id: h.belief.truth.value for h in hits})

    def _show(self, args: dict[str, object]) -> tuple[object, dict[str, str]]:
        b, dependents = tms.show(self.store, str(args["id"]))
        return results.belief_record(b, dependents), {b.id: (b.truth or Truth.OUT).value}

    def _explain(self, args: dict[str, object]) -> tuple[object, dict[str, str]]:
        step = explaining.explain(self.store, str(args["id"]))
        found: dict[str, str] = {}

        def walk(s: explaining.Step) -> None:
            if s.truth != "MISSING":
                found.setdefault(s.id, s.truth)
            for j in s.justifications:
                for part in (*j.antecedents, *j.outlist):
                    walk(part)

        walk(step)
        return step.as_dict(), found

    def _trace(self, args: dict[str, object]) -> tuple[object, dict[str, str]]:
        bid = str(args["id"])
        entries = explaining.trace(self.store, bid)
        return ({"id": bid, "rests_on": [e.__dict__ for e in entries]},
                {e.id: e.truth for e in entries if e.truth != "MISSING"})

    def _what_if(self, args: dict[str, object]) -> tuple[object, dict[str, str]]:
        change = tms.what_if(self.store, str(args["operation"]), str(args["id"]))
        return change.as_dict(), {}
