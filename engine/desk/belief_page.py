"""A page per belief, read through the service: the belief as `show` gives it (label, depth,
text, justifications, dependents, impact, supersede links), its sources with their lines,
each justification with its antecedents' and outlist's labels (the failing ones marked),
`explain` as a tree, what it rests on (`trace`), its history (`show --history`), and the
challenges, defeaters and review verdicts that bear on it."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.change_records import LogEntry, Touch
from engine.desk.queue import Ref
from engine.errors import EngineError
from engine.model import Belief, Justification
from engine.service import history, reading, sources
from engine.service.context import Context
from engine.service.sources import SourceLines
from engine.tms.explain import Step, TraceEntry

ARGUING = ("challenge", "review", "defence", "defeat")  # metadata source_type of arguments


@dataclass(frozen=True)
class JustificationView:
    number: int
    justification: Justification
    antecedents: tuple[Ref, ...]
    outlist: tuple[Ref, ...]

    @property
    def holds(self) -> bool:
        return all(r.truth == "IN" for r in self.antecedents) and \
            all(r.truth != "IN" for r in self.outlist)

    def failing(self, r: Ref, *, outlist: bool) -> bool:
        return (r.truth == "IN") if outlist else (r.truth != "IN")


@dataclass
class BeliefPage:
    belief: Belief
    impact: int
    dependents: tuple[Ref, ...]
    superseded_by: tuple[str, ...]
    supersedes: tuple[str, ...]
    justifications: tuple[JustificationView, ...]
    explained: Step | None
    rests_on: tuple[TraceEntry, ...]
    changes: tuple[tuple[LogEntry, Touch], ...]
    arguments: tuple[Ref, ...]  # challenges, defeaters, defences in its outlists
    reviews: tuple[Mapping[str, Any], ...]  # the query pack's review_of rows
    lines: SourceLines | None = None
    notes: list[str] = field(default_factory=list)  # what could not be read, and why

    @property
    def defensible(self) -> bool:
        return str(self.belief.metadata.get("source_type", "")) in ARGUING


def read_page(ctx: Context, belief_id: str) -> BeliefPage:
    shown = reading.show(ctx, belief_id)
    b = shown.belief
    named = sorted({i for j in b.justifications for i in (*j.antecedents, *j.outlist)}
                   | set(shown.dependents))
    found = reading.beliefs(ctx, named).found if named else {}

    def ref(i: str) -> Ref:
        x = found.get(i)
        return Ref(i, "missing", "") if x is None else Ref(i, x.truth.value if x.truth else "",
                                                          x.text)

    views = tuple(JustificationView(n, j, tuple(ref(i) for i in j.antecedents),
                                    tuple(ref(i) for i in j.outlist))
                  for n, j in enumerate(b.justifications, 1))
    arguing = tuple(ref(i) for j in b.justifications for i in j.outlist
                    if str(getattr(found.get(i), "metadata", {}).get("source_type", ""))
                    in ARGUING)
    notes: list[str] = []
    explained = _or_note(notes, lambda: reading.explain(ctx, belief_id))
    traced = _or_note(notes, lambda: reading.trace(ctx, belief_id))
    changed = _or_note(notes, lambda: history.belief_history(ctx, belief_id))
    reviews = _or_note(notes, lambda: reading.query(ctx, "review_of", {"id": belief_id}))
    page = BeliefPage(
        b, shown.impact, tuple(ref(i) for i in shown.dependents), shown.superseded_by,
        shown.supersedes, views, explained, traced.rests_on if traced else (),
        changed.items if changed else (), arguing,
        tuple(_rows(reviews.as_dict())) if reviews else (), notes=notes)
    if b.source:
        lines = b.metadata.get("lines")
        span = (int(lines[0]), int(lines[1])) if isinstance(lines, (list, tuple)) and \
            len(lines) == 2 else None
        page.lines = _or_note(notes, lambda: sources.source_lines(
            ctx, b.source, span, str(b.metadata.get("quote") or "")))
    return page


def _rows(answered: Mapping[str, object]) -> list[Mapping[str, Any]]:
    rows = answered.get("rows")
    return [r for r in rows if isinstance(r, Mapping)] if isinstance(rows, list) else []


def _or_note(notes: list[str], read: Any) -> Any:
    try:
        return read()
    except EngineError as e:
        notes.append(str(e))
        return None


def text_then(ctx: Context, belief_id: str, seq: int) -> str:
    """The belief's text as it was after change `seq`."""
    return reading.show(ctx, belief_id, as_of=str(seq)).belief.text
