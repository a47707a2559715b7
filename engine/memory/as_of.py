"""A store seen as of a point: every read answered from the network as it was then
(engine/memory/history.py rebuilds it once), every write refused with one clear line.

`show`, `list`, `explain`, `trace`, `status` and the MCP read tools run unchanged on it: they
call the same transaction verbs, answered here from the rebuilt network. A verb that needs
what history does not keep (search's indexes, embeddings, stage records) is refused by name.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from engine.change_records import ChangeEntry
from engine.errors import InvalidInput
from engine.memory import history
from engine.model import Belief, Network, Nogood, Status, Truth
from engine.store import BeliefFilter, Store

T = TypeVar("T")


class AsOfView:
    """The read verbs of a transaction, over one rebuilt network."""

    def __init__(self, network: Network, point: str):
        self._network = network
        self._point = point
        self._beliefs = network.beliefs
        dependents: dict[str, set[str]] = {}
        for b in self._beliefs.values():
            for j in b.justifications:
                for ref in j.mentions():
                    dependents.setdefault(ref, set()).add(b.id)
        self._dependents = dependents

    def __getattr__(self, name: str) -> Any:
        raise InvalidInput(f"'{name}' cannot be read as of a point (history keeps the "
                           f"network's definitions, not {name.replace('_', ' ')})",
                           field="as_of", value=self._point)

    # --- the TMS reads ------------------------------------------------------------------
    def read_network(self) -> Network:
        return self._network

    def get_beliefs(self, ids: Iterable[str]) -> dict[str, Belief]:
        return {i: self._beliefs[i] for i in ids if i in self._beliefs}

    def existing_ids(self, ids: Iterable[str]) -> set[str]:
        return {i for i in ids if i in self._beliefs}

    def status(self) -> Status:
        return history.status_of(self._network)

    def nogoods(self) -> list[Nogood]:
        return list(self._network.nogoods)

    def shown_belief(self, belief_id: str) -> tuple[Belief, set[str]] | None:
        b = self._beliefs.get(belief_id)
        return (b, set(self._dependents.get(belief_id, ()))) if b else None

    def direct_dependents(self, belief_id: str) -> set[str]:
        return set(self._dependents.get(belief_id, ()))

    def dependent_counts(self, ids: Iterable[str]) -> dict[str, int]:
        return {i: len(self._dependents.get(i, ())) for i in ids if i in self._beliefs}

    def upstream(self, ids: Iterable[str]) -> dict[str, Belief]:
        seen = {i for i in ids if i in self._beliefs}
        frontier = list(seen)
        while frontier:
            named = {ref for i in frontier for j in self._beliefs[i].justifications
                     for ref in j.mentions() if ref in self._beliefs}
            frontier = sorted(named - seen)
            seen.update(frontier)
        return {i: self._beliefs[i] for i in seen}

    def supersede_links(self, belief_id: str) -> tuple[list[str], list[str]]:
        by = [r.new for r in self._network.supersessions if r.old == belief_id]
        supersedes = [r.old for r in self._network.supersessions if r.new == belief_id]
        return sorted(by), sorted(supersedes)

    def truths(self, ids: Iterable[str]) -> dict[str, Truth]:
        return {i: self._beliefs[i].truth or Truth.OUT for i in ids if i in self._beliefs}

    def impacts(self, ids: Iterable[str], visible_to: frozenset[str] | None = None
                ) -> dict[str, int]:
        out = {}
        for i in ids:
            if i not in self._beliefs:
                continue
            seen: set[str] = set()
            frontier = [i]
            while frontier:
                step = {d for x in frontier for d in self._dependents.get(x, ())} - seen - {i}
                seen.update(step)
                frontier = sorted(step)
            out[i] = len(seen)
        return out

    def list_beliefs(self, which: BeliefFilter) -> list[Belief]:
        challenges = {b.id for b in self._beliefs.values() if b.truth == Truth.IN
                      and b.metadata.get("source_type") == "challenge"}
        superseded = {r.old for r in self._network.supersessions}

        def keep(b: Belief) -> bool:
            truth = b.truth or Truth.OUT
            return ((which.truth is None or truth == which.truth
                     or (which.truth == Truth.OUT and truth == Truth.UNDETERMINED))
                    and (which.premises is None or which.premises == b.is_premise)
                    and (not which.challenged or any(o in challenges for j in b.justifications
                                                     for o in j.outlist))
                    and (not which.superseded or b.id in superseded)
                    and (which.min_depth is None or (b.depth is not None
                                                     and b.depth >= which.min_depth))
                    and (which.max_depth is None or (b.depth is not None
                                                     and b.depth <= which.max_depth))
                    and (not which.has_dependents or b.id in self._dependents))

        found = [b for _, b in sorted(self._beliefs.items()) if keep(b)]
        if which.sort == "depth":
            found.sort(key=lambda b: -(b.depth if b.depth is not None else -1))
        elif which.sort == "updated":
            found.sort(key=lambda b: b.updated_at, reverse=True)
        elif which.sort == "impact":
            counts = self.dependent_counts(b.id for b in found)
            found.sort(key=lambda b: -counts.get(b.id, 0))
        return found


class AsOfStore:
    """A store whose reads are as of `point` (the network rebuilt on the first read and kept:
    the past does not change) and which refuses every write."""

    def __init__(self, store: Store, point: str, *, what: str = ""):
        self._store = store
        self.point = point
        self._what = what or f"as of {point}"
        self._view: AsOfView | None = None

    def view(self) -> AsOfView:
        if self._view is None:
            self._view = AsOfView(history.network_as_of(self._store, self.point), self.point)
        return self._view

    def init_schema(self) -> dict[str, int]:
        raise self._refused()

    def read(self, work: Callable[[Any], T]) -> T:
        return work(self.view())

    def write(self, work: Callable[[Any], T], entry: ChangeEntry | None = None) -> T:
        raise self._refused()

    def dry_run(self, work: Callable[[Any], T]) -> T:
        raise self._refused()

    def close(self) -> None:
        self._store.close()

    def _refused(self) -> InvalidInput:
        return InvalidInput(f"this memory is read {self._what}: it takes no writes",
                            field="as_of", value=self.point)
