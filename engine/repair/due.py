"""What repair looks at: each justification that review or a person's challenge defeated and
that is still defeated (its defeater IN, in its outlist), less what repair already answered
(a REPAIRED edge names its defeater: linked, softened, abandoned or researched), the
most-depended-on beliefs first.

A review defeater of kind `superseded` (review's applied suggestion) is not a defeat: the
justifications that replaced the original rest on it. Defences are not shown: they answer a
defeater, they are not one. A premise (only a gate justification) has nothing to repair.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from engine.repair.records import DefeatedRow, Finding, RepairTx

REVIEW, CHALLENGE = "review", "challenge"


@dataclass(frozen=True)
class Defeat:
    """One defeater of a justification: review's finding, or a person's challenge."""

    id: str
    kind: str  # REVIEW or CHALLENGE
    text: str
    by: str = ""  # who challenged
    finding: Finding | None = None  # review's, when it recorded one

    @property
    def missing(self) -> str:
        """What the reasoning lacks, as best known: review's missing property, else the
        challenge's (or the finding's) text."""
        if self.finding is not None and self.finding.missing_property:
            return self.finding.missing_property
        return self.text


@dataclass(frozen=True)
class Defeated:
    """A defeated justification, named as review names it: `<belief>#<position>`."""

    belief: str
    position: int
    defeats: tuple[Defeat, ...]
    dependents: int = 0

    @property
    def key(self) -> str:
        return f"{self.belief}#{self.position}"

    @property
    def defeater_ids(self) -> tuple[str, ...]:
        return tuple(d.id for d in self.defeats)


@dataclass(frozen=True)
class DueList:
    due: tuple[Defeated, ...]  # in the order repair takes them
    defeated: int  # defeated justifications found, repaired ones included
    answered: int  # of those, already answered by a repair


def _kind(row: DefeatedRow) -> str | None:
    if row.challenge:
        return CHALLENGE
    meta = row.metadata
    if meta.get("source_type") == "review" and meta.get("review_reason") != "superseded":
        return REVIEW
    return None


def group(rows: list[DefeatedRow], answered: set[str]) -> tuple[list[Defeated], int, int]:
    """Rows grouped by justification; (due, found, answered)."""
    by_key: dict[tuple[str, int], list[tuple[DefeatedRow, str]]] = {}
    for row in rows:
        kind = _kind(row)
        if kind is not None:
            by_key.setdefault((row.belief, row.position), []).append((row, kind))
    due: list[Defeated] = []
    for (belief, position), found in by_key.items():
        open_ones = [(r, k) for r, k in sorted(found, key=lambda x: x[0].defeater)
                     if r.defeater not in answered]
        if not open_ones:
            continue
        due.append(Defeated(belief, position, tuple(
            Defeat(r.defeater, k, " ".join(r.defeater_text.split()),
                   by=str(r.metadata.get("by", "")) if k == CHALLENGE else "")
            for r, k in open_ones), dependents=found[0][0].dependents))
    due.sort(key=lambda d: (-d.dependents, d.belief, d.position))
    return due, len(by_key), len(by_key) - len(due)


def with_findings(tx: RepairTx, items: list[Defeated]) -> list[Defeated]:
    """The items with review's findings filled in (one read)."""
    keys = [(d.belief, d.position) for d in items if any(x.kind == REVIEW for x in d.defeats)]
    findings: Mapping[tuple[str, int], Finding] = tx.review_findings(keys)
    out = []
    for d in items:
        f = findings.get((d.belief, d.position))
        out.append(Defeated(d.belief, d.position, tuple(
            Defeat(x.id, x.kind, x.text, x.by, f if x.kind == REVIEW else None)
            for x in d.defeats), d.dependents))
    return out


def read_due(tx: RepairTx) -> DueList:
    due, found, answered = group(tx.defeated_rows(), tx.repaired_defeaters())
    return DueList(tuple(due), found, answered)
