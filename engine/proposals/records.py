"""The records of a proposal: what it depends on (Snapshot), the proposal as stored, and the
store verbs that keep them (ProposalTx, a part engine/graph.py's GraphTx composes;
adapters/neo4j/proposal_tx.py implements it)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Protocol


class Status(StrEnum):
    PENDING = "pending"
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    WITHDRAWN = "withdrawn"
    SUPERSEDED = "superseded"  # a newer pending proposal on the same target came


@dataclass(frozen=True)
class Snapshot:
    """What a proposal depends on, as it stood: its target (exists, label, sha256 of its
    text) and whether each other id it names existed."""

    target: str
    exists: bool
    truth: str = ""  # IN | OUT | UNDETERMINED; "" when absent
    text_sha256: str = ""
    named: Mapping[str, bool] = field(default_factory=lambda: MappingProxyType({}))

    def as_dict(self) -> dict[str, object]:
        return {"target": self.target, "exists": self.exists, "truth": self.truth,
                "text_sha256": self.text_sha256, "named": dict(sorted(self.named.items()))}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Snapshot:
        return cls(target=str(d.get("target", "")), exists=bool(d.get("exists")),
                   truth=str(d.get("truth") or ""), text_sha256=str(d.get("text_sha256") or ""),
                   named=MappingProxyType({str(k): bool(v)
                                           for k, v in dict(d.get("named") or {}).items()}))


def drift(then: Snapshot, now: Snapshot) -> list[str]:
    """What changed between two snapshots of the same proposal, one line each ([]: none)."""
    lines: list[str] = []
    t = then.target
    if then.exists and not now.exists:
        lines.append(f"target '{t}' no longer exists")
    elif not then.exists and now.exists:
        lines.append(f"target '{t}' exists now (it did not when proposed)")
    elif then.exists:
        if then.truth != now.truth:
            lines.append(f"target '{t}' was {then.truth}, is {now.truth} now")
        if then.text_sha256 != now.text_sha256:
            lines.append(f"target '{t}' has a different text now")
    for ref in sorted(set(then.named) | set(now.named)):
        was, now_exists = then.named.get(ref, False), now.named.get(ref, False)
        if was and not now_exists:
            lines.append(f"'{ref}' no longer exists")
        elif now_exists and not was:
            lines.append(f"'{ref}' exists now (it did not when proposed)")
    return lines


@dataclass(frozen=True)
class Impact:
    """What a what-if of the proposal found would go IN and OUT (or why it cannot apply)."""

    went_in: tuple[str, ...] = ()
    went_out: tuple[str, ...] = ()
    retracted_by_nogood: tuple[str, ...] = ()
    error: str = ""  # set when the action cannot apply now (the verb's own Error line)

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"went_in": list(self.went_in), "went_out": list(self.went_out),
                               "retracted_by_nogood": list(self.retracted_by_nogood)}
        if self.error:
            out["error"] = self.error
        return out


@dataclass(frozen=True)
class Proposal:
    """(:Proposal) as stored. `args` are the verb's arguments in library form (JSON)."""

    id: str
    n: int
    action: str
    args: Mapping[str, Any]
    target: str
    proposer: str
    reason: str
    at: str
    status: Status
    snapshot: Snapshot
    impact: Impact
    superseded_by: str = ""
    decided_by: str = ""
    decided_at: str = ""
    decision_reason: str = ""
    forced: bool = False
    drift: tuple[str, ...] = ()  # what had changed when it was accepted with --force
    change_seq: int | None = None  # the change-log entry its accept appended

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, "action": self.action, "args": dict(self.args),
                "target": self.target, "proposer": self.proposer, "reason": self.reason,
                "at": self.at, "status": self.status.value, "snapshot": self.snapshot.as_dict(),
                "impact": self.impact.as_dict(), "superseded_by": self.superseded_by or None,
                "decided_by": self.decided_by or None, "decided_at": self.decided_at or None,
                "decision_reason": self.decision_reason or None, "forced": self.forced,
                "drift": list(self.drift), "change_seq": self.change_seq}


@dataclass(frozen=True)
class Decision:
    """What accept, reject or withdraw writes on a pending proposal."""

    status: Status
    by: str
    at: str
    reason: str = ""
    forced: bool = False
    drift: Sequence[str] = ()


class ProposalTx(Protocol):
    def next_proposal_number(self) -> int:
        """One more than the highest proposal number so far (1 for the first)."""

    def save_proposal(self, proposal: Proposal) -> None:
        """Create the (:Proposal) node (its id must be new)."""

    def proposals(self, status: Status | None) -> list[Proposal]:
        """Every proposal (of that status when given), oldest first."""

    def proposal(self, proposal_id: str) -> Proposal | None: ...

    def supersede_pending(self, target: str, newer: str, at: str) -> list[str]:
        """Mark every pending proposal on `target` other than `newer` superseded by it;
        returns their ids."""

    def decide_proposal(self, proposal_id: str, decision: Decision) -> None:
        """Write the decision on the proposal; an accept also links it to this write's
        change-log entry (appended when the transaction's work ends)."""

    def this_change_seq(self) -> int:
        """The seq the change-log entry of this write transaction will have."""
