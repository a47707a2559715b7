"""Neo4jTx part: the editing verbs (engine.memory.records.Editing): gates, SUPERSEDED_BY
records, moved edges, metadata and fields, deletion. Each records what it redefines for the
change log first."""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from adapters.neo4j.base import TxBase
from adapters.neo4j.change_tracker import note_redefined
from engine.errors import InvalidInput, StoreError
from engine.memory.records import (
    EDITABLE_FIELDS,
    MARKER_LABELS,
    Editing,
    RewiredEdge,
    SupersedeRecord,
    gated_of,
)
from engine.tms.access import own_tags


def supersede_to_props(r: SupersedeRecord) -> dict[str, Any]:
    return {"created_new": r.created_new, "reason": r.reason, "at": r.at,
            "rewired": json.dumps([[e.belief, e.seq, e.kind, e.pos] for e in r.rewired]),
            "gated": r.gated}


def supersede_from_props(old: str, new: str, p: Mapping[str, Any]) -> SupersedeRecord:
    return SupersedeRecord(
        old=old, new=new, created_new=bool(p.get("created_new")),
        rewired=tuple(RewiredEdge(b, int(s), k, int(pos))
                      for b, s, k, pos in json.loads(p.get("rewired") or "[]")),
        reason=p.get("reason") or "", at=p.get("at") or "", gated=gated_of(p.get("gated")))


class EditTxPart(TxBase):
    def gate_belief(self, belief_id: str, gate_id: str, positions: Sequence[int] | None) -> int:
        note_redefined(self, [belief_id])
        shape = self._single("gate_target", id=belief_id)
        if shape is None:
            raise StoreError(f"no belief '{belief_id}' to gate")
        seqs, gates = list(shape["seqs"]), list(shape["gates"])
        if all(gates):  # a premise: its one gate justification carries every gate
            if not seqs:
                seqs = [0]
                self._run("create_gate_justification", id=belief_id, seq=seqs[0])
            chosen = seqs[:1]
        else:
            chosen = [s for k, s in enumerate(seqs, start=1)
                      if positions is None or k in positions]
        record = self._single("append_unless", id=belief_id, gate=gate_id, seqs=chosen)
        return int(record["gated"]) if record else 0

    def ungate_belief(self, belief_id: str, gate_id: str) -> int:
        note_redefined(self, [belief_id])
        record = self._single("remove_unless", id=belief_id, gate=gate_id)
        return int(record["removed"] or 0) if record else 0

    def record_supersede(self, record: SupersedeRecord) -> None:
        self._run("record_supersede", old=record.old, new=record.new,
                  props=supersede_to_props(record))

    def supersede_record(self, old: str) -> SupersedeRecord | None:
        r = self._single("supersede_record", old=old)
        return supersede_from_props(old, r["new"], r["props"]) if r else None

    def delete_supersede(self, old: str) -> None:
        self._run("delete_supersede", old=old)

    def move_mentions_back(self, edges: Sequence[RewiredEdge], moved_to: str, back_to: str
                           ) -> int:
        if not edges:
            return 0
        note_redefined(self, sorted({e.belief for e in edges}))
        rows = [{"belief": e.belief, "seq": e.seq, "kind": e.kind, "pos": e.pos} for e in edges]
        record = self._single("move_back_edges", merged=back_to, kept=moved_to, rows=rows)
        return int(record["moved"]) if record else 0

    def set_metadata(self, belief_id: str, metadata: Mapping[str, Any], at: str) -> None:
        note_redefined(self, [belief_id])
        self._run("set_metadata", id=belief_id, at=at,
                  metadata=json.dumps(dict(metadata), sort_keys=True, ensure_ascii=False),
                  access_tags=sorted(own_tags(metadata)) or None)

    def set_fields(self, belief_id: str, fields: Mapping[str, str], at: str) -> None:
        unknown = set(fields) - EDITABLE_FIELDS
        if unknown:
            raise InvalidInput(f"not an editable field: {min(unknown)}", field="fields")
        note_redefined(self, [belief_id])
        self._run("set_fields", id=belief_id, fields=dict(fields), at=at)

    def copy_source_link(self, old: str, new: str) -> None:
        self._run("copy_source_link", old=old, new=new)

    def delete_belief(self, belief_id: str) -> None:
        self._run("delete_belief", id=belief_id)
        self.change_log.forget([belief_id])
        self._element_of.pop(belief_id, None)

    def mark_labels(self, belief_id: str, labels: Sequence[str]) -> None:
        unknown = set(labels) - MARKER_LABELS
        if unknown:
            raise InvalidInput(f"not a marker label: {min(unknown)}", field="labels")
        self._run("mark_labels", id=belief_id, labels=sorted(set(labels)))


# The protocol this part implements, checked by mypy.
_IMPLEMENTS: type[Editing] = EditTxPart
