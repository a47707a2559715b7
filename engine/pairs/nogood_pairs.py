"""A contradiction the model found becomes a nogood over the pair, resolved at once by the
existing entrenchment rules (engine/tms/nogoods.py): the least entrenched assumption under the
two is retracted, so one of them goes OUT and what rests on it follows."""
from __future__ import annotations

import hashlib
from typing import Protocol

from engine.model import ID_RE, Change, Nogood
from engine.pairs.records import PairRecords
from engine.tms import nogoods as nogood_rules
from engine.tms.records import ResolutionTx, TmsTx


class ContradictionTx(ResolutionTx, PairRecords, Protocol):
    """What a found contradiction writes: its nogood, its FOUND mark, then its resolution."""


def nogood_id(a: str, b: str) -> str:
    a, b = sorted((a, b))
    ident = f"contradiction:{a}:{b}"
    if ID_RE.fullmatch(ident):
        return ident
    return "contradiction:" + hashlib.sha256(f"{a}\n{b}".encode()).hexdigest()[:24]


def has_nogood_over(tx: TmsTx, a: str, b: str) -> bool:
    return any(set(n.members) == {a, b} for n in tx.nogoods())


def record_contradiction(tx: ContradictionTx, a: str, b: str, *, stage: str, run_id: str,
                         round_n: int, at: str) -> tuple[str, Change]:
    """Create the nogood over a and b (which must not have one yet) and resolve it."""
    ident = nogood_id(a, b)
    nogood = Nogood(ident, tuple(sorted((a, b))), discovered=at)
    tx.create_nogood(nogood)
    tx.mark_nogood_found(ident, stage, run_id, round_n)
    return ident, nogood_rules.resolve(tx, [nogood], Change(), at=at)
