"""A page per belief, read through the service: the belief as `show` gives it (label, depth,
text, justifications, dependents, impact, supersede links), its sources with their lines,
each justification with its antecedents' and outlist's labels (the failing ones marked),
its history (`show --history`), and the challenges, defeaters and review verdicts that bear
on it; then, as a part of its own the page reads after it is drawn, `explain` as a tree,
what it rests on (`trace`) and its impact (a deep belief's upstream is thousands of beliefs,
a hub's impact a walk over most of the network)."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from engine.change_records import LogEntry, Touch
from engine.desk.queue import Ref
from engine.errors import EngineError
from engine.model import Belief, Justification
from engine.service import history, reading, sources
from engine.service.context import Context
from engine.service.sources import SourceLines
from engine.tms.explain import JustificationStep, Step, TraceEntry

T = TypeVar("T")

DEPENDENTS_SHOWN = 50
ARGUING = ("challenge", "review", "defence", "defeat")  # metadata source_type of arguments
STEPS_SHOWN = 400  # explain steps drawn on a page; deeper ones link to their own page
CUT = "on-its-page"  # the `why` of a step the tree was cut at


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
    dependents: tuple[Ref, ...]  # the first DEPENDENTS_SHOWN
    direct: int  # how many rest on it directly
    superseded_by: tuple[str, ...]
    supersedes: tuple[str, ...]
    justifications: tuple[JustificationView, ...]
    changes: tuple[tuple[LogEntry, Touch], ...]
    arguments: tuple[Ref, ...]  # challenges, defeaters, defences in its outlists
    reviews: tuple[Mapping[str, object], ...]  # the query pack's review_of rows
    lines: SourceLines | None = None
    notes: list[str] = field(default_factory=list)  # what could not be read, and why

    @property
    def defensible(self) -> bool:
        return str(self.belief.metadata.get("source_type", "")) in ARGUING


def read_page(ctx: Context, belief_id: str) -> BeliefPage:
    shown = reading.show(ctx, belief_id, impact=False)  # counted with the why part
    b = shown.belief
    named = sorted({i for j in b.justifications for i in (*j.antecedents, *j.outlist)}
                   | set(shown.dependents[:DEPENDENTS_SHOWN]))
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
    changed = _or_note(notes, lambda: history.belief_history(ctx, belief_id))
    reviews = _or_note(notes, lambda: reading.query(ctx, "review_of", {"id": belief_id}))
    page = BeliefPage(
        b, tuple(ref(i) for i in shown.dependents[:DEPENDENTS_SHOWN]), len(shown.dependents),
        shown.superseded_by, shown.supersedes, views, changed.items if changed else (), arguing,
        tuple(_rows(reviews.as_dict())) if reviews else (), notes=notes)
    if b.source:
        lines = b.metadata.get("lines")
        span = (int(lines[0]), int(lines[1])) if isinstance(lines, (list, tuple)) and \
            len(lines) == 2 else None
        page.lines = _or_note(notes, lambda: sources.source_lines(
            ctx, b.source, span, str(b.metadata.get("quote") or "")))
    return page


@dataclass(frozen=True)
class Why:
    """The part of a belief's page about its support: the explain tree (cut after
    STEPS_SHOWN steps), how many steps were left out, what it rests on, and how many beliefs
    rest on it (its impact)."""

    explained: Step
    left_out: int
    rests_on: tuple[TraceEntry, ...]
    impact: int


def read_why(ctx: Context, belief_id: str, steps_shown: int = STEPS_SHOWN) -> Why:
    found = reading.support(ctx, belief_id)
    budget = [steps_shown]
    explained = _cut(found.explained, budget)
    return Why(explained, _count(found.explained) - _count(explained), found.rests_on,
               reading.impact(ctx, belief_id).impact)


def _cut(step: Step, budget: list[int]) -> Step:
    """The tree with at most budget[0] steps, breadth first: a step past it keeps its id and
    label and says its explanation is on its own page."""
    level: list[tuple[Step, Step]] = []
    top = _bare(step, budget)
    level.append((step, top))
    while level:
        below: list[tuple[Step, Step]] = []
        for whole, shown in level:
            if shown.why == CUT:
                continue
            for j in whole.justifications:
                ants = [_bare(a, budget) for a in j.antecedents]
                outs = [_bare(o, budget) for o in j.outlist]
                shown.justifications.append(JustificationStep(j.kind, j.label, j.valid, ants,
                                                              outs))
                below.extend(zip(j.antecedents, ants))
                below.extend(zip(j.outlist, outs))
        level = below
    return top


def _bare(step: Step, budget: list[int]) -> Step:
    if budget[0] <= 0 and step.justifications:
        return Step(step.id, step.truth, CUT, step.depth, detail="explained on its own page")
    budget[0] -= 1
    return Step(step.id, step.truth, step.why, step.depth, detail=step.detail)


def _count(step: Step) -> int:
    return 1 + sum(_count(s) for j in step.justifications for s in (*j.antecedents, *j.outlist))


def _rows(answered: Mapping[str, object]) -> list[Mapping[str, object]]:
    rows = answered.get("rows")
    return [r for r in rows if isinstance(r, Mapping)] if isinstance(rows, list) else []


def _or_note(notes: list[str], read: Callable[[], T]) -> T | None:
    try:
        return read()
    except EngineError as e:
        notes.append(str(e))
        return None


def text_then(ctx: Context, belief_id: str, seq: int) -> str:
    """The belief's text as it was after change `seq`."""
    return reading.show(ctx, belief_id, as_of=str(seq)).belief.text
