"""A belief as review (and repair, which mends what review defeated) shows it: its claim,
depth, and each justification with the full text and label of every id it names; the hash
that says whether a review is still current. The store's part that reads them is
ArgumentsTx (engine/stages/records.py).

The hash covers the argument the model judged: the claim, and per justification its kind,
label, and the id and text of each antecedent and outlist member. It leaves out the depth
and the IN/OUT labels, which move when unrelated support changes without the argument
changing. A review is current while the belief's hash equals the one stamped on it.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.stages.records import Argument, ArgumentJustification, ArgumentPart, ArgumentsTx


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


def modes(justifications: Sequence[ArgumentJustification]) -> list[str]:
    """ANY for a justification with one antecedent whose label and outlist it shares with
    another such justification (how an ANY derivation is stored); ALL otherwise."""
    def key(j: ArgumentJustification) -> tuple:
        return (j.label, tuple(o.id for o in j.outlist))

    groups: dict[tuple, int] = {}
    for j in justifications:
        if len(j.antecedents) == 1:
            groups[key(j)] = groups.get(key(j), 0) + 1
    return ["ANY" if len(j.antecedents) == 1 and groups[key(j)] > 1 else "ALL"
            for j in justifications]


def review_sha256(text: str, justifications: Iterable[ShownJustification]) -> str:
    canonical = [text, [[j.kind, j.label, [[a.id, a.text] for a in j.antecedents],
                         [[o.id, o.text] for o in j.outlist]] for j in justifications]]
    data = json.dumps(canonical, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _named(p: ArgumentPart) -> Named:
    return Named(p.id, _one_line(p.text), p.truth, by_review=p.defeater)


def under_review(a: Argument) -> UnderReview:
    shown = tuple(
        ShownJustification(
            position=k, mode=mode, kind=j.kind, label=j.label,
            antecedents=tuple(_named(x) for x in j.antecedents),
            outlist=tuple(_named(x) for x in j.outlist))
        for k, (j, mode) in enumerate(zip(a.justifications, modes(a.justifications)), start=1))
    text = _one_line(a.text)
    return UnderReview(a.id, text, a.depth, a.truth, shown, review_sha256(text, shown))


def read_under_review(tx: ArgumentsTx, ids: Iterable[str]) -> dict[str, UnderReview]:
    """The named beliefs that exist, as review shows them (one read per 5000 beliefs)."""
    return {i: under_review(a) for i, a in tx.review_arguments(ids).items()}
