"""Neo4jTx part: proposals (engine/proposals/records.py's ProposalTx), queries in
cypher/proposals/proposals.cypher. A proposal's to-parameters and from-record code sit side
by side here."""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from adapters.neo4j.base import TxBase
from engine.proposals.records import Decision, Impact, Proposal, Snapshot, Status
from engine.proposals.records import ProposalTx


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def proposal_to_params(p: Proposal) -> dict[str, Any]:
    return {"id": p.id, "n": p.n, "action": p.action, "args": _json(dict(p.args)),
            "target": p.target, "proposer": p.proposer, "reason": p.reason, "at": p.at,
            "status": p.status.value, "snapshot": _json(p.snapshot.as_dict()),
            "impact_in": list(p.impact.went_in), "impact_out": list(p.impact.went_out),
            "impact_by_nogood": list(p.impact.retracted_by_nogood)}


def proposal_from_map(m: Mapping[str, Any]) -> Proposal:
    args = json.loads(m.get("args") or "{}")
    change_seq = m.get("change_seq")
    return Proposal(
        id=m["id"], n=int(m.get("n") or 0), action=m.get("action") or "",
        args=args if isinstance(args, dict) else {}, target=m.get("target") or "",
        proposer=m.get("proposer") or "", reason=m.get("reason") or "", at=m.get("at") or "",
        status=Status(m.get("status") or "pending"),
        snapshot=Snapshot.from_dict(json.loads(m.get("snapshot") or "{}")),
        impact=Impact(tuple(m.get("impact_in") or ()), tuple(m.get("impact_out") or ()),
                      tuple(m.get("impact_by_nogood") or ())),
        superseded_by=m.get("superseded_by") or "", decided_by=m.get("decided_by") or "",
        decided_at=m.get("decided_at") or "", decision_reason=m.get("decision_reason") or "",
        forced=bool(m.get("forced")), drift=tuple(m.get("drift") or ()),
        change_seq=int(change_seq) if change_seq is not None else None)


class ProposalTxPart(TxBase):
    def next_proposal_number(self) -> int:
        return int(self._one("next_proposal_number")["n"])

    def save_proposal(self, proposal: Proposal) -> None:
        self._run("create_proposal", p=proposal_to_params(proposal))

    def proposals(self, status: Status | None) -> list[Proposal]:
        return [proposal_from_map(r["proposal"])
                for r in self._run("proposals_listed",
                                   status=status.value if status else None)]

    def proposal(self, proposal_id: str) -> Proposal | None:
        record = self._single("proposal_by_id", id=proposal_id)
        return proposal_from_map(record["proposal"]) if record else None

    def supersede_pending(self, target: str, newer: str, at: str) -> list[str]:
        return list(self._one("supersede_pending_proposals", target=target, newer=newer,
                              at=at)["ids"])

    def decide_proposal(self, proposal_id: str, decision: Decision) -> None:
        accepted = decision.status == Status.ACCEPTED
        self._run("decide_proposal", id=proposal_id, status=decision.status.value,
                  by=decision.by, at=decision.at, reason=decision.reason,
                  forced=decision.forced, drift=list(decision.drift),
                  change_seq=self.change_log.seq if accepted else None)
        if accepted:  # the link is made once the store has appended the entry
            self.change_log.accepted_proposals.append(proposal_id)

    def this_change_seq(self) -> int:
        return self.change_log.seq


# The protocol this part implements, checked by mypy.
_IMPLEMENTS: type[ProposalTx] = ProposalTxPart
