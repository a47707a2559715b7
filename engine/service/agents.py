"""Other agents' memories: import-agent (a network under NAME:, behind the switch
NAME:active), sync-agent (a namespace brought up to date with a newer file) and the
namespaces there are."""
from __future__ import annotations

from dataclasses import dataclass

from engine.agents import import_agent as agents
from engine.agents import sync_agent as agent_sync
from engine.agents.import_agent import AgentImportReport
from engine.agents.namespace import check_name
from engine.agents.sync_agent import SyncReport
from engine.agents.records import NamespaceRecord
from engine.service.context import Context
from engine.service.registry import NetworkFile, read_network


@dataclass(frozen=True)
class AgentImported:
    report: AgentImportReport
    notes: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {**self.report.as_dict(), "notes": list(self.notes)}


def import_agent(ctx: Context, name: str, given: NetworkFile, *, only_in: bool = False
                 ) -> AgentImported:
    check_name(name)
    got = read_network(given)
    report = agents.import_agent(ctx.store, name, got.network, got.stored, file=given.path,
                                 only_in=only_in)
    return AgentImported(report, tuple(got.notes))


@dataclass(frozen=True)
class AgentSynced:
    report: SyncReport
    notes: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {**self.report.as_dict(), "notes": list(self.notes)}


def sync_agent(ctx: Context, name: str, given: NetworkFile, *, dry_run: bool = False,
               only_in: bool = False) -> AgentSynced:
    check_name(name)
    got = read_network(given)
    report = agent_sync.sync_agent(ctx.store, name, got.network, got.stored, file=given.path,
                                   dry_run=dry_run, only_in=only_in)
    return AgentSynced(report, tuple(got.notes))


@dataclass(frozen=True)
class Namespaces:
    found: tuple[NamespaceRecord, ...]

    def as_dict(self) -> dict[str, object]:
        return {"namespaces": [{"name": r.name, "in": r.in_count, "beliefs": r.beliefs,
                                "active": r.active, "file": r.file,
                                "imported_at": r.imported_at, "synced_at": r.synced_at}
                               for r in self.found]}


def namespaces(ctx: Context) -> Namespaces:
    return Namespaces(tuple(agents.namespaces(ctx.store)))
