"""Import and export of whole networks (the network.json format, parsed by adapters).

Import keeps the decisions a file records: a belief stored OUT that the computed labels would
make IN was retracted by its user, so it comes in retracted (shallowest first, since pinning
one can take others down with it). The report says, as counts and ids, where the stored labels
differ from the computed ones and why.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Protocol

from engine.bulk import cyclic_gc_paused
from engine.change_records import ChangeEntry
from engine.errors import InvalidInput
from engine.memory.records import Editing
from engine.model import Belief, Change, Label, Nogood, Truth
from engine.sources.records import SourcePin, SourceRecords
from engine.store import GraphTx, Store
from engine.tms import nogoods as nogood_rules
from engine.tms import now
from engine.tms.labelling import labels_from_scratch
from engine.tms.records import Network, ResolutionTx
from engine.tms.semantics import is_valid


class LinksTx(SourceRecords, Editing, Protocol):
    """What an import restores beside the beliefs: the Source nodes and their pins
    (SourceRecords) and supersede's links (Editing)."""


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

    def as_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["differences"] = {
            "retractions_kept": len(self.retractions_kept),
            "circular_support": len(self.circular_support),
            "stale": len(self.stale),
            "undetermined": len(self.undetermined),
        }
        return d


KEPT_REASON = "stored OUT in the imported file"


def decide_pins(beliefs: Mapping[str, Belief], stored: Mapping[str, Truth],
                at: str = "") -> tuple[dict[str, Belief], dict[str, Label]]:
    """Beliefs with the user's retractions restored from the stored labels, and their labels.
    A retraction found this way gets `retracted_at` (and a reason) so export carries it."""
    def pin(b: Belief) -> Belief:
        if b.retracted_at:  # the file says when it was retracted: keep it as written
            return dataclasses.replace(b, retracted=True)
        return dataclasses.replace(b, retracted=True, retracted_at=at,
                                   retract_reason=b.retract_reason or KEPT_REASON)

    pinned = {
        bid: pin(b) if stored.get(bid) == Truth.OUT and b.retracted_at else b
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
                pinned[bid] = pin(pinned[bid])


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
    taken = tx.existing_ids(beliefs)
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
    named = {ref for b in beliefs.values() for j in b.justifications for ref in j.mentions()}
    if tx.placeholder_ids(beliefs) or tx.existing_ids(named - beliefs.keys()):
        # The file joins beliefs already in the graph: create, then propagate.
        tx.create_beliefs(list(beliefs.values()))
        change = tx.relabel(beliefs)
    else:
        # A self-contained file: its labels are the from-scratch model computed above,
        # written with the beliefs in one pass (no propagation is needed, none can differ).
        tx.create_labelled_beliefs(list(beliefs.values()), dict(labels))
        change = Change(went_in=sorted(b for b, lab in labels.items() if lab.truth == Truth.IN))
    for nogood in nogoods:
        tx.create_nogood(nogood)
    holding = tx.nogoods_holding([m for n in nogoods for m in n.members])
    if holding:
        change = nogood_rules.resolve(tx, holding, change, at=now())
    return change


def import_network(store: Store, network: Network, stored: Mapping[str, Truth]) -> ImportReport:
    with cyclic_gc_paused():
        return _import_network(store, network, stored)


def _import_network(store: Store, network: Network, stored: Mapping[str, Truth]
                    ) -> ImportReport:
    beliefs, labels = decide_pins(network.beliefs, stored, at=now())
    differences = label_differences(beliefs, labels, stored)
    kept = sorted(bid for bid, b in beliefs.items()
                  if b.retracted and not network.beliefs[bid].retracted)

    def work(tx: GraphTx) -> Change:
        change = write_import_in(tx, beliefs, labels, network.nogoods)
        _restore_links(tx, network, beliefs)
        tx.save_network_info(network.meta, network.repos)
        return change

    change = store.write(work, ChangeEntry("import", {"beliefs": len(beliefs),
                                                       "nogoods": len(network.nogoods)}))
    counts = store.read(lambda tx: tx.status())
    return ImportReport(
        beliefs=len(beliefs),
        justifications=sum(len(b.justifications) for b in beliefs.values()),
        nogoods=len(network.nogoods),
        labels_in=counts.in_,
        labels_out=counts.out,
        retractions_kept=kept,
        circular_support=differences.circular_support,
        stale=differences.stale,
        undetermined=differences.undetermined,
        self_listed=sorted(bid for bid, b in beliefs.items()
                           if any(bid in j.antecedents for j in b.justifications)),
        retracted_by_nogood=change.retracted_by_nogood,
    )


def _restore_links(tx: LinksTx, network: Network, beliefs: Mapping[str, Belief]) -> None:
    """The Source nodes, the FROM edge of each belief pinned to one (its hash and lines are
    in the file), and supersede's links, as the exported graph had them."""
    tx.save_sources(network.sources)
    paths = {s.path for s in network.sources}
    pins = []
    for b in beliefs.values():
        lines = b.metadata.get("lines")
        if (b.source in paths and b.source_hash and isinstance(lines, (list, tuple)) and lines
                and all(isinstance(x, int) and not isinstance(x, bool) for x in lines)):
            pins.append(SourcePin(b.id, b.source, b.source_hash,
                                  (int(lines[0]), int(lines[-1])), b.metadata, b.updated_at))
    tx.pin_to_sources(pins)
    for record in network.supersessions:
        missing = [i for i in (record.old, record.new) if i not in beliefs]
        if missing:
            raise InvalidInput(f"supersession {record.old} -> {record.new} names "
                               f"'{missing[0]}', which the file does not hold",
                               field="supersessions", value=missing[0])
        tx.record_supersede(record)


def export_network(store: Store) -> Network:
    return store.read(lambda tx: tx.read_network())
