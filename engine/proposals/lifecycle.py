"""A proposal's life: propose (pending), then accept, reject, withdraw, or superseded by a
newer pending proposal on the same target.

`propose` measures the action in a rolled-back transaction (its snapshot, then the verb's
own work: what would go IN and OUT; the verb's errors refuse the proposal), then stores it in
a write transaction that first checks the snapshot still holds, so the impact stored is the
impact of the state stored. The proposer is the write's actor (the entry point's: EEM_ACTOR
or the OS user on the CLI, the calling client on the MCP server), never a free string.

`accept` runs in ONE write transaction under the write lock: read the proposal (still
pending?), take the snapshot again and compare (refuse, naming what changed, unless
`force`), run the verb's work, record the decision and link it to the change-log entry the
store appends for this transaction. Two accepts of one proposal queue on the lock; the
second finds it accepted and writes nothing.
"""
from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from engine.change_records import ChangeEntry, ChangeLog
from engine.errors import EngineError, InvalidInput, NotFound, ProposalDrift, StoreError
from engine.model import Change, check_id
from engine.proposals.actions import ActionTx, apply_in, check_action, named_of, target_of
from engine.proposals.records import (
    Decision,
    Impact,
    Proposal,
    ProposalTx,
    Snapshot,
    Status,
    drift,
)
from engine.store import Store
from engine.tms import now
from engine.tms.records import TmsTx

MEASURE_TRIES = 3


class DecisionTx(ProposalTx, ChangeLog, Protocol):
    """What a reject or withdraw writes: the decision (ProposalTx) by the write's actor."""


class LifecycleTx(ActionTx, DecisionTx, Protocol):
    """What proposing, accepting and a reset go through: the action's parts (measured in a
    what-if, then applied) and the proposals."""


class _Moved(EngineError):
    """The snapshot changed between the what-if and the write: measure again."""


@dataclass(frozen=True)
class Proposed:
    proposal: Proposal
    superseded: tuple[str, ...]  # older pending proposals on the same target

    def as_dict(self) -> dict[str, object]:
        return {**self.proposal.as_dict(), "superseded": list(self.superseded)}


@dataclass(frozen=True)
class Accepted:
    proposal: Proposal  # as decided
    change: Change
    seq: int  # its change-log entry

    def as_dict(self) -> dict[str, object]:
        return {"proposal": self.proposal.id, "status": self.proposal.status.value,
                "accepted_by": self.proposal.decided_by, "forced": self.proposal.forced,
                "drift": list(self.proposal.drift), "change_seq": self.seq,
                **self.change.as_dict()}


@dataclass(frozen=True)
class Shown:
    """A proposal with, while it is pending, a what-if of now and what drifted since."""

    proposal: Proposal
    fresh: Impact | None = None
    drift: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {**self.proposal.as_dict(),
                "fresh_impact": self.fresh.as_dict() if self.fresh else None,
                "drift_now": list(self.drift)}


# --- measuring ---------------------------------------------------------------------------
def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def snapshot_in(tx: TmsTx, action: str, args: Mapping[str, object]) -> Snapshot:
    target = target_of(action, args)
    named = named_of(action, args)
    found = tx.get_beliefs([target]).get(target)
    existing = tx.existing_ids(named) if named else set()
    return Snapshot(target, found is not None,
                    truth=found.truth.value if found is not None and found.truth else "",
                    text_sha256=text_sha256(found.text) if found is not None else "",
                    named={i: i in existing for i in named})


def impact_of(change: Change) -> Impact:
    return Impact(tuple(change.went_in), tuple(change.went_out),
                  tuple(change.retracted_by_nogood))


def _measure(tx: ActionTx, action: str, args: Mapping[str, object]) -> tuple[Snapshot, Impact]:
    snap = snapshot_in(tx, action, args)  # before the verb's work changes what it reads
    return snap, impact_of(apply_in(tx, action, args))


def _measure_proposed(tx: ActionTx, action: str, args: Mapping[str, object]
                      ) -> tuple[Snapshot, Impact]:
    _refuse_what_changes_nothing(tx, action, args)
    return _measure(tx, action, args)


def _refuse_what_changes_nothing(tx: TmsTx, action: str, args: Mapping[str, object]) -> None:
    """A retraction of a belief already retracted would be accepted to no effect: refuse it
    now, saying so, rather than queue it for a person."""
    if action != "retract":
        return
    target = target_of(action, args)
    found = tx.get_beliefs([target]).get(target)
    if found is not None and found.retracted:
        since = f" since {found.retracted_at}" if found.retracted_at else ""
        why = f": {found.retract_reason}" if found.retract_reason else ""
        raise InvalidInput(f"'{target}' is already retracted{since}{why}; accepting this "
                           "proposal would change nothing", field="id", value=target)


def _measure_now(tx: ActionTx, p: Proposal) -> tuple[tuple[str, ...], Impact]:
    snap = snapshot_in(tx, p.action, p.args)
    try:
        return tuple(drift(p.snapshot, snap)), impact_of(apply_in(tx, p.action, p.args))
    except (InvalidInput, NotFound) as e:  # the verb refuses now: say so beside the stored one
        return tuple(drift(p.snapshot, snap)), Impact(error=str(e))


def _reason(reason: str, what: str) -> str:
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidInput(f"{what} needs --reason: why", field="reason")
    return reason.strip()


# --- the verbs ---------------------------------------------------------------------------
def propose(store: Store[LifecycleTx], action: str, args: Mapping[str, object],
            reason: str) -> Proposed:
    """Queue `action` (a verb with its arguments, engine/proposals/actions.py) for a person;
    the network is not changed. Older pending proposals on the same target are superseded."""
    check_action(action, args)
    why = _reason(reason, "a proposal")
    args = dict(args)
    target = target_of(action, args)
    for _ in range(MEASURE_TRIES):
        snap, impact = store.dry_run(lambda tx: _measure_proposed(tx, action, args))

        def work(tx: LifecycleTx) -> Proposed:
            if snapshot_in(tx, action, args) != snap:
                raise _Moved("moved")
            n = tx.next_proposal_number()
            at = now()
            p = Proposal(f"prop-{n}", n, action, args, target, tx.actor(), why, at,
                         Status.PENDING, snap, impact)
            tx.save_proposal(p)
            return Proposed(p, tuple(tx.supersede_pending(target, p.id, at)))

        try:
            return store.write(work, ChangeEntry("propose", {"action": action,
                                                            "target": target}, why))
        except _Moved:
            continue
    raise StoreError(f"'{target}' kept changing while the proposal was measured; try again")


def list_proposals(store: Store[ProposalTx], pending: bool = False) -> list[Proposal]:
    status = Status.PENDING if pending else None
    return store.read(lambda tx: tx.proposals(status))


def _get(tx: ProposalTx, proposal_id: str) -> Proposal:
    found = tx.proposal(proposal_id)
    if found is None:
        raise NotFound("proposal", proposal_id)
    return found


def _pending(p: Proposal, verb: str) -> Proposal:
    if p.status != Status.PENDING:
        by = f" by '{p.superseded_by}'" if p.status == Status.SUPERSEDED else (
            f" by {p.decided_by}" if p.decided_by else "")
        raise InvalidInput(f"proposal '{p.id}' is {p.status.value}{by}, not pending: "
                           f"nothing to {verb}", field="id", value=p.id)
    return p


def show_proposal(store: Store[LifecycleTx], proposal_id: str) -> Shown:
    """The proposal; while pending, also a what-if of now and what drifted since."""
    check_id(proposal_id, what="proposal id")
    p = store.read(lambda tx: _get(tx, proposal_id))
    if p.status != Status.PENDING:
        return Shown(p)
    found, fresh = store.dry_run(lambda tx: _measure_now(tx, p))
    return Shown(p, fresh, found)


def accept(store: Store[LifecycleTx], proposal_id: str, force: bool = False) -> Accepted:
    """Apply a pending proposal, in one write transaction with its drift check (refused,
    naming what changed, unless `force`, which the proposal records)."""
    check_id(proposal_id, what="proposal id")
    said = _pending(store.read(lambda tx: _get(tx, proposal_id)), "accept")

    def work(tx: LifecycleTx) -> Accepted:
        p = _pending(_get(tx, proposal_id), "accept")  # again, under the lock
        found = drift(p.snapshot, snapshot_in(tx, p.action, p.args))
        if found and not force:
            raise ProposalDrift(p.id, found)
        change = apply_in(tx, p.action, p.args)
        decision = Decision(Status.ACCEPTED, tx.actor(), now(), forced=bool(found), drift=found)
        tx.decide_proposal(p.id, decision)
        seq = tx.this_change_seq()
        return Accepted(dataclasses.replace(_decided(p, decision), change_seq=seq), change, seq)

    args = {**said.args, "proposal": said.id, "proposer": said.proposer,
            **({"force": True} if force else {})}
    return store.write(work, ChangeEntry(said.action, args, said.reason))


def reject(store: Store[DecisionTx], proposal_id: str, reason: str) -> Proposal:
    check_id(proposal_id, what="proposal id")
    why = _reason(reason, "reject")

    def work(tx: DecisionTx) -> Proposal:
        p = _pending(_get(tx, proposal_id), "reject")
        decision = Decision(Status.REJECTED, tx.actor(), now(), reason=why)
        tx.decide_proposal(p.id, decision)
        return _decided(p, decision)

    return store.write(work, ChangeEntry("proposal-reject", {"proposal": proposal_id}, why))


def withdraw(store: Store[DecisionTx], proposal_id: str) -> Proposal:
    """Withdraw a pending proposal: only its proposer may (anyone else rejects it)."""
    check_id(proposal_id, what="proposal id")

    def work(tx: DecisionTx) -> Proposal:
        p = _pending(_get(tx, proposal_id), "withdraw")
        if tx.actor() != p.proposer:
            raise InvalidInput(f"only its proposer ({p.proposer}) may withdraw '{p.id}'; you "
                               f"are {tx.actor()}: reject it instead", field="id", value=p.id)
        decision = Decision(Status.WITHDRAWN, tx.actor(), now())
        tx.decide_proposal(p.id, decision)
        return _decided(p, decision)

    return store.write(work, ChangeEntry("proposal-withdraw", {"proposal": proposal_id}))


def _decided(p: Proposal, d: Decision) -> Proposal:
    return dataclasses.replace(p, status=d.status, decided_by=d.by, decided_at=d.at,
                               decision_reason=d.reason, forced=d.forced, drift=tuple(d.drift))


RESET_REASON = "the graph was reset: what it named is gone"


def reset(store: Store[LifecycleTx]) -> tuple[str, ...]:
    """Empty the graph, as `tms.reset` does, and reject every pending proposal (the beliefs
    it names are gone), in one write transaction; returns the ids rejected. Decided
    proposals stay, as the change log does: they are history."""

    def work(tx: LifecycleTx) -> tuple[str, ...]:
        tx.reset()
        pending = tx.proposals(Status.PENDING)
        for p in pending:
            tx.decide_proposal(p.id, Decision(Status.REJECTED, tx.actor(), now(),
                                              reason=RESET_REASON))
        return tuple(p.id for p in pending)

    return store.write(work, ChangeEntry("reset", empties=True))

