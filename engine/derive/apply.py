"""Applying a round: validated proposals become beliefs, with their provenance, in ONE write
transaction together with the propagation they cause (engine.tms.add_beliefs_in, the same
rules `add` follows, nogoods included).

ALL: one SL justification with every antecedent (and the unless ids as its outlist).
ANY: one SL justification per antecedent, each with the whole outlist.
GATE: as DERIVE, the unless ids being the outlist.
New beliefs carry metadata `source_type: derived` (and the run and round that proposed them).
"""
from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType
from typing import Protocol

from engine.derive.proposals import Mode, Proposal
from engine.derive.validate import Validation
from engine.model import Belief, Change, Justification, Kind
from engine.stages.provenance import ProvenanceTx, RoundRecord, RunRecord
from engine.stages.stage import Applied, AppliedEntry
from engine.tms.kernel import add_beliefs_in, now
from engine.tms.records import ResolutionTx


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


def proposed_entries(proposals: Sequence[Proposal]) -> list[dict[str, str]]:
    return [{"id": p.id, "kind": p.kind.value, "mode": p.mode.value, "label": p.label}
            for p in proposals]


class DeriveApplyTx(ResolutionTx, ProvenanceTx, Protocol):
    """What a derive round writes: the beliefs with their propagation (ResolutionTx) and
    the PROPOSED edges from its round (ProvenanceTx)."""


def apply_proposals(tx: DeriveApplyTx, validation: Validation, run: RunRecord, record: RoundRecord
                    ) -> Applied:
    """Inside the round's write transaction (whose Run and Round nodes exist): create the
    valid beliefs, propagate, and link the round to them. Raises (and so writes nothing)
    when any step fails."""

    at = record.at or now()
    beliefs = [belief_for(p, at=at, run_id=run.id, round_n=record.round)
               for p in validation.valid]
    change = add_beliefs_in(tx, beliefs) if beliefs else Change()
    if beliefs:
        tx.link_proposed(run.id, record.round, proposed_entries(validation.valid))
    found = tx.get_beliefs([b.id for b in beliefs]) if beliefs else {}
    truths = {i: b.truth for i, b in found.items()}
    entries = [AppliedEntry(b.id, truth_value=t.value if (t := truths.get(b.id)) else None)
               for b in beliefs]
    return Applied(validation, entries, change)
