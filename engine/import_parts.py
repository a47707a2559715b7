"""An import in parts: a network too large for one transaction, written in several.

Neo4j holds a transaction's changes in memory until it commits, so a one-transaction import
needs a server heap that holds the whole network (docs/scaling.md). In parts:

1. The first transaction sets the `importing` mark on the write lock's node, only if the
   memory is empty (nothing `reset` would delete; the network's info node, which keeps the
   root, aside). From then on every other writer is refused with one line naming the way out
   (adapters/neo4j/write_lock.py); readers see what is there.
2. Each part writes at most `part_size` beliefs, in the file's order, with the labels the
   whole network's shape gave them before anything was written (engine/interchange.py's
   plan): a part's labels are final and nothing is propagated. A justification is written by
   the part that makes the last belief it names (a forward reference waits for it); an id the
   file names but never holds gets its placeholder from the first part that needs it.
3. The last transaction writes the nogoods (resolving those that hold), the supersessions and
   the network's info, clears the mark and appends the one change-log entry of the whole
   import, made of every part's record of what it did with the before-images one transaction
   would have kept, so `log` and history's `--as-of` read it as one write.

A failure leaves the mark and a partial network: readers see it as it is, writers are
refused, and `reset --yes` (the memory was empty before) then the import again recover.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Protocol, TypeVar, runtime_checkable

from engine.bulk import read_ahead
from engine.change_records import ChangeEntry
from engine.defaults import IMPORT_PART_SIZE
from engine.errors import InvalidInput
from engine.model import Belief, Change, Justification, Label
from engine.sources.records import SourceRecords, SourcePin
from engine.tms import nogoods as nogood_rules
from engine.tms import now
from engine.tms.access import own_tags
from engine.tms.records import Network, ResolutionTx, SupersedeRecords

T = TypeVar("T")

# Beliefs a part (the number lives in engine/defaults.py, so the parsers offer it). A part
# of 20,000 beliefs of the synthetic network (scripts/bench/synthetic.py) held at most 254 MB
# of transaction memory, one of 50,000 575 MB: the 1 GB heap scripts/neo4j's tests use caps a
# transaction at 716 MB (70%), and the last transaction's change-log entry of 2M beliefs takes
# some 500 MB (scripts/bench/README.md).
DEFAULT_PART_SIZE = IMPORT_PART_SIZE


@dataclass(frozen=True)
class ImportMark:
    """What the mark says of the import holding the memory (in the refusal writers get)."""

    file: str  # the file as the user named it ("" when not from a file)
    parts: int  # how many parts are planned
    since: str  # when it started
    actor: str = ""


# (belief id, the justification's position among the belief's, the justification)
JustificationAt = tuple[str, int, Justification]


class RestTx(ResolutionTx, SupersedeRecords, Protocol):
    """What an import writes after its beliefs goes through: the kernel's nogoods and
    network info, and the supersede records."""


class ImportTx(RestTx, SourceRecords, Protocol):
    """What an import writes through: the beliefs and the rest, and the sources they are
    pinned to."""


class PartTx(ImportTx, Protocol):
    """A transaction of an import in parts: an import's, and the part's writes."""

    def write_import_part(self, labelled: Sequence[tuple[Belief, Label]],
                          justifications: Sequence[JustificationAt],
                          placeholders: Sequence[str]) -> None:
        """Create `placeholders` (ids the file names and never holds), the beliefs with
        their final labels (no justification), then `justifications`, whose belief and
        named ids all exist by then."""

    def retag_everything(self) -> None:
        """Every belief's effective tags from the labels, as propagation would leave them
        (after beliefs with access tags came in with labels computed elsewhere)."""


class ImportParts(Protocol):
    """An import in parts under way: its mark is set (the store's import_in_parts)."""

    def part(self, work: Callable[[PartTx], T]) -> T:
        """Run `work` in one write transaction holding the mark (not logged on its own)."""

    def finish(self, work: Callable[[PartTx], T], entry: ChangeEntry) -> T:
        """Run `work` in the last transaction: it clears the mark and appends `entry` with
        what every part did, as one write's."""


@runtime_checkable
class PartedStore(Protocol):
    def import_in_parts(self, mark: ImportMark) -> ImportParts:
        """Set the mark in its own transaction and return the import holding it; raises
        MemoryNotEmpty when the memory holds anything, ImportUnderWay when another import's
        mark is set."""


@dataclass
class PartPlan:
    """Where each belief of the file goes: `part_of(id)` the part that writes it (None: the
    file names it but holds no belief of that id)."""

    part_of: Callable[[str], int | None]
    parts: int
    size: int


@dataclass
class _Waiting:
    """What later parts owe: justifications by the part that writes them, and the
    placeholders already given to a part. Only the planning of parts, in order, touches it;
    a part's work only reads what was decided for it, so a part the driver retries writes
    the same again."""

    justifications: dict[int, list[JustificationAt]] = field(default_factory=dict)
    placeholders: set[str] = field(default_factory=set)


@dataclass
class _Part:
    """What one part writes."""

    number: int
    labelled: list[tuple[Belief, Label]]
    justifications: list[JustificationAt]
    placeholders: list[str]
    pins: list[SourcePin]
    tagged: bool  # a belief of the part carries access tags


def write_in_parts(parts: ImportParts, plan: PartPlan,
                   stream: Iterator[tuple[Belief, Label, SourcePin | None]], rest: Network,
                   went_in: list[str], entry: ChangeEntry,
                   progress: Callable[[int, int], None] | None = None) -> Change:
    """Write `stream` (the file's beliefs with their final labels and source pins, in the
    file's order) part by part, then the rest of the network and the log entry; returns the
    import's change as one transaction's would be (`went_in`: every belief labelled IN).
    The next part is read and planned while the server writes this one (read_ahead)."""
    tagged = False
    for part in read_ahead(_planned(plan, stream)):
        tagged = tagged or part.tagged

        def work(tx: PartTx, part: _Part = part) -> None:
            if part.number == 0:  # before any pin names one
                tx.save_sources(rest.sources)
            tx.write_import_part(part.labelled, part.justifications, part.placeholders)
            tx.pin_to_sources(part.pins)

        parts.part(work)
        if progress is not None:
            progress(part.number + 1, plan.parts)

    def last(tx: PartTx) -> Change:
        if tagged:
            tx.retag_everything()
        return write_the_rest(tx, rest, Change(went_in=went_in))

    return parts.finish(last, entry)


def write_the_rest(tx: RestTx, rest: Network, change: Change) -> Change:
    """What an import writes after its beliefs, in either form: the nogoods (a nogood whose
    members all hold is resolved, the last word on them), the supersede records and the
    network's meta and repos; `change` with what the nogoods' resolution did."""
    for nogood in rest.nogoods:
        tx.create_nogood(nogood)
    holding = tx.nogoods_holding([m for n in rest.nogoods for m in n.members])
    if holding:
        change = nogood_rules.resolve(tx, holding, change, at=now())
    for record in rest.supersessions:
        tx.record_supersede(record)
    tx.save_network_info(rest.meta, rest.repos)
    return change


def _planned(plan: PartPlan, stream: Iterator[tuple[Belief, Label, SourcePin | None]]
             ) -> Iterator[_Part]:
    """The parts, in order, each as the stream and the parts before it decide it."""
    waiting = _Waiting()
    for k in range(plan.parts):
        batch = list(islice(stream, plan.size))
        justifications, placeholders = _ready(plan, k, batch, waiting)
        yield _Part(k, [(b, label) for b, label, _ in batch], justifications, placeholders,
                    [pin for _, _, pin in batch if pin is not None],
                    any(own_tags(b.metadata) for b, _, _ in batch))
    if next(stream, None) is not None or waiting.justifications:
        raise InvalidInput("the file holds more beliefs than its first reading did: it"
                           " changed while it was being imported", field="file")


def _ready(plan: PartPlan, k: int, batch: Iterable[tuple[Belief, Label, SourcePin | None]],
           waiting: _Waiting) -> tuple[list[JustificationAt], list[str]]:
    """The justifications part `k` writes (its beliefs' that name nothing later, and those
    waiting for it) and the placeholders it makes first; the rest of its beliefs'
    justifications are put with the part that writes the last belief they name."""
    part_of = plan.part_of
    now_ready = waiting.justifications.pop(k, [])
    for b, _, _ in batch:
        for position, j in enumerate(b.justifications):
            last = k
            for ref in (*j.antecedents, *j.outlist):
                p = part_of(ref)
                if p is not None and p > last:
                    last = p
            if last == k:
                now_ready.append((b.id, position, j))
            else:
                waiting.justifications.setdefault(last, []).append((b.id, position, j))
    given = waiting.placeholders
    placeholders = sorted({ref for _, _, j in now_ready for ref in (*j.antecedents, *j.outlist)
                           if part_of(ref) is None and ref not in given})
    given.update(placeholders)
    return now_ready, placeholders
