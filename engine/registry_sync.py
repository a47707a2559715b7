"""`python -m engine import FILE --sync [--dry-run]`: the registry edited in git (or a
network.json) applied to the graph as ordinary logged writes, in ONE transaction.

The differences between the file and the graph, belief by belief:
- added: in the file, not in the graph: created (with propagation, as `add`);
- reworded: its text (or source, source_url, source_hash, date) differs: set IN PLACE, so the
  id and everything that rests on it stay; the old wording is in the change-log entry
  (`reworded`: id -> old text) and the belief's history (a supersede would add a new id and
  gate the old, which a person editing one line did not ask for: `eem supersede` does that);
- metadata: replaced by the file's;
- justifications: the belief's are replaced by the file's (gates included, as written);
- retracted / restored / asserted / unasserted: the user's pins, decided from the file as an
  import decides them (a belief stored OUT whose support is valid is retracted);
- removed: in the graph, not in the file, and nothing in the file rests on it (a justification
  naming it, a nogood of the file holding it): deleted; one something rests on refuses the
  whole sync;
- nogoods: the file's new ones are created and resolved; one whose members the file changed
  is deleted and created anew (resolved); those gone from the file are deleted (what they
  retracted stays as the file marks it).
Then one relabel from everything that changed, and the nogoods that hold. Timestamps
(created, updated, retracted) are not compared: they say when, not what. Supersede links and
Source nodes are the graph's and are left as they are.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from engine.agents.records import AgentTx
from engine.change_records import ChangeEntry
from engine.errors import InvalidInput
from engine.interchange import decide_pins
from engine.memory.dialectic import DialecticTx
from engine.model import Belief, Change, Justification, Truth
from engine.store import Store
from engine.tms import nogoods as nogood_rules
from engine.tms import now
from engine.tms.kernel import add_beliefs_in, enforce_nogoods
from engine.tms.records import Network

SYNCED_REASON = "retracted in the registry"
FIELDS = ("text", "source", "source_url", "source_hash", "date")


@dataclass
class SyncPlan:
    added: list[str] = field(default_factory=list)
    reworded: dict[str, str] = field(default_factory=dict)  # id -> the old text
    fields: dict[str, dict[str, str]] = field(default_factory=dict)  # id -> field -> new
    metadata: list[str] = field(default_factory=list)
    justifications: list[str] = field(default_factory=list)
    retracted: list[str] = field(default_factory=list)
    restored: list[str] = field(default_factory=list)
    asserted: list[str] = field(default_factory=list)
    unasserted: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    nogoods_added: list[str] = field(default_factory=list)
    nogoods_changed: list[str] = field(default_factory=list)  # other members in the file
    nogoods_removed: list[str] = field(default_factory=list)  # in the graph, gone from the file

    def is_empty(self) -> bool:
        return not any((self.added, self.fields, self.metadata, self.justifications,
                        self.retracted, self.restored, self.asserted, self.unasserted,
                        self.removed, self.nogoods_added, self.nogoods_changed,
                        self.nogoods_removed))

    def as_dict(self) -> dict[str, object]:
        d = dataclasses.asdict(self)
        d["fields"] = {i: sorted(f) for i, f in self.fields.items()}
        return d


@dataclass
class SyncReport:
    plan: SyncPlan
    change: Change
    dry_run: bool

    def as_dict(self) -> dict[str, object]:
        return {"plan": self.plan.as_dict(), "change": self.change.as_dict(),
                "dry_run": self.dry_run}


def _shape(j: Justification) -> tuple[object, ...]:
    return (j.kind, j.antecedents, j.outlist, j.label, j.gate)


def plan_sync(graph: Network, file: Network, stored: Mapping[str, Truth]) -> tuple[
        SyncPlan, dict[str, Belief]]:
    """What the file changes in the graph, and the file's beliefs with their pins decided (as
    an import decides them). Raises InvalidInput for a removal something still rests on."""
    wanted, _ = decide_pins(file.beliefs, stored, at=now())
    plan = SyncPlan()
    for bid in sorted(wanted):
        new = wanted[bid]
        old = graph.beliefs.get(bid)
        if old is None:
            plan.added.append(bid)
            continue
        changed = {f: getattr(new, f) for f in FIELDS if getattr(new, f) != getattr(old, f)}
        if changed:
            plan.fields[bid] = changed
            if "text" in changed:
                plan.reworded[bid] = old.text
        if dict(new.metadata) != dict(old.metadata):
            plan.metadata.append(bid)
        if [_shape(j) for j in new.justifications] != [_shape(j) for j in old.justifications]:
            plan.justifications.append(bid)
        if new.retracted != old.retracted:
            (plan.retracted if new.retracted else plan.restored).append(bid)
        if new.asserted != old.asserted:
            (plan.asserted if new.asserted else plan.unasserted).append(bid)
    gone = sorted(set(graph.beliefs) - set(wanted))
    named = {r: bid for bid, b in wanted.items() for j in b.justifications for r in j.mentions()}
    held = {m: n.id for n in file.nogoods for m in n.members}  # the graph's others go
    for bid in gone:
        if bid in named:
            raise InvalidInput(f"'{bid}' is gone from the file but '{named[bid]}' rests on it "
                               f"(a justification names it): retract it instead, or edit "
                               f"'{named[bid]}' too", field="id", value=bid)
        if bid in held:
            raise InvalidInput(f"'{bid}' is gone from the file but nogood '{held[bid]}' holds "
                               f"it: retract it instead", field="id", value=bid)
    plan.removed = gone
    graph_nogoods = {n.id: set(n.members) for n in graph.nogoods}
    plan.nogoods_added = [n.id for n in file.nogoods if n.id not in graph_nogoods]
    plan.nogoods_changed = [n.id for n in file.nogoods
                            if graph_nogoods.get(n.id, set(n.members)) != set(n.members)]
    plan.nogoods_removed = sorted(graph_nogoods.keys() - {n.id for n in file.nogoods})
    return plan, wanted


class RegistrySyncTx(DialecticTx, AgentTx, Protocol):
    """What a sync writes: fields, gates, pins, labels and nogood resolution (DialecticTx),
    and the deletion of nogoods (AgentTx's)."""


def _apply(tx: RegistrySyncTx, plan: SyncPlan, wanted: Mapping[str, Belief], file: Network,
           at: str) -> Change:
    seeds: set[str] = set()
    for bid, changed in sorted(plan.fields.items()):
        tx.set_fields(bid, changed, at)
    for bid in plan.metadata:
        tx.set_metadata(bid, wanted[bid].metadata, at)
    for bid in plan.justifications:
        count = len(tx.get_beliefs([bid])[bid].justifications)
        for position in range(count, 0, -1):
            tx.remove_justification(bid, position)
        tx.add_justifications(bid, list(wanted[bid].justifications))
        seeds.add(bid)
    if plan.nogoods_removed or plan.nogoods_changed:
        tx.delete_nogoods(plan.nogoods_removed + plan.nogoods_changed)
    for bid in plan.removed:  # after the justifications that named it were rewritten
        tx.delete_belief(bid)
    change = Change()
    if plan.added:
        fresh = [dataclasses.replace(wanted[b], retracted=False, asserted=False, retracted_at="")
                 for b in plan.added]
        change = change.merge(add_beliefs_in(tx, fresh))
    pinned = sorted(set(plan.retracted + plan.restored + plan.asserted + plan.unasserted
                        + [b for b in plan.added if wanted[b].retracted or wanted[b].asserted]))
    groups: dict[tuple[bool, bool, str], list[str]] = {}
    for bid in pinned:
        w = wanted[bid]
        reason = (w.retract_reason or SYNCED_REASON) if w.retracted else ""
        groups.setdefault((w.retracted, w.asserted, reason), []).append(bid)
    for (retracted, asserted, reason), ids in sorted(groups.items()):
        tx.set_pins(ids, retracted=retracted, asserted=asserted, reason=reason, at=at)
    seeds.update(pinned)
    if seeds:
        change = change.merge(enforce_nogoods(tx, tx.relabel(sorted(seeds))))
    written = set(plan.nogoods_added + plan.nogoods_changed)
    new_nogoods = [n for n in file.nogoods if n.id in written]
    for nogood in new_nogoods:
        tx.create_nogood(nogood)
    holding = tx.nogoods_holding([m for n in new_nogoods for m in n.members])
    if holding:
        change = nogood_rules.resolve(tx, holding, change, at=at)
    return change


def sync_network(store: Store[RegistrySyncTx], file: Network, stored: Mapping[str, Truth], *,
                 source: str,
                 dry_run: bool = False) -> SyncReport:
    """Apply the file's differences from the graph in one write transaction (or, with
    `dry_run`, in one that is rolled back), logged as op `import-sync`."""
    def work(tx: RegistrySyncTx) -> SyncReport:
        plan, wanted = plan_sync(tx.read_network(), file, stored)
        change = Change() if plan.is_empty() else _apply(tx, plan, wanted, file, now())
        return SyncReport(plan, change, dry_run)

    if dry_run:
        return store.dry_run(work)
    preview = store.dry_run(lambda tx: plan_sync(tx.read_network(), file, stored)[0])
    if preview.is_empty():
        return SyncReport(preview, Change(), False)
    return store.write(work, ChangeEntry(
        "import-sync", {"file": source, "added": preview.added, "reworded": preview.reworded,
                        "justifications": preview.justifications,
                        "retracted": preview.retracted, "restored": preview.restored,
                        "removed": preview.removed, "nogoods_added": preview.nogoods_added,
                        "nogoods_changed": preview.nogoods_changed,
                        "nogoods_removed": preview.nogoods_removed},
        f"the registry {source} applied"))
