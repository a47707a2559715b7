"""What review looks at next: IN derived beliefs whose review is missing or stale, in
dependency order, shallowest first.

A belief is due when its review is not current (never reviewed, or its hash differs from the
one stamped: the claim, a justification or the text of a named belief changed; with
`review_all`, also a review older than this run) and every in-scope derived belief it rests
on, transitively, has a current review. So when review defeats a belief, what rested on it
goes OUT before it could be shown. Beliefs on a loop of support are taken together. With
`ids`, exactly those (IN, derived) beliefs are in scope and none waits for another; with
`min_depth`, beliefs shallower than it are out of scope and hold nothing back; without
`wait` (--no-wait) none waits for another either.

Holding back is bounded: a belief the run has given up on (passed over by the model as often
as engine/stages/turns.py allows: `given_up`) holds nothing back, so what waited only on such
beliefs is due again, `released` (the run shows it once). Each belief held back is listed with
the unreviewed beliefs it waits on (`waiting_on`: those it rests on directly, each due or held
back in turn; following them leads to the due ones that must be reviewed first).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from engine.stages.arguments import UnderReview, read_under_review
from engine.stages.records import ArgumentsTx
from engine.review.records import ReviewCandidate, ReviewRecords
from engine.tms.graphs import strongly_connected

OK, DUE, WAITING = "ok", "due", "waiting"


@dataclass(frozen=True)
class DueOptions:
    ids: tuple[str, ...] = ()
    min_depth: int = 0
    review_all: bool = False  # review again what is reviewed (before `since`)
    since: str = ""  # the run's start: reviews from this run count as current with review_all
    wait: bool = True  # a belief waits for what it rests on (False: --no-wait)
    given_up: frozenset[str] = frozenset()  # beliefs the run will not show again


@dataclass(frozen=True)
class DueList:
    due: tuple[str, ...]  # in the order review takes them
    in_scope: int  # IN derived beliefs considered
    current: int  # of those, with a current review
    waiting: int  # not current, but resting on a belief whose review is not current
    material: Mapping[str, UnderReview]  # what was read to decide (the reviewed beliefs)
    waiting_on: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # each held-back
    # belief -> the unreviewed beliefs it rests on (and waits on)
    released: frozenset[str] = frozenset()  # due only because what held them is given up


@dataclass(frozen=True)
class Holds:
    """Each candidate's state (OK, DUE, WAITING), what each WAITING one waits on, and the
    DUE ones released from waiting on given-up beliefs."""

    state: dict[str, str]
    waiting_on: dict[str, tuple[str, ...]]
    released: frozenset[str]


def is_current(c: ReviewCandidate, material: UnderReview | None, options: DueOptions) -> bool:
    if not c.review_sha256 or material is None or material.sha256 != c.review_sha256:
        return False
    return not options.review_all or (bool(options.since) and c.reviewed_at >= options.since)


def upstream_first(upstream: Mapping[str, Sequence[str]]) -> list[list[str]]:
    """The strongly connected components of the rests-on graph, each after every component
    it rests on."""
    return strongly_connected(upstream, upstream)


def holds(candidates: Sequence[ReviewCandidate], current: set[str], *, independent: bool,
          given_up: frozenset[str] = frozenset()) -> Holds:
    """The states, with what holds each WAITING belief back: the not-current beliefs it rests
    on directly (outside its loop, if it is on one), except those given up."""
    scope = {c.id: c for c in candidates}
    if independent:
        return Holds({i: OK if i in current else DUE for i in scope}, {}, frozenset())
    upstream = {c.id: [a for a in c.rests_on if a in scope and a != c.id] for c in candidates}
    state: dict[str, str] = {}
    waiting_on: dict[str, tuple[str, ...]] = {}
    released: set[str] = set()
    for component in upstream_first(upstream):
        members = component if len(component) == 1 else set(component)
        unreviewed = {a for i in component for a in upstream[i]
                      if a not in members and state[a] != OK}
        holding = [a for a in unreviewed if a not in given_up]
        if holding:
            on = tuple(sorted(holding))
            for i in component:
                state[i], waiting_on[i] = WAITING, on
            continue
        for i in component:
            state[i] = OK if i in current else DUE
            if unreviewed and state[i] == DUE:
                released.add(i)
    return Holds(state, waiting_on, frozenset(released))


class ReviewDueTx(ReviewRecords, ArgumentsTx, Protocol):
    """What is due reads: the candidates and their stamps, and the arguments reviewed."""


def read_due(tx: ReviewDueTx, options: DueOptions = DueOptions()) -> DueList:
    wanted = set(options.ids)
    candidates = [c for c in tx.review_candidates()
                  if (c.id in wanted if wanted else (c.depth or 0) >= options.min_depth)]
    reviewed = [c.id for c in candidates if c.review_sha256]
    material = read_under_review(tx, reviewed) if reviewed else {}
    current = {c.id for c in candidates if is_current(c, material.get(c.id), options)}
    found = holds(candidates, current, independent=bool(wanted) or not options.wait,
                  given_up=options.given_up)
    depth = {c.id: c.depth if c.depth is not None else 0 for c in candidates}
    due = sorted((i for i, s in found.state.items() if s == DUE), key=lambda i: (depth[i], i))
    return DueList(
        due=tuple(due),
        in_scope=len(candidates),
        current=len(current),
        waiting=len(found.waiting_on),
        material=material,
        waiting_on=found.waiting_on,
        released=found.released,
    )
