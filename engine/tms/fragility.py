"""How fragile a conjunctive justification is: what `add` warns of, and what `retract` says
would bring back the derived beliefs it took OUT.

An SL justification holds only while every antecedent is IN, so one over many antecedents
goes OUT with any of them. `add` says how many a new belief rests on when one justification
needs three or more (if any one of them is enough, `--any` gives one justification each).
After a retraction, each derived belief that went OUT is shown with, per justification, the
antecedents still IN and those that are not: bringing back the latter restores it (the first
RESTORE_LIMIT beliefs of a large cascade, by id; how many more is said).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.model import Justification, Kind
from engine.tms.records import TmsTx

FRAGILE_AT = 3  # antecedents of one SL justification from which add warns


@dataclass(frozen=True)
class Fragile:
    """A justification `add` warns of: its 1-based position and its antecedents."""

    position: int
    antecedents: tuple[str, ...]

    def as_dict(self) -> dict[str, object]:
        return {"justification": self.position, "rests_on": len(self.antecedents),
                "antecedents": list(self.antecedents)}

    def line(self, belief_id: str) -> str:
        return (f"note: {belief_id} rests on all {len(self.antecedents)} of "
                f"{', '.join(self.antecedents)}: retracting any one takes it OUT "
                "(if each is enough alone, add it with --any)")


def fragile(justifications: Sequence[Justification]) -> list[Fragile]:
    """The SL justifications (gates aside) that need FRAGILE_AT or more antecedents."""
    return [Fragile(k, j.antecedents) for k, j in enumerate(justifications, start=1)
            if j.kind is Kind.SL and not j.gate and len(j.antecedents) >= FRAGILE_AT]


@dataclass(frozen=True)
class Restorer:
    """One justification of a belief that went OUT: which antecedents are still IN, which
    are not (bring them back and it holds again), and the outlist members now IN."""

    position: int
    still_in: tuple[str, ...]
    not_in: tuple[str, ...]
    unless_in: tuple[str, ...]

    def as_dict(self) -> dict[str, object]:
        return {"justification": self.position, "still_in": list(self.still_in),
                "not_in": list(self.not_in), "unless_in": list(self.unless_in)}


@dataclass(frozen=True)
class Restoration:
    id: str
    justifications: tuple[Restorer, ...]

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, "justifications": [r.as_dict() for r in self.justifications]}

    def lines(self) -> list[str]:
        out = []
        for r in self.justifications:
            parts = [f"still IN {', '.join(r.still_in)}" if r.still_in else "",
                     f"needs {', '.join(r.not_in)}" if r.not_in else "",
                     f"unless {', '.join(r.unless_in)} (IN)" if r.unless_in else ""]
            out.append(f"  {self.id} (justification {r.position}): "
                       + "; ".join(p for p in parts if p))
        return out


RESTORE_LIMIT = 500  # beliefs that went OUT examined by retract's report (a hub's cascade
# can be large; reading every justification of it would double the retract's cost)


@dataclass(frozen=True)
class Restorations:
    found: tuple[Restoration, ...]
    unexamined: int = 0  # beliefs that went OUT beyond RESTORE_LIMIT, not examined


def restorations_in(tx: TmsTx, went_out: Iterable[str], retracted: str,
                    limit: int = RESTORE_LIMIT) -> Restorations:
    """For each derived belief of `went_out` (not `retracted`, not pinned; the first `limit`
    by id), what each of its justifications lacks now, read in the transaction that took
    them OUT."""
    every = sorted(set(went_out) - {retracted})
    ids = every[:limit]
    standing = tx.justifications_now(ids)
    return Restorations(tuple(Restoration(i, tuple(
        Restorer(k, tuple(a for a, is_in in j.antecedents if is_in),
                 tuple(a for a, is_in in j.antecedents if not is_in),
                 tuple(o for o, is_in in j.outlist if is_in))
        for k, j in enumerate(js, start=1) if not j.gate))
        for i, js in sorted(standing.items()) if not all(j.gate for j in js)),
        len(every) - len(ids))
