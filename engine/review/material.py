"""A belief as review shows it: its claim, depth, and each justification with the full text
and label of every id it names; and the hash that says whether a review is still current.

The hash covers the argument the model judged: the claim, and per justification its kind,
label, and the id and text of each antecedent and outlist member. It leaves out the depth
and the IN/OUT labels, which move when unrelated support changes without the argument
changing. A review is current while the belief's hash equals the one stamped on it.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from engine.model import Belief, Justification, Truth
from engine.store import GraphTx

MISSING = "MISSING"  # a named id that is not a belief yet
BATCH = 2000


@dataclass(frozen=True)
class Named:
    """An id a justification names, as shown: its text and its label (IN, OUT, ...)."""

    id: str
    text: str
    truth: str
    by_review: bool = False  # a premise review created (a defeater)


@dataclass(frozen=True)
class ShownJustification:
    position: int  # 1-based, in the belief's order
    mode: str  # ALL, or ANY for one of several one-antecedent justifications with one label
    kind: str
    label: str
    antecedents: tuple[Named, ...]
    outlist: tuple[Named, ...]

    @property
    def antecedent_ids(self) -> tuple[str, ...]:
        return tuple(a.id for a in self.antecedents)


@dataclass(frozen=True)
class UnderReview:
    id: str
    text: str
    depth: int | None
    truth: str
    justifications: tuple[ShownJustification, ...]
    sha256: str

    def justification(self, position: int) -> ShownJustification | None:
        if 1 <= position <= len(self.justifications):
            return self.justifications[position - 1]
        return None


def modes(justifications: Sequence[Justification]) -> list[str]:
    """ANY for a justification with one antecedent whose label and outlist it shares with
    another such justification (how an ANY derivation is stored); ALL otherwise."""
    groups: dict[tuple, int] = {}
    for j in justifications:
        if len(j.antecedents) == 1:
            k = (j.label, j.outlist)
            groups[k] = groups.get(k, 0) + 1
    return ["ANY" if len(j.antecedents) == 1 and groups[(j.label, j.outlist)] > 1 else "ALL"
            for j in justifications]


def review_sha256(text: str, justifications: Iterable[ShownJustification]) -> str:
    canonical = [text, [[j.kind, j.label, [[a.id, a.text] for a in j.antecedents],
                         [[o.id, o.text] for o in j.outlist]] for j in justifications]]
    data = json.dumps(canonical, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


def _named(ref: str, beliefs: Mapping[str, Belief]) -> Named:
    b = beliefs.get(ref)
    if b is None:
        return Named(ref, "(not in the network yet)", MISSING)
    truth = (b.truth or Truth.OUT).value
    return Named(ref, " ".join(b.text.split()), truth,
                 by_review=b.metadata.get("source_type") == "review")


def under_review(b: Belief, named: Mapping[str, Belief]) -> UnderReview:
    shown = tuple(
        ShownJustification(
            position=k, mode=mode, kind=j.kind.value, label=j.label,
            antecedents=tuple(_named(a, named) for a in j.antecedents),
            outlist=tuple(_named(o, named) for o in j.outlist))
        for k, (j, mode) in enumerate(zip(b.justifications, modes(b.justifications)), start=1))
    text = " ".join(b.text.split())
    return UnderReview(b.id, text, b.depth, (b.truth or Truth.OUT).value, shown,
                       review_sha256(text, shown))


def read_under_review(tx: GraphTx, ids: Iterable[str]) -> dict[str, UnderReview]:
    """The named beliefs that exist, as review shows them (two reads per batch)."""
    ordered = sorted(set(ids))
    out: dict[str, UnderReview] = {}
    for start in range(0, len(ordered), BATCH):
        beliefs = tx.get_beliefs(ordered[start:start + BATCH])
        refs = {r for b in beliefs.values() for j in b.justifications for r in j.mentions()}
        named = tx.get_beliefs(refs) if refs else {}
        for bid, b in beliefs.items():
            out[bid] = under_review(b, named)
    return out
