"""Another agent's memory: `import-agent` (its file under the namespace NAME, behind the
switch NAME:active) and `namespaces` (each one's counts and switch). sync-agent is
engine/agents/sync_agent.py; the rules of a namespace are engine/agents/namespace.py.

An import is ONE write transaction through the store's write path (the write lock and a
change-log entry `import-agent`). The file's beliefs name only each other and the switch, so
they are labelled from scratch by engine/tms/semantics.py and written with their labels in one
pass, as a plain import is (engine/interchange.write_import_in); the nogoods that hold after
it (the file's own, now enforced) are resolved, and an imported premise is the less
entrenched side against one of ours.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from engine.agents.namespace import check_name, prefix, switch_id
from engine.agents.namespaced import AgentNetwork, namespaced
from engine.agents.namespaced import only_in as held_in
from engine.agents.records import AgentTx, NamespaceRecord, NamespaceTx
from engine.bulk import cyclic_gc_paused
from engine.change_records import ChangeEntry
from engine.errors import COMMAND, InvalidInput
from engine.interchange import label_differences, write_import_in
from engine.model import Change, Truth
from engine.store import Store
from engine.tms import now
from engine.tms.records import Network


@dataclasses.dataclass
class AgentImportReport:
    namespace: str
    file: str
    beliefs: int  # the file's beliefs (the switch not counted)
    justifications: int
    nogoods: int
    came_in: list[str]  # the imported beliefs that are IN
    out: int  # the imported beliefs that are OUT
    retractions_kept: list[str]
    undetermined: list[str]
    stale: list[str]
    circular_support: list[str]
    asserted_there: list[str]
    went_out: list[str]  # beliefs of ours that the import's nogoods took OUT
    retracted_by_nogood: list[str]
    left_out: list[str] = dataclasses.field(default_factory=list)  # --only-in: OUT there

    def as_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)


def exists(name: str) -> InvalidInput:
    return InvalidInput(f"namespace '{name}' exists ({switch_id(name)}); bring it up to date "
                        f"with `{COMMAND}`", field="namespace", value=name,
                        suggest=f"sync-agent {name} FILE")


@cyclic_gc_paused()
def import_agent(store: Store[NamespaceTx], name: str, network: Network,
                 stored: Mapping[str, Truth],
                 file: str = "", *, only_in: bool = False) -> AgentImportReport:
    """`only_in`: only the beliefs the file holds IN (engine/agents/namespaced.only_in)."""
    at = now()
    left_out: list[str] = []
    if only_in:
        network, stored, left_out = held_in(network, stored)
    agent = namespaced(name, network, stored, at)
    switch = switch_id(name)

    def work(tx: NamespaceTx) -> Change:
        if tx.existing_ids([switch]) or any(r.name == name for r in tx.namespace_records()):
            raise exists(name)
        change = write_import_in(tx, agent.beliefs, agent.labels, agent.nogoods)
        tx.save_namespace(NamespaceRecord(name, file, at, meta=agent.meta, repos=agent.repos))
        return change

    change = store.write(work, ChangeEntry("import-agent", {
        "namespace": name, "file": file, "beliefs": len(network.beliefs),
        "nogoods": len(network.nogoods), **({"only_in": True} if only_in else {})}))
    return dataclasses.replace(_report(agent, network, stored, change, file),
                               left_out=[prefix(name) + i for i in left_out])


def _report(agent: AgentNetwork, network: Network, stored: Mapping[str, Truth],
            change: Change, file: str) -> AgentImportReport:
    ns = prefix(agent.name)
    switch = switch_id(agent.name)
    imported = {bid: b for bid, b in agent.beliefs.items() if bid != switch}
    gone_out = set(change.went_out)
    came_in = sorted(bid for bid in change.went_in if bid.startswith(ns) and bid != switch)
    differences = label_differences(imported, agent.labels, {ns + i: t for i, t in
                                                             stored.items()})
    return AgentImportReport(
        namespace=agent.name, file=file, beliefs=len(imported),
        justifications=sum(len(b.justifications) for b in imported.values()),
        nogoods=len(agent.nogoods), came_in=came_in, out=len(imported) - len(came_in),
        retractions_kept=sorted(bid for bid, b in imported.items()
                                if b.retracted and not network.beliefs[bid[len(ns):]].retracted),
        undetermined=differences.undetermined, stale=differences.stale,
        circular_support=differences.circular_support, asserted_there=agent.asserted_there,
        went_out=sorted(i for i in gone_out if not i.startswith(ns)),
        retracted_by_nogood=list(change.retracted_by_nogood),
    )


def namespaces(store: Store[AgentTx]) -> list[NamespaceRecord]:
    return store.read(lambda tx: tx.namespace_records())


def require_namespace(tx: AgentTx, name: str) -> NamespaceRecord:
    check_name(name)
    found = next((r for r in tx.namespace_records() if r.name == name), None)
    if found is None:
        raise InvalidInput(f"no namespace '{name}' (see `{COMMAND}`)", field="namespace",
                           value=name, suggest="namespaces")
    return found


def check_namespace(store: Store[AgentTx], name: str) -> NamespaceRecord:
    """The namespace's record; an error naming it when there is no such namespace."""
    return store.read(lambda tx: require_namespace(tx, name))


def network_of(network: Network, name: str) -> Network:
    """The part of a network that is one namespace: its beliefs, the nogoods all of whose
    members are in it, and no meta of ours."""
    ns = prefix(name)
    return Network({i: b for i, b in network.beliefs.items() if i.startswith(ns)},
                   [n for n in network.nogoods if all(m.startswith(ns) for m in n.members)],
                   {}, {"namespace": name})
