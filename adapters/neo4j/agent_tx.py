"""Neo4jTx part: the store verbs of other agents' memories (engine/agents/records.AgentTx),
queries in cypher/agents/agents.cypher."""
from __future__ import annotations

import json
from collections.abc import Collection, Sequence

from adapters.neo4j.base import TxBase
from adapters.neo4j.change_tracker import note_redefined
from adapters.neo4j.records import belief_to_row, justification_rows
from engine.agents.namespace import prefix
from engine.agents.records import AgentTx, Digest, NamespaceRecord
from engine.model import Belief

BATCH = 5000


def _json_or_none(text: str | None) -> dict | None:
    return json.loads(text) if text else None


class AgentTxPart(TxBase):
    def namespace_records(self) -> list[NamespaceRecord]:
        return [NamespaceRecord(
            name=r["name"], file=r["file"] or "", imported_at=r["imported_at"] or "",
            synced_at=r["synced_at"] or "", meta=_json_or_none(r["meta"]),
            repos=_json_or_none(r["repos"]), beliefs=r["beliefs"], in_count=r["in_count"],
            active=r["active"]) for r in self._run("namespace_records")]

    def save_namespace(self, record: NamespaceRecord) -> None:
        self._run("save_namespace", namespace=record.name, file=record.file,
                  imported_at=record.imported_at, synced_at=record.synced_at,
                  meta=json.dumps(record.meta or {}, ensure_ascii=False),
                  repos=json.dumps(record.repos or {}, ensure_ascii=False))

    def namespace_digests(self, name: str) -> dict[str, Digest]:
        record = self._single("namespace_digests", prefix=prefix(name))
        out: dict[str, Digest] = {}
        for bid, metadata, retracted, reason in record["rows"] if record else ():
            meta = json.loads(metadata) if metadata else {}
            out[bid] = Digest(bid, str(meta.get("agent_sha256", "")), retracted, reason,
                              bool(meta.get("agent_retracted")))
        return out

    def namespace_ids(self, name: str) -> list[str]:
        record = self._single("namespace_ids", prefix=prefix(name))
        return list(record["ids"]) if record else []

    def delete_nogoods(self, ids: Sequence[str]) -> None:
        self._run("delete_nogoods", ids=list(ids))

    def redefine_beliefs(self, beliefs: Sequence[Belief],
                         same_support: Collection[str] = ()) -> None:
        note_redefined(self, [b.id for b in beliefs])
        rows = [{"id": b.id, **{k: row["props"][k] for k in (
            "text", "source", "source_url", "source_hash", "date", "metadata", "extra",
            "updated_at")}} for b in beliefs for row in (belief_to_row(b),)]
        for start in range(0, len(rows), BATCH):
            self._run("redefine_belief_fields", rows=rows[start:start + BATCH])
        keep = set(same_support)
        beliefs = [b for b in beliefs if b.id not in keep]
        ids = [b.id for b in beliefs]
        for start in range(0, len(ids), BATCH):
            self._run("delete_justifications_of", ids=ids[start:start + BATCH])
        named = sorted({ref for b in beliefs for j in b.justifications for ref in j.mentions()})
        for start in range(0, len(named), BATCH):
            self._run("ensure_placeholders", ids=named[start:start + BATCH])
        jrows = [row for b in beliefs for row in justification_rows(b.id, b.justifications)]
        for start in range(0, len(jrows), 2000):
            self._run("create_justifications", rows=jrows[start:start + 2000])


# The protocol this part implements, checked by mypy.
_IMPLEMENTS: type[AgentTx] = AgentTxPart
