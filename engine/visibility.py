"""What a client with a visibility set sees: only beliefs whose effective access tags are all
in its set (engine/access.py); untagged beliefs are visible to all.

`VisibleStore` wraps a store: while a visibility set is in force (VISIBLE_TO, set per call
by the MCP server, or given by `--visible-to` on the CLI) every read runs on a `VisibleTx`,
which answers the few verbs the filtered reads use (show, list, search, explain, trace,
trace-tags) and refuses every other one (deny by default: a verb added later leaks nothing
until someone filters it here). A hidden belief is absent from every answer, exactly as an
unknown id; where a visible belief names one (an outlist member, a justification that does
not hold), the name becomes `(hidden-N)`, a stub with no text whose truth is kept so that
explain and trace can stop there and say something is hidden. No write runs under a set.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from contextvars import ContextVar
from typing import Any, TypeVar

from engine.access import visible
from engine.errors import InvalidInput
from engine.model import Belief
from engine.store import BeliefFilter, BeliefHit

T = TypeVar("T")

VISIBLE_TO: ContextVar[frozenset[str] | None] = ContextVar("eem_visible_to", default=None)
HIDDEN_TEXT = "(hidden: not visible to this client)"
SEARCH_OVERFETCH = 4  # hits asked for per hit wanted, since hidden ones are dropped after


def refusal(visible_to: frozenset[str], what: str) -> InvalidInput:
    seen = ", ".join(sorted(visible_to)) or "untagged beliefs only"
    return InvalidInput(f"{what} is not available to a client that sees {seen}",
                        field="visible_to")


class VisibleTx:
    """A read transaction that shows only what `visible_to` may see."""

    def __init__(self, tx: Any, visible_to: frozenset[str]) -> None:
        self._tx = tx
        self._visible_to = visible_to
        self._stubs: dict[str, Belief] = {}  # hidden id -> its stub, stable in one read

    def __getattr__(self, name: str) -> Any:
        raise refusal(self._visible_to, f"this read ({name})")

    def _sees(self, b: Belief) -> bool:
        return visible(b.effective_tags, self._visible_to)

    def _stub(self, hidden: Belief) -> Belief:
        stub = self._stubs.get(hidden.id)
        if stub is None:
            stub = Belief(id=f"(hidden-{len(self._stubs) + 1})", text=HIDDEN_TEXT,
                          truth=hidden.truth, depth=hidden.depth)
            self._stubs[hidden.id] = stub
        return stub

    def _masked(self, beliefs: Iterable[Belief]) -> list[Belief]:
        """`beliefs` (all visible) with every name of a hidden belief replaced by its stub's."""
        beliefs = list(beliefs)
        named = {r for b in beliefs for j in b.justifications for r in j.mentions()}
        hidden = {bid: b for bid, b in self._tx.get_beliefs(sorted(named)).items()
                  if not self._sees(b)}
        if not hidden:
            return beliefs

        def name(r: str) -> str:
            return self._stub(hidden[r]).id if r in hidden else r

        return [dataclasses.replace(b, justifications=tuple(
            dataclasses.replace(j, antecedents=tuple(map(name, j.antecedents)),
                                outlist=tuple(map(name, j.outlist)))
            for j in b.justifications)) for b in beliefs]

    # --- the verbs the filtered reads use ----------------------------------------------
    def get_beliefs(self, ids: Iterable[str]) -> dict[str, Belief]:
        shown = [b for b in self._tx.get_beliefs(ids).values() if self._sees(b)]
        return {b.id: b for b in self._masked(shown)}

    def existing_ids(self, ids: Iterable[str]) -> set[str]:
        return set(self.get_beliefs(ids))

    def direct_dependents(self, belief_id: str) -> set[str]:
        return self.existing_ids(self._tx.direct_dependents(belief_id))

    def list_beliefs(self, which: BeliefFilter) -> list[Belief]:
        return self._masked(b for b in self._tx.list_beliefs(which) if self._sees(b))

    def upstream(self, ids: Iterable[str]) -> dict[str, Belief]:
        """What explain and trace walk: from the visible ones of `ids`, through visible
        beliefs only; a hidden one met on the way is its stub, and the walk stops there."""
        ids = list(ids)
        found = self._tx.upstream(ids)
        reached: dict[str, Belief] = {}
        frontier = [i for i in ids if i in found and self._sees(found[i])]
        while frontier:
            following: list[str] = []
            for bid in frontier:
                if bid in reached:
                    continue
                reached[bid] = found[bid]
                following.extend(r for j in found[bid].justifications for r in j.mentions()
                                 if r in found and r not in reached and self._sees(found[r]))
            frontier = following
        shown = {b.id: b for b in self._masked(reached.values())}
        for stub in self._stubs.values():
            shown[stub.id] = stub
        return shown

    def search_text(self, words: Sequence[str], limit: int, include_out: bool
                    ) -> list[BeliefHit]:
        hits = self._tx.search_text(words, limit * SEARCH_OVERFETCH, include_out)
        seen = self.existing_ids(h.id for h in hits)
        return [h for h in hits if h.id in seen][:limit]

    def similar_beliefs(self, vector: Sequence[float], limit: int) -> list[tuple[str, float]]:
        return self._tx.similar_beliefs(vector, limit)  # ids only: belief_hits filters them

    def belief_hits(self, ids: Iterable[str]) -> dict[str, BeliefHit]:
        hits = self._tx.belief_hits(ids)
        seen = self.existing_ids(hits)
        return {i: h for i, h in hits.items() if i in seen}


class VisibleStore:
    """A store whose reads are filtered while a visibility set is in force: the one given
    here (the CLI's `--visible-to`), else the current call's VISIBLE_TO."""

    def __init__(self, store: Any, visible_to: frozenset[str] | None = None) -> None:
        self._store = store
        self._fixed = visible_to

    def _current(self) -> frozenset[str] | None:
        return self._fixed if self._fixed is not None else VISIBLE_TO.get()

    def init_schema(self) -> dict[str, int]:
        return self._store.init_schema()

    def read(self, work: Callable[[Any], T]) -> T:
        visible_to = self._current()
        if visible_to is None:
            return self._store.read(work)
        return self._store.read(lambda tx: work(VisibleTx(tx, visible_to)))

    def write(self, work: Callable[[Any], T], entry: Any = None) -> T:
        visible_to = self._current()
        if visible_to is not None:
            raise refusal(visible_to, "a write")
        return self._store.write(work, entry)

    def dry_run(self, work: Callable[[Any], T]) -> T:
        visible_to = self._current()
        if visible_to is not None:
            raise refusal(visible_to, "a what-if")
        return self._store.dry_run(work)

    def close(self) -> None:
        self._store.close()

    def __getattr__(self, name: str) -> Any:  # the store's other parts (the writer lock, ...)
        return getattr(self._store, name)

