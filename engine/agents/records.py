"""The store verbs another agent's memory needs (import-agent, sync-agent, namespaces): a
protocol of their own beside engine/store.py's, implemented by adapters/neo4j/agent_tx.py
(queries in cypher/agents/agents.cypher)."""
from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from engine.model import Belief
from engine.tms.records import ResolutionTx


@dataclass(frozen=True)
class NamespaceRecord:
    """(:Namespace {name, file, imported_at, synced_at, meta, repos}): where a namespace came
    from, outside the network (like NetworkInfo), with its counts when read."""

    name: str
    file: str
    imported_at: str
    synced_at: str = ""
    meta: dict[str, Any] | None = None
    repos: dict[str, Any] | None = None
    beliefs: int = 0
    in_count: int = 0
    active: bool = False  # whether its switch NAME:active is IN


@dataclass(frozen=True)
class Digest:
    """An imported belief as sync-agent compares it: the digest of the definition its file
    gave, and its pin now."""

    id: str
    sha256: str
    retracted: bool
    reason: str
    agent_retracted: bool


class AgentTx(Protocol):
    def namespace_records(self) -> list[NamespaceRecord]:
        """Every namespace with its belief count, IN count and switch state, by name."""
        ...

    def save_namespace(self, record: NamespaceRecord) -> None: ...

    def namespace_digests(self, name: str) -> dict[str, Digest]:
        """Every belief whose id starts with `name:` (its switch included), by id."""
        ...

    def namespace_ids(self, name: str) -> list[str]: ...

    def delete_nogoods(self, ids: Sequence[str]) -> None:
        """Delete these nogoods (a namespace's that its file no longer has as they were)."""
        ...

    def redefine_beliefs(self, beliefs: Sequence[Belief],
                         same_support: Collection[str] = ()) -> None:
        """Give existing beliefs these texts, source fields, metadata and justifications (all
        of them replaced, in the given order); pins and labels are left to the caller. The
        beliefs named in `same_support` have these justifications already: only their
        fields are written (deleting and recreating edges of the switch costs seconds)."""
        ...


class NamespaceTx(ResolutionTx, AgentTx, Protocol):
    """What an agent's namespace is written through (import, sync, an add inside it):
    beliefs, pins, labels and nogood resolution (ResolutionTx), and the namespace's records
    (AgentTx)."""
