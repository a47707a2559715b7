"""Import and export of whole networks (the network.json format, parsed by adapters).

Import keeps the decisions a file records: a belief stored OUT that the computed labels would
make IN was retracted by its user, so it comes in retracted (shallowest first, since pinning
one can take others down with it). The report says, as counts and ids, where the stored labels
differ from the computed ones and why.
"""
from __future__ import annotations

import dataclasses
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Protocol

from engine.bulk import cyclic_gc_paused, in_batches
from engine.change_records import ChangeEntry
from engine.errors import InvalidInput, MemoryNotEmpty
from engine.import_parts import (
    DEFAULT_PART_SIZE,
    ImportMark,
    ImportParts,
    ImportTx,
    PartedStore,
    PartPlan,
    write_in_parts,
    write_the_rest,
)
from engine.model import Belief, Change, Label, Nogood, Truth
from engine.sources.records import SourcePin
from engine.store import Store
from engine.tms import nogoods as nogood_rules
from engine.tms import now
from engine.tms.labelling import Shape, label_shape, labels_from_scratch
from engine.tms.records import KEPT_REASON, Network, ResolutionTx, TmsStore, TmsTx
from engine.tms.semantics import is_valid
from engine.tms.values import IN, OUT, TRUTH, UNDETERMINED



@dataclasses.dataclass
class ImportReport:
    beliefs: int
    justifications: int
    nogoods: int
    labels_in: int
    labels_out: int
    retractions_kept: list[str]  # stored OUT, support valid: comes in retracted
    circular_support: list[str]  # stored IN, support only circular: OUT
    stale: list[str]  # stored IN, support not valid: OUT
    undetermined: list[str]  # on (or resting on) a loop through outlists
    self_listed: list[str]  # beliefs naming themselves as an antecedent
    retracted_by_nogood: list[str]
    parts: int = 0  # how many transactions wrote its beliefs; 0: one, the whole import

    def as_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["differences"] = {
            "retractions_kept": len(self.retractions_kept),
            "circular_support": len(self.circular_support),
            "stale": len(self.stale),
            "undetermined": len(self.undetermined),
        }
        return d




def decide_pins(beliefs: Mapping[str, Belief], stored: Mapping[str, Truth],
                at: str = "") -> tuple[dict[str, Belief], dict[str, Label]]:
    """Beliefs with the user's retractions restored from the stored labels, and their labels.
    A retraction found this way gets `retracted_at` (and a reason) so export carries it."""
    pinned = {
        bid: _pin(b, at) if stored.get(bid) == Truth.OUT and b.retracted_at else b
        for bid, b in beliefs.items()
    }
    while True:
        labels = labels_from_scratch(pinned)  # compute_labels, fast
        wrongly_in = [bid for bid, label in labels.items()
                      if label.truth == Truth.IN and stored.get(bid) == Truth.OUT]
        if not wrongly_in:
            return pinned, labels
        shallowest = min(labels[bid].depth or 0 for bid in wrongly_in)
        for bid in wrongly_in:
            if (labels[bid].depth or 0) == shallowest:
                pinned[bid] = _pin(pinned[bid], at)


@dataclasses.dataclass
class LabelDifferences:
    """Where the computed labels differ from those a file stored, and why."""

    circular_support: list[str]
    stale: list[str]
    undetermined: list[str]


def label_differences(beliefs: Mapping[str, Belief], labels: Mapping[str, Label],
                      stored: Mapping[str, Truth]) -> LabelDifferences:
    stored_truth = {bid: stored.get(bid, Truth.IN) for bid in beliefs}

    def supported_by_stored_labels(b: Belief) -> bool:
        return any(is_valid(j, stored_truth) for j in b.justifications)

    found = LabelDifferences([], [], [])
    for bid in sorted(beliefs):
        truth = labels[bid].truth
        if truth == Truth.UNDETERMINED:
            found.undetermined.append(bid)
        elif truth == Truth.OUT and stored_truth[bid] == Truth.IN:
            (found.circular_support if supported_by_stored_labels(beliefs[bid])
             else found.stale).append(bid)
    return found


def write_import_in(tx: ResolutionTx, beliefs: Mapping[str, Belief], labels: Mapping[str, Label],
                    nogoods: Sequence[Nogood]) -> Change:
    """Create the beliefs and nogoods of a file inside a write transaction, refusing ids that
    exist; resolve the nogoods that hold afterwards."""
    _refuse_taken(tx, beliefs, nogoods)
    named = {ref for b in beliefs.values() for j in b.justifications for ref in j.mentions()}
    if tx.placeholder_ids(beliefs) or tx.existing_ids(named - beliefs.keys()):
        # The file joins beliefs already in the graph: create, then propagate.
        tx.create_beliefs(list(beliefs.values()))
        change = tx.relabel(beliefs)
    else:
        # A self-contained file: its labels are the from-scratch model computed above,
        # written with the beliefs in one pass (no propagation is needed, none can differ).
        tx.create_labelled_beliefs((b, labels[b.id]) for b in beliefs.values())
        change = Change(went_in=sorted(b for b, lab in labels.items() if lab.truth == Truth.IN))
    for nogood in nogoods:
        tx.create_nogood(nogood)
    holding = tx.nogoods_holding([m for n in nogoods for m in n.members])
    if holding:
        change = nogood_rules.resolve(tx, holding, change, at=now())
    return change


class NetworkSource(Protocol):
    """A network to import, read as often as asked: its beliefs one at a time with the truth
    value the file stored (each walk the same, in the same order; adapters/network_stream.py
    walks a network.json without holding it), and the rest (nogoods, meta, repos,
    supersessions, sources: a Network without beliefs) once a walk has ended."""

    def beliefs(self) -> Iterator[tuple[Belief, Truth]]: ...

    def rest(self) -> Network: ...


@dataclasses.dataclass
class NetworkInMemory:
    """A NetworkSource of a network already read whole."""

    network: Network
    stored: Mapping[str, Truth]

    def beliefs(self) -> Iterator[tuple[Belief, Truth]]:
        stored = self.stored
        for bid, b in self.network.beliefs.items():
            yield b, stored.get(bid, Truth.IN)

    def rest(self) -> Network:
        n = self.network
        return Network({}, n.nogoods, n.repos, n.meta, n.supersessions, n.sources)


def import_network(store: Store[ImportTx], network: Network,
                   stored: Mapping[str, Truth]) -> ImportReport:
    return import_source(store, NetworkInMemory(network, stored))


def import_source(store: Store[ImportTx], source: NetworkSource, *, parts: bool | None = None,
                  part_size: int = DEFAULT_PART_SIZE, file: str = "",
                  progress: Callable[[int, int], None] | None = None) -> ImportReport:
    """Import `source` into the graph. The source is walked twice, never held: once before
    anything is written, for the network's shape (engine/tms/labelling.py), whose pins and
    labels are decided there as decide_pins would; then again, each belief written with its
    label as it comes.

    In ONE write transaction, whole or not at all, unless it goes in parts of at most
    `part_size` beliefs (engine/import_parts.py; `file` names it in the mark, `progress`
    hears of each part written): `parts` True asks for parts (the memory must be empty),
    False for one transaction; None imports in parts when the file holds more than
    `part_size` beliefs and the memory is empty, else in one transaction."""
    if part_size < 1:
        raise InvalidInput(f"--part-size takes a positive number of beliefs, not {part_size}",
                           field="part_size", value=part_size)
    with cyclic_gc_paused():
        plan = _ImportPlan(source)
        at = now()
        pinned = plan.decide_pins()
        rest = source.rest()
        for record in rest.supersessions:
            missing = [i for i in (record.old, record.new) if not plan.holds(i)]
            if missing:
                raise InvalidInput(f"supersession {record.old} -> {record.new} names "
                                   f"'{missing[0]}', which the file does not hold",
                                   field="supersessions", value=missing[0])
        count = len(plan.shape.beliefs)
        entry = ChangeEntry("import", {"beliefs": count, "nogoods": len(rest.nogoods)})
        planned = max(1, -(-count // part_size))
        held = None
        if parts or (parts is None and count > part_size):
            held = _held_for_parts(store, ImportMark(file, planned, at), explicit=bool(parts))
        paths = {s.path for s in rest.sources}

        def stream() -> Iterator[tuple[Belief, Label, SourcePin | None]]:
            return plan.stream(source, pinned, at, paths)

        if held is None:
            change = _write_whole(store, plan, stream, rest, entry)
        else:
            change = write_in_parts(held, plan.part_plan(part_size), stream(), rest,
                                    plan.ids_where(lambda i: plan.truth[i] == IN), entry,
                                    progress)
        counts = store.read(lambda tx: tx.status())
        differences = plan.label_differences()
        return ImportReport(
            beliefs=count,
            justifications=plan.justifications,
            nogoods=len(rest.nogoods),
            labels_in=counts.in_,
            labels_out=counts.out,
            retractions_kept=plan.ids_where(lambda i: bool(pinned[i])),
            circular_support=differences.circular_support,
            stale=differences.stale,
            undetermined=differences.undetermined,
            self_listed=sorted(plan.self_listed),
            retracted_by_nogood=change.retracted_by_nogood,
            parts=0 if held is None else planned,
        )


def _held_for_parts(store: Store[ImportTx], mark: ImportMark, *,
                    explicit: bool) -> ImportParts | None:
    """The store's import in parts, its mark set; None (one transaction, then) when the
    parts were not asked for explicitly and the store cannot, or the memory is not empty."""
    if not isinstance(store, PartedStore):
        if explicit:
            raise InvalidInput("this store cannot import in parts", field="parts")
        return None
    try:
        return store.import_in_parts(mark)
    except MemoryNotEmpty:
        if explicit:
            raise
        return None


def _write_whole(store: Store[ImportTx], plan: _ImportPlan,
                 stream: Callable[[], Iterator[tuple[Belief, Label, SourcePin | None]]],
                 rest: Network, entry: ChangeEntry) -> Change:
    """The import in one write transaction (the store may run it again: each run walks the
    source anew)."""
    truth = plan.truth

    def work(tx: ImportTx) -> Change:
        ids = plan.belief_ids()
        _refuse_taken(tx, ids, rest.nogoods)
        pins: list[SourcePin] = []

        def labelled() -> Iterator[tuple[Belief, Label]]:
            for b, label, pin in stream():
                if pin is not None:
                    pins.append(pin)
                yield b, label

        tx.save_sources(rest.sources)
        if tx.placeholder_ids(ids) or tx.existing_ids(plan.absent_ids()):
            # The file joins beliefs already in the graph: create, then propagate.
            for batch in in_batches((b for b, _ in labelled()), 10_000):
                tx.create_beliefs(batch)
            change = tx.relabel(ids)
        else:
            # Self-contained: its labels are the from-scratch model computed above,
            # written with the beliefs in one pass (nothing to propagate, none can differ).
            tx.create_labelled_beliefs(labelled())
            change = Change(went_in=plan.ids_where(lambda i: truth[i] == IN))
        tx.pin_to_sources(pins)  # before the nogoods: a retraction they make is the last word
        return write_the_rest(tx, rest, change)

    return store.write(work, entry)


def _refuse_taken(tx: ResolutionTx, ids: Iterable[str], nogoods: Sequence[Nogood]) -> None:
    taken = tx.existing_ids(ids)
    if taken:
        raise InvalidInput(
            f"{len(taken)} of the file's beliefs already exist (first: '{min(taken)}');"
            " import into an empty graph or `reset --yes` first",
            field="id", value=min(taken),
        )
    known_nogoods = {n.id for n in tx.nogoods()}
    clash = [n.id for n in nogoods if n.id in known_nogoods]
    if clash:
        raise InvalidInput(f"nogood '{clash[0]}' already exists", field="nogood",
                           value=clash[0])


def _pin(b: Belief, at: str) -> Belief:
    """`b` retracted as import keeps a file's retraction: its own `retracted_at` when the file
    says when, else now, with KEPT_REASON."""
    if b.retracted_at:
        return dataclasses.replace(b, retracted=True)
    return dataclasses.replace(b, retracted=True, retracted_at=at,
                               retract_reason=b.retract_reason or KEPT_REASON)


class _ImportPlan:
    """What import decides before it writes, from one walk of the source: the network's
    shape, the truth value each belief stored (OUT or not) and whether the file says when it
    was retracted; then the pins decide_pins would make and the labels they give."""

    def __init__(self, source: NetworkSource):
        self.shape = shape = Shape()
        stored_out = bytearray()
        dated = bytearray()  # retracted_at given
        self.justifications = 0
        self.self_listed: list[str] = []
        add = shape.add
        for b, stored in source.beliefs():
            add(b.id, b.justifications, retracted=b.retracted, asserted=b.asserted)
            stored_out.append(stored == Truth.OUT)
            dated.append(bool(b.retracted_at))
            js = b.justifications
            if js:
                self.justifications += len(js)
                if any(b.id in j.antecedents for j in js):
                    self.self_listed.append(b.id)
        shape.compiled()
        self.stored_out = bytearray(shape.size)  # by index
        self.dated = bytearray(shape.size)
        for k, i in enumerate(shape.beliefs):
            self.stored_out[i] = stored_out[k]
            self.dated[i] = dated[k]
        self.truth = bytearray()
        self.depth: list[int | None] = []

    def holds(self, bid: str) -> bool:
        i = self.shape.index.get(bid)
        return i is not None and bool(self.shape.is_belief[i])

    def belief_ids(self) -> list[str]:
        ids = self.shape.ids
        return [ids[i] for i in self.shape.beliefs]

    def absent_ids(self) -> list[str]:
        """Ids the file's justifications name that no belief of the file has."""
        shape = self.shape
        return [bid for bid, is_belief in zip(shape.ids, shape.is_belief) if not is_belief]

    def ids_where(self, test: Callable[[int], bool]) -> list[str]:
        ids = self.shape.ids
        return sorted(ids[i] for i in self.shape.beliefs if test(i))

    def stream(self, source: NetworkSource, pinned: bytearray, at: str, paths: set[str]
               ) -> Iterator[tuple[Belief, Label, SourcePin | None]]:
        """The second walk: each belief as it is written (retracted when pinned), its
        decided label, and its FROM edge when it is pinned to one of the file's `paths`.
        A belief out of the first walk's order means the file changed in between."""
        shape = self.shape
        index, order, truth, depth = shape.index, shape.beliefs, self.truth, self.depth
        for k, (b, _) in enumerate(source.beliefs()):
            i = index.get(b.id)
            if i is None or k >= len(order) or order[k] != i:
                raise InvalidInput("the file changed while it was being imported: "
                                   f"'{b.id}' is not where its first reading had it",
                                   field="file", value=b.id)
            if pinned[i]:
                b = _pin(b, at)
            yield b, Label(TRUTH[truth[i]], depth[i]), _source_pin(b, paths)

    def part_plan(self, size: int) -> PartPlan:
        """Which part of `size` beliefs writes each belief: the file's order cut in parts."""
        shape = self.shape
        part = array("q", bytes(8 * shape.size))
        for k, i in enumerate(shape.beliefs):
            part[i] = k // size
        index, is_belief = shape.index, shape.is_belief

        def part_of(bid: str) -> int | None:
            i = index.get(bid)
            return part[i] if i is not None and is_belief[i] else None

        return PartPlan(part_of, max(1, -(-len(shape.beliefs) // size)), size)

    def decide_pins(self) -> bytearray:
        """decide_pins on the shape: the beliefs to come in retracted (by index), the shape
        pinned so and labelled (self.truth, self.depth)."""
        shape, stored_out = self.shape, self.stored_out
        pinned = bytearray(shape.size)
        for i in shape.beliefs:
            if stored_out[i] and self.dated[i]:
                pinned[i] = 1
                shape.retract(i)
        while True:
            truth, depth = label_shape(shape)
            wrongly_in = [i for i in shape.beliefs if truth[i] == IN and stored_out[i]]
            if not wrongly_in:
                self.truth, self.depth = truth, depth
                return pinned
            shallowest = min(depth[i] or 0 for i in wrongly_in)
            for i in wrongly_in:
                if (depth[i] or 0) == shallowest:
                    pinned[i] = 1
                    shape.retract(i)

    def label_differences(self) -> LabelDifferences:
        """label_differences of the decided labels against the stored ones."""
        shape, truth, stored_out = self.shape, self.truth, self.stored_out
        is_belief = shape.is_belief

        def stored_in(a: int) -> bool:
            return bool(is_belief[a]) and not stored_out[a]

        def supported_by_stored_labels(i: int) -> bool:
            return any(all(stored_in(a) for a in shape.antecedents[r])
                       and not any(stored_in(o) for o in shape.outlists[r])
                       for r in range(shape.start[i], shape.end[i]))

        found = LabelDifferences([], [], [])
        ids = shape.ids
        for i in sorted(shape.beliefs, key=ids.__getitem__):
            if truth[i] == UNDETERMINED:
                found.undetermined.append(ids[i])
            elif truth[i] == OUT and not stored_out[i]:
                (found.circular_support if supported_by_stored_labels(i)
                 else found.stale).append(ids[i])
        return found


def _source_pin(b: Belief, paths: set[str]) -> SourcePin | None:
    """The FROM edge of a belief pinned to one of the file's sources (its hash and lines are
    in the file), as the exported graph had it."""
    lines = b.metadata.get("lines")
    if (b.source in paths and b.source_hash and isinstance(lines, (list, tuple)) and lines
            and all(isinstance(x, int) and not isinstance(x, bool) for x in lines)):
        return SourcePin(b.id, b.source, b.source_hash, (int(lines[0]), int(lines[-1])),
                         b.metadata, b.updated_at)
    return None


def export_network(store: Store[TmsTx]) -> Network:
    return store.read(lambda tx: tx.read_network())


def export_streamed(store: TmsStore,
                    write: Callable[[Network, int, Iterator[Belief]], None]) -> int:
    """Hand `write` the network but its beliefs, how many beliefs it has and the beliefs in id
    order, page by page, all from one read (each page sees what is committed when it is
    read, as statements of one Neo4j transaction do); `write` runs again from the start if
    the store retries the read. Returns the count."""
    def work(tx: TmsTx) -> int:
        rest = tx.network_rest()
        count = tx.belief_count()
        write(rest, count, (b for page in tx.belief_pages() for b in page))
        return count

    return store.read(work)
