"""What holds conclusions OUT: closed gates, and the retracted premises most beliefs rest on.

A gate is a justification's outlist. A conclusion is blocked when it is OUT (not retracted,
not undetermined) and has a justification whose antecedents are all IN and whose outlist
holds IN beliefs (its closers) and nothing undetermined: take the closers OUT and that
justification holds again. Conclusions are grouped by the closers of the justification,
biggest group first ("fix bug-412 and these 7 conclusions come back"); a conclusion with
several such justifications is in each of their groups.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine import defaults
from engine.errors import InvalidInput
from engine.reading.records import GatedConclusion, RegistryTx, RetractedPremise
from engine.store import Store

DEFAULT_LIMIT = defaults.BLOCKERS_LIMIT


@dataclass(frozen=True)
class BlockerGroup:
    closers: tuple[str, ...]  # the IN outlist members that keep the gate closed
    conclusions: tuple[GatedConclusion, ...]  # by id


@dataclass(frozen=True)
class Blockers:
    groups: tuple[BlockerGroup, ...]  # most conclusions first, then by closers
    retracted: tuple[RetractedPremise, ...]  # most beliefs resting on them first, then by id

    def as_dict(self) -> dict:
        return {
            "blockers": [{"closers": list(g.closers), "conclusions": len(g.conclusions),
                          "comes_back": [{"id": c.id, "text": c.text, "justification": c.seq}
                                         for c in g.conclusions]}
                         for g in self.groups],
            "retracted_premises": [{"id": r.id, "text": r.text, "reason": r.reason,
                                    "retracted_at": r.retracted_at, "resting": r.resting}
                                   for r in self.retracted],
        }


def group_gated(gated: list[GatedConclusion]) -> tuple[BlockerGroup, ...]:
    by_closers: dict[tuple[str, ...], list[GatedConclusion]] = {}
    for g in gated:
        by_closers.setdefault(g.closers, []).append(g)
    groups = [BlockerGroup(closers, tuple(sorted(members, key=lambda c: (c.id, c.seq))))
              for closers, members in by_closers.items()]
    return tuple(sorted(groups, key=lambda g: (-len(g.conclusions), g.closers)))


def find_blockers(store: Store[RegistryTx], limit: int | None = DEFAULT_LIMIT) -> Blockers:
    """The blocker groups (at most `limit`; None: all) and the `limit` retracted premises
    with the most beliefs resting on them, read in one transaction."""
    if limit is not None and limit < 1:
        raise InvalidInput(f"limit takes a positive number, not {limit}", field="limit",
                           value=limit)

    def read(tx) -> Blockers:
        groups = group_gated(tx.closed_gates())
        retracted = tx.retracted_premises(limit)
        return Blockers(groups if limit is None else groups[:limit], tuple(retracted))

    return store.read(read)
