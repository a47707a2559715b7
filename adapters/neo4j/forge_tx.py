"""Neo4jTx part: forge's sources and the FROM edges of the premises drawn from them.
Queries in cypher/forge/sources.cypher.

A belief's `metadata` is JSON text (properties cannot hold maps),
written here and read back by records.belief_from_map.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

import neo4j

from adapters.neo4j.base import TxBase
from engine.model import Belief
from engine.sources.records import SourcePin, SourceRecord, SourceRecords
from engine.tms.records import TmsTx


def _json(value: Mapping[str, Any]) -> str:
    return json.dumps(dict(value), sort_keys=True, ensure_ascii=False, default=str)


# a source written, and read back, side by side
def source_to_row(s: SourceRecord) -> dict[str, Any]:
    return {"path": s.path, "sha256": s.sha256, "size": s.size, "forged_at": s.forged_at,
            "chunks": list(s.chunks)}


def source_from_map(m: Mapping[str, Any]) -> SourceRecord:
    return SourceRecord(path=m["path"], sha256=m.get("sha256") or "", size=m.get("size") or 0,
                        forged_at=m.get("forged_at") or "", chunks=tuple(m.get("chunks") or ()))


def pin_to_row(p: SourcePin) -> dict[str, Any]:
    return {"id": p.id, "source": p.source, "source_hash": p.source_hash,
            "metadata": _json(p.metadata), "lines": list(p.lines), "at": p.at}



class InTmsTx(TmsTx, Protocol):
    """A part in a transaction that has the TMS part too (tms_tx.TmsTxPart, as Neo4jTx
    has): what the beliefs drawn from sources are read through."""

    def run_query(self, name: str, **params: Any) -> list[neo4j.Record]: ...


class ForgeTxPart(TxBase):
    def sources(self) -> list[SourceRecord]:
        record = self._single("forge_sources")
        return [source_from_map(m) for m in record["sources"]] if record else []

    def save_sources(self, sources: Sequence[SourceRecord]) -> None:
        if sources:
            self._run("forge_save_sources", rows=[source_to_row(s) for s in sources])

    def pin_to_sources(self, pins: Sequence[SourcePin]) -> int:
        if not pins:
            return 0
        record = self._single("forge_pin_to_sources", rows=[pin_to_row(p) for p in pins])
        return record["pinned"] if record else 0

    def beliefs_from_sources(self: InTmsTx, paths: Iterable[str]) -> list[Belief]:
        [record] = self.run_query("forge_belief_ids_from_sources", paths=sorted(set(paths)))
        found = self.get_beliefs(record["ids"])
        return [found[i] for i in sorted(found)]

    def unpinned_sourced_ids(self) -> list[str]:
        record = self._single("sources_unpinned_ids")
        return sorted(record["ids"]) if record else []

    def hashed_unpinned_ids(self) -> list[str]:
        record = self._single("sources_hashed_unpinned_ids")
        return sorted(record["ids"]) if record else []

    def set_source_hashes(self, hashes: Mapping[str, str], at: str) -> int:
        if not hashes:
            return 0
        record = self._single("sources_set_hashes", at=at,
                              rows=[{"id": i, "hash": h} for i, h in sorted(hashes.items())])
        return record["found"] if record else 0

    def project_root(self) -> str:
        record = self._single("project_root")
        return (record["root"] or "") if record else ""

    def save_project_root(self, root: str) -> None:
        self._run("save_project_root", root=root)

    def network_repos(self) -> dict[str, str]:
        record = self._single("network_repos")
        if record is None:
            return {}
        repos: dict[str, str] = {}
        for text in [*record["agent_repos"], record["repos"]]:  # the memory's own win
            repos.update({str(k): str(v) for k, v in json.loads(text or "{}").items()})
        return repos


# The protocol this part implements, checked by mypy.
_IMPLEMENTS: type[SourceRecords] = ForgeTxPart
