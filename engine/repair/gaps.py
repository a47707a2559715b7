"""The premises repair's research said the network lacks, as `repair gaps` (and `forge
gaps`) list them."""
from __future__ import annotations

from dataclasses import dataclass

from engine.stages.records import Gap, GapsTx
from engine.store import Store


@dataclass(frozen=True)
class Gaps:
    gaps: list[Gap]  # the newest first
    total: int  # recorded in all

    def as_dict(self) -> dict[str, object]:
        return {"total": self.total, "gaps": [g.as_dict() for g in self.gaps]}


def recorded_gaps(store: Store[GapsTx], limit: int) -> Gaps:
    """The newest `limit` gaps, each with the label of the belief it is for."""
    gaps, total = store.read(lambda tx: tx.gaps(limit))
    return Gaps(gaps, total)
