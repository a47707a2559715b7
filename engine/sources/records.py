"""The sources premises are drawn from, and the pins to them, as the store keeps them
(SourceRecords: forge, add --source, sources status). adapters/neo4j/forge_tx.py implements
it in Cypher (cypher/forge/sources.cypher)."""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from engine.model import Belief, SourceRecord


@dataclass(frozen=True)
class SourcePin:
    """Where a premise's words stand in its source: the belief's `source`, `source_hash` and
    `metadata` (quote and lines inside) are set, and its one (:Belief)-[:FROM {lines}]->
    (:Source) edge points at `source`."""

    id: str
    source: str
    source_hash: str
    lines: tuple[int, int]
    metadata: Mapping[str, object]
    at: str = ""


class SourceRecords(Protocol):
    """The sources premises are drawn from, and the pins to them (forge, add
    --source, sources status)."""

    def sources(self) -> list[SourceRecord]:
        """Every Source node, by path."""

    def save_sources(self, sources: Sequence[SourceRecord]) -> None:
        """Create or update each source by path (its hash, size, time and forged chunks)."""

    def pin_to_sources(self, pins: Sequence[SourcePin]) -> int:
        """Set each belief's source fields and its FROM edge (replacing an older one); the
        sources must exist. Returns how many beliefs were found."""

    def beliefs_from_sources(self, paths: Iterable[str]) -> list[Belief]:
        """Beliefs with a FROM edge to one of these sources, with pins, truth and metadata,
        by id."""

    def unpinned_sourced_ids(self) -> list[str]:
        """Ids of the beliefs that name a source but carry no source hash and no FROM edge
        (imported ones, or added before sources were pinned), by id."""

    def hashed_unpinned_ids(self) -> list[str]:
        """Ids of the beliefs that name a source and carry its hash but no FROM edge (what
        ftl-reasons and reasonsforge pin: the whole file's sha256), by id."""

    def set_source_hashes(self, hashes: Mapping[str, str], at: str) -> int:
        """Set each belief's `source_hash` (by id) and `updated_at`; returns how many were
        found."""

    def project_root(self) -> str:
        """The folder the memory's source paths are relative to (absolute), "" when none was
        recorded yet."""

    def save_project_root(self, root: str) -> None:
        """Record (or move) the memory's root folder."""

    def network_repos(self) -> dict[str, str]:
        """The repos maps kept from imported files (repo name -> path): the imported agents'
        files', then the memory's own over them; {} when none."""

