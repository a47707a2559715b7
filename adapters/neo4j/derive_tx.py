"""Neo4jTx part: derive rounds: provenance writes, derived-belief reads.

Queries in cypher/derive/provenance.cypher and cypher/derive/derived.cypher. A run's `params`
is stored as JSON text (Neo4j properties cannot hold maps) and read back as a dict here,
next to the write, as records.py does for beliefs.
"""
from __future__ import annotations

import json
from collections.abc import Iterable

from adapters.neo4j.base import TxBase
from adapters.neo4j.records import belief_from_map
from engine.errors import StoreError
from engine.model import Belief
from engine.store import DeriveRoundRecord, DeriveRunRecord, ProposedBy

ID_BATCH = 5000


def run_to_params(run: DeriveRunRecord) -> dict:
    return {"id": run.id, "model": run.model, "started_at": run.started_at,
            "params": json.dumps(dict(run.params), sort_keys=True, ensure_ascii=False,
                                 default=str)}


def round_to_params(record: DeriveRoundRecord) -> dict:
    return {
        "run_id": record.run_id, "n": record.round, "strategy": record.strategy,
        "cluster": record.cluster, "prompt_sha256": record.prompt_sha256,
        "tokens_in": record.tokens_in, "tokens_out": record.tokens_out,
        "seconds": float(record.seconds),
        "proposed": [{"id": i, "kind": k, "mode": m, "label": lbl}
                     for i, k, m, lbl in record.proposed],
    }


def provenance_from_record(r) -> ProposedBy:
    params = json.loads(r["params"]) if r["params"] else {}
    run = DeriveRunRecord(id=r["run_id"], model=r["model"] or "",
                          started_at=r["started_at"] or "",
                          params=params if isinstance(params, dict) else {})
    record = DeriveRoundRecord(
        run_id=r["run_id"], round=r["n"], strategy=r["strategy"] or "", cluster=r["cluster"],
        prompt_sha256=r["prompt_sha256"] or "", tokens_in=r["tokens_in"] or 0,
        tokens_out=r["tokens_out"] or 0, seconds=r["seconds"] or 0.0,
        proposed=((r["belief_id"], r["kind"], r["mode"], r["label"] or ""),),
    )
    return ProposedBy(run, record)


class DeriveTxPart(TxBase):
    def create_derive_run(self, run: DeriveRunRecord) -> None:
        self._run("derive_create_run", **run_to_params(run))

    def record_derive_round(self, record: DeriveRoundRecord) -> None:
        params = round_to_params(record)
        r = self._single("derive_record_round", **params)
        if r is None:
            raise StoreError(f"no derive run '{record.run_id}' to record round {record.round} in")
        if r["edges"] != len(params["proposed"]):
            raise StoreError(
                f"derive round {record.round} of run '{record.run_id}' names beliefs that do "
                f"not exist ({r['edges']} of {len(params['proposed'])} found)")

    def derived_citing(self, ids: Iterable[str]) -> list[Belief]:
        ordered = sorted(set(ids))
        found: dict[str, Belief] = {}
        for start in range(0, len(ordered), ID_BATCH):
            for r in self._run("derive_derived_citing", ids=ordered[start:start + ID_BATCH]):
                b = belief_from_map(r["belief"])
                found[b.id] = b
        return [found[i] for i in sorted(found)]

    def derive_provenance(self, belief_id: str) -> list[ProposedBy]:
        return [provenance_from_record({**r.data(), "belief_id": belief_id})
                for r in self._run("derive_provenance_of_belief", id=belief_id)]
