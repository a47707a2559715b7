"""A store seen as of a point: every read answered as the memory was then, every write
refused with one clear line.

`show`, `list`, `explain`, `trace`, `status` and the MCP read tools run unchanged on it: they
call the same transaction verbs. What one belief needs (`show`, `explain`, `trace`) is read
from its upstream as it was then (TargetedView: today's definitions with the images of the
changes after the point, the cost growing with those changes and that upstream); what needs
every belief (`status`, `list`, export) from the whole network rebuilt (NetworkView). A verb
that needs what history does not keep (search's indexes, embeddings, stage records) is
refused by name.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from engine.change_records import ChangeEntry
from engine.errors import InvalidInput
from engine.memory import history
from engine.memory.history import HistoryTx
from engine.memory.images import belief_of
from engine.memory.records import Image
from engine.model import Belief, Nogood, Status, Truth
from engine.store import Store
from engine.tms.records import BeliefFilter, Network

T = TypeVar("T")


class NetworkView:
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

    def forward_reference(self, ref: str) -> tuple[list[str], list[str]] | None:
        if ref in self._beliefs:
            return None
        named_by = sorted(self._dependents.get(ref, ()))
        nogoods = sorted(n.id for n in self._network.nogoods if ref in n.members)
        return (named_by, nogoods) if named_by or nogoods else None

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
                    and (not which.has_dependents or b.id in self._dependents)
                    and (which.label is None or any(which.label.lower() in j.label.lower()
                                                    for j in b.justifications)))

        found = [b for _, b in sorted(self._beliefs.items()) if keep(b)]
        if which.sort == "depth":
            found.sort(key=lambda b: -(b.depth if b.depth is not None else -1))
        elif which.sort == "updated":
            found.sort(key=lambda b: b.updated_at, reverse=True)
        elif which.sort == "impact":
            counts = self.dependent_counts(b.id for b in found)
            found.sort(key=lambda b: -counts.get(b.id, 0))
        return found


class TargetedView:
    """The read verbs inside one read transaction, as of a point: a belief's own reads from
    its upstream then, the rest from the whole network rebuilt (once, when first needed)."""

    def __init__(self, tx: Any, point: str):
        self._whole: NetworkView | None = None
        self._tx = tx
        self._point = point
        seq = history.resolve_point(tx, point)
        self._images = history.images_at(tx.writes_after(seq), seq)
        self._beliefs: Mapping[str, Image | None] = self._images.get("belief", {})

    def whole(self) -> NetworkView:
        if self._whole is None:
            self._whole = NetworkView(history.network_at(self._tx.read_network(),
                                                         self._images), self._point)
        return self._whole

    def __getattr__(self, name: str) -> Any:
        return getattr(self.whole(), name)

    def _definitions(self, ids: Iterable[str]) -> dict[str, Belief]:
        """Beliefs as defined then (no labels), those that existed."""
        wanted = set(ids)
        out = {i: belief_of(i, image) for i in wanted
               if (image := self._beliefs.get(i)) is not None}
        out.update(self._tx.get_beliefs(wanted - self._beliefs.keys()))
        return out

    def upstream(self, ids: Iterable[str]) -> dict[str, Belief]:
        seen = self._definitions(ids)
        frontier = set(seen)
        while frontier:
            named = {ref for i in frontier for j in seen[i].justifications
                     for ref in j.mentions()} - seen.keys()
            found = self._definitions(named)
            seen.update(found)
            frontier = set(found)
        # an upstream holds all its labels and tags depend on
        return history.labelled_then(seen)

    def get_beliefs(self, ids: Iterable[str]) -> dict[str, Belief]:
        wanted = set(ids)
        return {i: b for i, b in self.upstream(wanted).items() if i in wanted}

    def existing_ids(self, ids: Iterable[str]) -> set[str]:
        return set(self._definitions(ids))

    def truths(self, ids: Iterable[str]) -> dict[str, Truth]:
        return {i: b.truth or Truth.OUT for i, b in self.get_beliefs(ids).items()}

    def direct_dependents(self, belief_id: str) -> set[str]:
        kept = {d for d in self._tx.direct_dependents(belief_id) if d not in self._beliefs}
        then = {bid for bid, image in self._beliefs.items() if image is not None
                and any(belief_id in j.mentions() for j in belief_of(bid, image).justifications)}
        return kept | then

    def shown_belief(self, belief_id: str) -> tuple[Belief, set[str]] | None:
        found = self.get_beliefs([belief_id]).get(belief_id)
        return (found, self.direct_dependents(belief_id)) if found else None

    def dependent_counts(self, ids: Iterable[str]) -> dict[str, int]:
        existing = self.existing_ids(ids)
        return {i: len(self.direct_dependents(i)) for i in existing}

    def forward_reference(self, ref: str) -> tuple[list[str], list[str]] | None:
        """As NetworkView's, without rebuilding the network: what named `ref` then."""
        if self.existing_ids([ref]):
            return None
        named_by = sorted(self.direct_dependents(ref))
        nogoods = sorted(k for k, n in history.nogoods_at(self._tx.nogoods(), self._images).items()
                         if ref in n.members)
        return (named_by, nogoods) if named_by or nogoods else None

    def supersede_links(self, belief_id: str) -> tuple[list[str], list[str]]:
        return self.whole().supersede_links(belief_id)


class AsOfStore:
    """A store whose reads are as of `point`, and which refuses every write. `keep`: rebuild
    the whole network on the first read and keep it (a release: the past does not change);
    otherwise each read reads what it needs as of the point."""

    def __init__(self, store: Store[HistoryTx], point: str, *, what: str = "", keep: bool = False):
        self._store = store
        self.point = point
        self._what = what or f"as of {point}"
        self._keep = keep
        self._view: NetworkView | None = None

    def view(self) -> NetworkView:
        if self._view is None:
            self._view = NetworkView(history.network_as_of(self._store, self.point), self.point)
        return self._view

    def init_schema(self) -> dict[str, int]:
        raise self._refused()

    def read(self, work: Callable[[Any], T]) -> T:
        if self._keep:
            return work(self.view())
        return self._store.read(lambda tx: work(TargetedView(tx, self.point)))

    def write(self, work: Callable[[Any], T], entry: ChangeEntry | None = None) -> T:
        raise self._refused()

    def dry_run(self, work: Callable[[Any], T]) -> T:
        raise self._refused()

    def close(self) -> None:
        self._store.close()

    def _refused(self) -> InvalidInput:
        return InvalidInput(f"this memory is read {self._what}: it takes no writes",
                            field="as_of", value=self.point)
