"""Applying a round: validated proposals become beliefs, with their provenance, in ONE write
transaction together with the propagation they cause (engine.tms.add_beliefs_in, the same
rules `add` follows, nogoods included).

ALL: one SL justification with every antecedent (and the unless ids as its outlist).
ANY: one SL justification per antecedent, each with the whole outlist.
GATE: as DERIVE, the unless ids being the outlist.
New beliefs carry metadata `source_type: derived` (and the run and round that proposed them).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from engine.derive.proposals import Mode, Proposal
from engine.derive.validate import Validation, ValidationRules, read_facts, validate_proposals
from engine.model import Belief, Change, Justification, Kind, Truth
from engine.store import DeriveRoundRecord, DeriveRunRecord, GraphTx


@dataclass
class RoundWrite:
    validation: Validation
    applied: list[tuple[str, Truth | None]] = field(default_factory=list)
    change: Change = field(default_factory=Change)


def justifications_for(p: Proposal) -> tuple[Justification, ...]:
    antecedents = tuple(dict.fromkeys(p.antecedents))
    unless = tuple(dict.fromkeys(p.unless))
    if p.mode is Mode.ANY:
        return tuple(Justification((a,), unless, Kind.SL, p.label) for a in antecedents)
    return (Justification(antecedents, unless, Kind.SL, p.label),)


def belief_for(p: Proposal, *, at: str, run_id: str, round_n: int) -> Belief:
    return Belief(
        id=p.id,
        text=" ".join(p.text.split()),
        justifications=justifications_for(p),
        metadata=MappingProxyType(
            {"source_type": "derived", "derive_run": run_id, "derive_round": round_n}),
        created_at=at,
        updated_at=at,
    )


def proposed_entries(proposals: Sequence[Proposal]) -> tuple[tuple[str, str, str, str], ...]:
    return tuple((p.id, p.kind.value, p.mode.value, p.label) for p in proposals)


def write_round(
    tx: GraphTx,
    proposals: Sequence[Proposal],
    rules: ValidationRules,
    run: DeriveRunRecord,
    record: DeriveRoundRecord,
    *,
    at: str,
) -> RoundWrite:
    """Inside a write transaction: validate, create the valid beliefs, propagate, and record
    the round. Raises (and so writes nothing) when any step fails."""
    from engine.tms import add_beliefs_in

    validation = validate_proposals(proposals, read_facts(tx, proposals), rules)
    beliefs = [belief_for(p, at=at, run_id=run.id, round_n=record.round) for p in validation.valid]
    tx.create_derive_run(run)
    change = add_beliefs_in(tx, beliefs) if beliefs else Change()
    tx.record_derive_round(dataclasses.replace(record, proposed=proposed_entries(validation.valid)))
    found = tx.get_beliefs([b.id for b in beliefs]) if beliefs else {}
    applied = [(b.id, found[b.id].truth if b.id in found else None) for b in beliefs]
    return RoundWrite(validation, applied, change)
