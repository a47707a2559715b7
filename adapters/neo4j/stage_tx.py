"""Neo4jTx part (ProvenanceTx): stage provenance (Run and Round nodes, the recent runs) and
derive's own reads and writes.

Queries in cypher/stages/provenance.cypher, cypher/stage_runs.cypher and
cypher/derive/derived.cypher. A run's `params`
is stored as JSON text (Neo4j properties cannot hold maps) and read back as a dict here,
next to the write, as records.py does for beliefs.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from adapters.neo4j.base import TxBase
from adapters.neo4j.records import belief_from_map
from engine.errors import StoreError
from engine.model import Belief
from engine.stages.provenance import ProposedBy, ProvenanceTx, RoundRecord, RunRecord

ID_BATCH = 5000


def run_to_params(run: RunRecord) -> dict:
    return {"id": run.id, "stage": run.stage, "model": run.model, "started_at": run.started_at,
            "params": json.dumps(dict(run.params), sort_keys=True, ensure_ascii=False,
                                 default=str)}


def round_to_params(record: RoundRecord) -> dict:
    return {
        "run_id": record.run_id, "n": record.round, "stage": record.stage,
        "strategy": record.strategy, "cluster": record.cluster,
        "prompt_sha256": record.prompt_sha256, "tokens_in": record.tokens_in,
        "tokens_out": record.tokens_out, "seconds": float(record.seconds),
    }


def run_from_values(run_id: Any, stage: Any, model: Any, started_at: Any, params: Any
                    ) -> RunRecord:
    """A (:Run) node's fields as a RunRecord: the one decoding of a run (a run written before
    stages had names is derive's; params that are not a JSON object are kept, not lost)."""
    try:
        decoded = json.loads(params) if isinstance(params, str) and params else {}
    except json.JSONDecodeError:
        decoded = {"raw": params}
    return RunRecord(run_id or "", model or "", str(started_at or ""),
                     decoded if isinstance(decoded, dict) else {"value": decoded},
                     stage or "derive")


def provenance_from_record(r: Any) -> ProposedBy:
    run = run_from_values(r["run_id"], r["stage"], r["model"], r["started_at"], r["params"])
    record = RoundRecord(
        run_id=r["run_id"], round=r["n"], prompt_sha256=r["prompt_sha256"] or "",
        tokens_in=r["tokens_in"] or 0, tokens_out=r["tokens_out"] or 0,
        seconds=r["seconds"] or 0.0, strategy=r["strategy"] or "", cluster=r["cluster"],
        stage=run.stage)
    return ProposedBy(run, record, kind=r["kind"], mode=r["mode"], label=r["label"] or "")


class StageTxPart(TxBase):
    def upgrade_provenance(self) -> dict[str, int]:
        """DeriveRun / DeriveRound nodes of older versions become Run / Round nodes."""
        return {name: self._one(name)[0]
                for name in ("migrate_derive_runs", "migrate_derive_rounds")}

    def create_run(self, run: RunRecord) -> None:
        self._run("stage_create_run", **run_to_params(run))

    def record_round(self, record: RoundRecord) -> None:
        if self._single("stage_record_round", **round_to_params(record)) is None:
            raise StoreError(f"no run '{record.run_id}' to record round {record.round} in")

    def link_proposed(self, run_id: str, round_n: int, proposed: Sequence[Mapping[str, str]]
                      ) -> None:
        rows = [dict(p) for p in proposed]
        r = self._single("derive_link_proposed", run_id=run_id, n=round_n, proposed=rows)
        if r is None or r["edges"] != len(rows):
            raise StoreError(
                f"derive round {round_n} of run '{run_id}' names beliefs that do not exist "
                f"({r['edges'] if r else 0} of {len(rows)} found)")

    def derived_citing(self, ids: Iterable[str]) -> list[Belief]:
        ordered = sorted(set(ids))
        found: dict[str, Belief] = {}
        for start in range(0, len(ordered), ID_BATCH):
            for r in self._run("derive_derived_citing", ids=ordered[start:start + ID_BATCH]):
                b = belief_from_map(r["belief"])
                found[b.id] = b
        return [found[i] for i in sorted(found)]

    def derive_provenance(self, belief_id: str) -> list[ProposedBy]:
        return [provenance_from_record(r.data())
                for r in self._run("derive_provenance_of_belief", id=belief_id)]

    def recent_stage_runs(self, limit: int) -> list[RunRecord]:
        record = self._single("recent_stage_runs", limit=int(limit))
        # each row: run id, stage, model, started_at, params
        return [run_from_values(*r) for r in record["runs"]] if record else []


# The protocol this part implements, checked by mypy.
_IMPLEMENTS: type[ProvenanceTx] = StageTxPart
