"""What review looks at next: IN derived beliefs whose review is missing or stale, in
dependency order, shallowest first.

A belief is due when its review is not current (never reviewed, or its hash differs from the
one stamped: the claim, a justification or the text of a named belief changed; with
`review_all`, also a review older than this run) and every in-scope derived belief it rests
on, transitively, has a current review. So when review defeats a belief, what rested on it
goes OUT before it could be shown. Beliefs on a loop of support are taken together. With
`ids`, exactly those (IN, derived) beliefs are in scope and none waits for another; with
`min_depth`, beliefs shallower than it are out of scope and hold nothing back.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.review.material import UnderReview, read_under_review
from engine.review.records import ReviewCandidate, ReviewRecords
from engine.tms.graphs import strongly_connected

OK, DUE, WAITING = "ok", "due", "waiting"


@dataclass(frozen=True)
class DueOptions:
    ids: tuple[str, ...] = ()
    min_depth: int = 0
    review_all: bool = False  # review again what is reviewed (before `since`)
    since: str = ""  # the run's start: reviews from this run count as current with review_all


@dataclass(frozen=True)
class DueList:
    due: tuple[str, ...]  # in the order review takes them
    in_scope: int  # IN derived beliefs considered
    current: int  # of those, with a current review
    waiting: int  # not current, but resting on a belief whose review is not current
    material: Mapping[str, UnderReview]  # what was read to decide (the reviewed beliefs)


def is_current(c: ReviewCandidate, material: UnderReview | None, options: DueOptions) -> bool:
    if not c.review_sha256 or material is None or material.sha256 != c.review_sha256:
        return False
    return not options.review_all or (bool(options.since) and c.reviewed_at >= options.since)


def upstream_first(upstream: Mapping[str, Sequence[str]]) -> list[list[str]]:
    """The strongly connected components of the rests-on graph, each after every component
    it rests on."""
    return strongly_connected(upstream, upstream)


def states(candidates: Sequence[ReviewCandidate], current: set[str], *, independent: bool
           ) -> dict[str, str]:
    """Each candidate's state: OK (current, and nothing it rests on is not), DUE, WAITING.
    A loop of support is one component: its members are due together."""
    scope = {c.id: c for c in candidates}
    if independent:
        return {i: OK if i in current else DUE for i in scope}
    upstream = {c.id: [a for a in c.rests_on if a in scope and a != c.id] for c in candidates}
    state: dict[str, str] = {}
    for component in upstream_first(upstream):
        if len(component) == 1:  # the usual case: no loop
            (i,) = component
            held = any(state[a] != OK for a in upstream[i])
            state[i] = WAITING if held else (OK if i in current else DUE)
            continue
        members = set(component)
        held = any(state[a] != OK for i in component for a in upstream[i] if a not in members)
        for i in component:
            state[i] = WAITING if held else (OK if i in current else DUE)
    return state


def read_due(tx: ReviewRecords, options: DueOptions = DueOptions()) -> DueList:
    wanted = set(options.ids)
    candidates = [c for c in tx.review_candidates()
                  if (c.id in wanted if wanted else (c.depth or 0) >= options.min_depth)]
    reviewed = [c.id for c in candidates if c.review_sha256]
    material = read_under_review(tx, reviewed) if reviewed else {}
    current = {c.id for c in candidates if is_current(c, material.get(c.id), options)}
    state = states(candidates, current, independent=bool(wanted))
    depth = {c.id: c.depth if c.depth is not None else 0 for c in candidates}
    due = sorted((i for i, s in state.items() if s == DUE), key=lambda i: (depth[i], i))
    return DueList(
        due=tuple(due),
        in_scope=len(candidates),
        current=len(current),
        waiting=sum(s == WAITING for s in state.values()),
        material=material,
    )
