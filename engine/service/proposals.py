"""Writes queued for a person: propose a verb (add, add-justification, retract, assert,
supersede, challenge) with its own options, list and show the proposals, accept (one
transaction, refused when what it depends on changed unless forced), reject, withdraw.
The proposer and the decider are the context's actor."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.errors import InvalidInput
from engine.model import Justification
from engine.proposals import lifecycle
from engine.proposals.actions import justification_args, pin_args
from engine.proposals.lifecycle import Accepted, Proposed
from engine.proposals.lifecycle import Shown as ProposalShown
from engine.proposals.records import Proposal
from engine.service.context import Context
from engine.service.keeping import Replacement
from engine.service.network import NewBelief


def _reason(reason: str) -> str:
    return reason or ""


def _justifications(given: Sequence[Justification] | None) -> list[dict[str, object]] | None:
    return None if given is None else [justification_args(j) for j in given]


def propose_add(ctx: Context, new: NewBelief, reason: str) -> Proposed:
    """A proposed add, as `add` would make it: a source read and its quote grounded now (the
    belief is pinned to the file as it was read), a namespace placed now (NAME:ID)."""
    from engine.agents.namespace import placed_in
    from engine.tms.access import parse_tags

    if new.quote is not None and not new.source:
        raise InvalidInput("--quote goes with --source PATH[:A-B]", field="quote")
    args: dict[str, object] = {"id": new.id, "text": new.text,
                            "justifications": _justifications(new.justifications),
                            "source": new.source, "source_url": new.source_url}
    if new.source:
        if new.namespace:
            raise InvalidInput("--namespace and --source do not go together", field="namespace")
        from engine.service import sources

        claim, _ = sources.pin(ctx, new.source, new.quote or "", new.root)
        args.update(source=claim.path, pin=pin_args(claim))
    if new.namespace:
        ident, placed = placed_in(new.namespace, new.id, new.justifications)
        args.update(id=ident, justifications=_justifications(placed), namespace=new.namespace)
    if new.access_tags:
        args["access_tags"] = list(parse_tags(new.access_tags))
    return lifecycle.propose(ctx.store, "add", args, _reason(reason))


def propose_add_justification(ctx: Context, belief_id: str,
                              given: Sequence[Justification], reason: str) -> Proposed:
    return lifecycle.propose(ctx.store, "add-justification",
                             {"id": belief_id, "justifications": _justifications(given)},
                             _reason(reason))


def propose_retract(ctx: Context, belief_id: str, reason: str) -> Proposed:
    return lifecycle.propose(ctx.store, "retract", {"id": belief_id, "reason": reason},
                             _reason(reason))


def propose_assert(ctx: Context, belief_id: str, reason: str) -> Proposed:
    return lifecycle.propose(ctx.store, "assert", {"id": belief_id}, _reason(reason))


def propose_supersede(ctx: Context, old: str, replacement: Replacement, reason: str
                      ) -> Proposed:
    r = replacement
    return lifecycle.propose(ctx.store, "supersede", {
        "old": old, "new": r.new or None, "text": r.text, "new_id": r.new_id or None,
        "justifications": _justifications(r.justifications), "rewire": r.rewire,
        "reason": reason}, _reason(reason))


def propose_challenge(ctx: Context, belief_id: str, reason: str,
                      justification: int | None = None, challenge_id: str | None = None
                      ) -> Proposed:
    return lifecycle.propose(ctx.store, "challenge", {
        "id": belief_id, "reason": reason, "justification": justification or None,
        **({"challenge_id": challenge_id} if challenge_id else {})}, _reason(reason))


@dataclass(frozen=True)
class Proposals:
    proposals: tuple[Proposal, ...]

    def as_dict(self) -> dict[str, object]:
        return {"proposals": [p.as_dict() for p in self.proposals]}


def list_proposals(ctx: Context, *, pending: bool = False) -> Proposals:
    """The proposals, oldest first (`pending`: only those waiting)."""
    return Proposals(tuple(lifecycle.list_proposals(ctx.store, pending)))


def show_proposal(ctx: Context, proposal_id: str) -> ProposalShown:
    """One proposal; while pending, a what-if computed now and what changed since."""
    return lifecycle.show_proposal(ctx.store, proposal_id)


def accept(ctx: Context, proposal_id: str, *, force: bool = False) -> Accepted:
    return lifecycle.accept(ctx.store, proposal_id, force)


@dataclass(frozen=True)
class Decided:
    proposal: Proposal

    def as_dict(self) -> dict[str, object]:
        return self.proposal.as_dict()


def reject(ctx: Context, proposal_id: str, reason: str) -> Decided:
    return Decided(lifecycle.reject(ctx.store, proposal_id, reason))


def withdraw(ctx: Context, proposal_id: str) -> Decided:
    """Only the proposer may withdraw a proposal."""
    return Decided(lifecycle.withdraw(ctx.store, proposal_id))
