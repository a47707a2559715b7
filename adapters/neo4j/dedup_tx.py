"""Neo4jTx part (PairRecords): dedup and contradictions (candidate reads, pair verdicts,
merges and their undo, nogoods found by a stage). Queries in cypher/dedup/dedup.cypher."""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from adapters.neo4j.base import TxBase
from adapters.neo4j.change_tracker import note_redefined
from engine.errors import InvalidInput
from engine.memory.records import RewiredEdge
from engine.pairs.records import MergeRecord, PairVerdict
from engine.pairs.records import PairRecords


# a pair verdict written, and read back, side by side
def verdict_key(stage: str, a: str, b: str) -> str:
    return f"{stage}|{a}|{b}"


def verdict_to_row(v: PairVerdict) -> dict[str, Any]:
    return {"key": verdict_key(v.stage, v.a, v.b), "stage": v.stage, "a": v.a, "b": v.b,
            "sha_a": v.sha_a, "sha_b": v.sha_b, "verdict": v.verdict, "run_id": v.run_id,
            "round": v.round, "comment": v.comment}


def verdict_from_list(stage: str, row: Sequence[Any]) -> PairVerdict:
    a, b, sha_a, sha_b, verdict, run_id, round_n, comment = row
    return PairVerdict(stage, a, b, sha_a or "", sha_b or "", verdict, run_id or "",
                       int(round_n or 0), comment or "")


# a merge record written on the DUPLICATE_OF edge, and read back, side by side
def merge_to_props(r: MergeRecord) -> dict[str, Any]:
    return {"rewired": json.dumps([[e.belief, e.seq, e.kind, e.pos] for e in r.rewired]),
            "edges_moved": len(r.rewired),
            "was_retracted": r.was_retracted, "was_asserted": r.was_asserted,
            "was_retracted_at": r.was_retracted_at, "was_reason": r.was_reason,
            "was_updated_at": r.was_updated_at, "run_id": r.run_id, "round": r.round,
            "at": r.at}


def merge_from_props(merged: str, kept: str, p: Mapping[str, Any]) -> MergeRecord:
    rewired = tuple(RewiredEdge(b, int(s), k, int(pos))
                    for b, s, k, pos in json.loads(p.get("rewired") or "[]"))
    return MergeRecord(merged=merged, kept=kept, rewired=rewired,
                       was_retracted=bool(p.get("was_retracted")),
                       was_asserted=bool(p.get("was_asserted")),
                       was_retracted_at=p.get("was_retracted_at") or "",
                       was_reason=p.get("was_reason") or "",
                       was_updated_at=p.get("was_updated_at") or "",
                       run_id=p.get("run_id") or "", round=int(p.get("round") or 0),
                       at=p.get("at") or "")


def _or_null(value: Any) -> Any:
    return value if value not in ("", False) else None  # absent reads as empty or false


class DedupTxPart(TxBase):
    def in_belief_texts(self) -> list[tuple[str, str]]:
        record = self._single("in_belief_texts")
        return [(i, t) for i, t in record["pool"]] if record else []

    def sibling_groups(self, max_group: int) -> list[tuple[str, ...]]:
        record = self._single("sibling_groups", max_group=int(max_group))
        return [tuple(g) for g in record["groups"]] if record else []

    def pair_verdicts(self, stage: str) -> list[PairVerdict]:
        record = self._single("pair_verdicts", stage=stage)
        return [verdict_from_list(stage, row) for row in record["verdicts"]] if record else []

    def save_pair_verdicts(self, verdicts: Sequence[PairVerdict]) -> None:
        if verdicts:
            self._run("save_pair_verdicts", rows=[verdict_to_row(v) for v in verdicts])

    def rewire_mentions(self, merged: str, kept: str) -> tuple[RewiredEdge, ...]:
        note_redefined(self, sorted({c for r in self._run("region_dependents", ids=[merged])
                                     for c in r["dependents"]} - {kept}))
        record = self._single("rewire_mentions", merged=merged, kept=kept)
        rows = record["rewired"] if record else []
        return tuple(sorted(RewiredEdge(b, int(s), k, int(p)) for b, s, k, p in rows))

    def record_merge(self, record: MergeRecord) -> None:
        self._run("record_merge", merged=record.merged, kept=record.kept,
                  props=merge_to_props(record))

    def merge_record(self, merged: str) -> MergeRecord | None:
        record = self._single("merge_record", merged=merged)
        return merge_from_props(merged, record["kept"], record["props"]) if record else None

    def undo_merge(self, record: MergeRecord) -> None:
        rows = [{"belief": e.belief, "seq": e.seq, "kind": e.kind, "pos": e.pos}
                for e in record.rewired]
        note_redefined(self, sorted({e.belief for e in record.rewired}))
        if rows:
            moved = self._one("move_back_edges", merged=record.merged, kept=record.kept,
                              rows=rows)["moved"]
            if moved != len(rows):
                raise InvalidInput(
                    f"cannot undo the merge of '{record.merged}': {len(rows) - moved} of the "
                    f"edges it moved to '{record.kept}' are no longer there (undo the later "
                    "merge first)", field="id", value=record.merged)
        self._run("restore_merged", merged=record.merged, pins={
            "retracted": _or_null(record.was_retracted),
            "asserted": _or_null(record.was_asserted),
            "retracted_at": _or_null(record.was_retracted_at),
            "retract_reason": _or_null(record.was_reason),
            "updated_at": _or_null(record.was_updated_at)})

    def mark_nogood_found(self, nogood_id: str, stage: str, run_id: str, round_n: int) -> None:
        self._run("mark_nogood_found", id=nogood_id, stage=stage, run_id=run_id,
                  round=int(round_n))


# The protocol this part implements, checked by mypy.
_IMPLEMENTS: type[PairRecords] = DedupTxPart
