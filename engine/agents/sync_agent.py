"""`sync-agent NAME FILE`: bring a namespace up to date with a newer file of the agent's.

What changed is found by digests: every imported belief keeps `agent_sha256`, the digest of
the definition its file gave (engine/agents/namespaced.py), so the sync reads one collected row
per belief and the full definition only of the beliefs whose digest differs. Then, in ONE
write transaction (`store.write`, or `store.dry_run` for --dry-run, which rolls back):
- beliefs new in the file are created;
- changed ones get the file's text, source fields, metadata and justifications; the
  justifications that are ours (those not requiring the switch) are kept after them, and a
  gate of ours on every one of the agent's justifications (a supersede, a challenge) is put
  on the new ones too;
- beliefs gone from the file are retracted with the reason `gone from NAME` (never deleted,
  so our justifications that name them keep naming them); one added here with `add
  --namespace` (no digest: the file never had it) is left alone;
- pins follow the file: what it retracts is retracted, and a belief it holds again comes
  back when its retraction was the agent's (`gone from NAME`, or retracted in its file); a
  retraction of ours (by hand, by a nogood) stays;
- the namespace's nogoods follow the file: new ones are created, those gone from it deleted,
  and one whose members changed is deleted and created anew (a retraction it made earlier is
  a retraction of ours and stays); then one propagation from everything touched, and the
  nogoods that hold are resolved.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from engine.agents.namespace import check_name, is_agents, prefix, switch_id
from engine.agents.namespaced import AgentNetwork, namespaced
from engine.agents.namespaced import only_in as held_in
from engine.agents.records import Digest, NamespaceTx
from engine.bulk import cyclic_gc_paused
from engine.change_records import ChangeEntry
from engine.errors import COMMAND, InvalidInput
from engine.model import Belief, Change, Justification, Nogood, Truth
from engine.store import Store
from engine.tms import nogoods as nogood_rules
from engine.tms import now
from engine.tms.records import Network, TmsTx


def gone_reason(name: str) -> str:
    return f"gone from {name}"


@dataclasses.dataclass
class AgentDiff:
    added: list[str] = dataclasses.field(default_factory=list)
    changed: list[str] = dataclasses.field(default_factory=list)
    gone: list[str] = dataclasses.field(default_factory=list)  # retracted: gone from NAME
    retracted: list[str] = dataclasses.field(default_factory=list)  # the file retracts them
    restored: list[str] = dataclasses.field(default_factory=list)  # the agent holds them again
    nogoods_added: list[str] = dataclasses.field(default_factory=list)
    nogoods_changed: list[str] = dataclasses.field(default_factory=list)  # members differ
    nogoods_removed: list[str] = dataclasses.field(default_factory=list)  # gone from the file

    def is_empty(self) -> bool:
        return not any(dataclasses.asdict(self).values())


@dataclasses.dataclass
class SyncReport:
    namespace: str
    file: str
    dry_run: bool
    diff: AgentDiff
    change: Change

    def as_dict(self) -> dict[str, object]:
        return {"namespace": self.namespace, "file": self.file, "dry_run": self.dry_run,
                **dataclasses.asdict(self.diff), **self.change.as_dict(),
                "retracted_by_nogood": list(self.change.retracted_by_nogood)}


@cyclic_gc_paused()
def sync_agent(store: Store[NamespaceTx], name: str, network: Network, stored: Mapping[str, Truth],
               file: str = "", *, dry_run: bool = False, only_in: bool = False) -> SyncReport:
    """`only_in`: only the beliefs the file holds IN; one it holds no longer is gone."""
    check_name(name)
    at = now()
    if only_in:
        network, stored, _ = held_in(network, stored)
    agent = namespaced(name, network, stored, at)

    def work(tx: NamespaceTx) -> tuple[AgentDiff, Change]:
        record = next((r for r in tx.namespace_records() if r.name == name), None)
        if record is None:
            raise InvalidInput(f"no namespace '{name}': bring it in first with `{COMMAND}`",
                               field="namespace", value=name,
                               suggest=f"import-agent {name} FILE")
        diff, change = _apply(tx, agent, tx.namespace_digests(name), at)
        tx.save_namespace(dataclasses.replace(record, file=file or record.file, synced_at=at,
                                              meta=agent.meta, repos=agent.repos))
        return diff, change

    if dry_run:
        diff, change = store.dry_run(work)
    else:
        diff, change = store.write(work, ChangeEntry("sync-agent", {
            "namespace": name, "file": file, "beliefs": len(network.beliefs),
            **({"only_in": True} if only_in else {})}))
    return SyncReport(name, file, dry_run, diff, change)


def _apply(tx: NamespaceTx, agent: AgentNetwork, current: Mapping[str, Digest], at: str
           ) -> tuple[AgentDiff, Change]:
    name = agent.name
    switch = switch_id(name)
    new = {i: b for i, b in agent.beliefs.items() if i != switch}
    diff = AgentDiff()
    diff.added = sorted(new.keys() - current.keys())
    diff.changed = sorted(i for i in new.keys() & current.keys()
                          if current[i].sha256 != new[i].metadata.get("agent_sha256"))
    diff.gone = sorted(i for i in current.keys() - new.keys()  # a belief added here
                       if i != switch and not current[i].retracted and current[i].sha256)
    for i in sorted(new.keys() & current.keys()):
        now_pin, file_pin = current[i], new[i].retracted
        if file_pin and not now_pin.retracted:
            diff.retracted.append(i)
        elif not file_pin and now_pin.retracted and (
                now_pin.reason == gone_reason(name) or now_pin.agent_retracted):
            diff.restored.append(i)
    fresh_nogoods = _nogood_diff(tx, agent, diff)

    if diff.added:
        tx.create_beliefs([new[i] for i in diff.added])
    if diff.changed:
        was = tx.get_beliefs(diff.changed)
        merged = [_merged(new[i], was[i], name, at) for i in diff.changed]
        tx.redefine_beliefs(merged, same_support=[
            b.id for b in merged if b.justifications == was[b.id].justifications])
    if diff.gone:
        tx.set_pins(diff.gone, retracted=True, asserted=False, reason=gone_reason(name), at=at)
    by_reason: dict[str, list[str]] = {}
    for i in diff.retracted:
        by_reason.setdefault(new[i].retract_reason, []).append(i)
    for reason, ids in sorted(by_reason.items()):
        tx.set_pins(ids, retracted=True, asserted=False, reason=reason, at=at)
    if diff.restored:
        tx.set_pins(diff.restored, retracted=False, asserted=False, reason="", at=at)
    if diff.nogoods_changed or diff.nogoods_removed:
        tx.delete_nogoods(diff.nogoods_changed + diff.nogoods_removed)
    for nogood in fresh_nogoods:
        tx.create_nogood(nogood)
    seeds = sorted(set(diff.added + diff.changed + diff.gone + diff.retracted + diff.restored))
    change = tx.relabel(seeds) if seeds else Change()
    holding = tx.nogoods_holding(change.went_in + [m for n in fresh_nogoods for m in n.members])
    if holding:
        change = nogood_rules.resolve(tx, holding, change, at=at)
    return diff, change


def _nogood_diff(tx: TmsTx, agent: AgentNetwork, diff: AgentDiff) -> list[Nogood]:
    """Fill the diff's nogood lists; the nogoods to create (new, and changed anew). Only the
    namespace's nogoods (ids under `NAME:`) are compared: ours are never touched."""
    ns = prefix(agent.name)
    stored = {n.id: n for n in tx.nogoods() if n.id.startswith(ns)}
    in_file = {n.id: n for n in agent.nogoods}
    diff.nogoods_added = sorted(in_file.keys() - stored.keys())
    diff.nogoods_changed = sorted(i for i in in_file.keys() & stored.keys()
                                  if in_file[i].members != stored[i].members)
    diff.nogoods_removed = sorted(stored.keys() - in_file.keys())
    return [in_file[i] for i in diff.nogoods_added + diff.nogoods_changed]


def _merged(new: Belief, was: Belief, name: str, at: str) -> Belief:
    """The file's definition of a belief, with the justifications and gates that are ours."""
    agents_own = [j for j in was.justifications if is_agents(j, name)]
    ours = tuple(j for j in was.justifications if not is_agents(j, name))
    ns = prefix(name)
    shared_gates = _gates_on_all(agents_own, ns)
    justifications: Sequence[Justification] = tuple(
        dataclasses.replace(j, outlist=j.outlist + tuple(g for g in shared_gates
                                                         if g not in j.outlist))
        for j in new.justifications) + ours
    return dataclasses.replace(new, justifications=tuple(justifications),
                               created_at=was.created_at, updated_at=at)


def _gates_on_all(justifications: Sequence[Justification], ns: str) -> tuple[str, ...]:
    """Outlist members of ours (not the agent's ids) that every given justification has."""
    if not justifications:
        return ()
    first = [o for o in justifications[0].outlist if not o.startswith(ns)]
    return tuple(o for o in first if all(o in j.outlist for j in justifications[1:]))
