"""What the stages share in the store, besides provenance (engine/stages/provenance.py): the
beliefs as review and repair show them (ArgumentsTx: adapters/neo4j/review_tx.py), and the
beliefs the negatives stage found to state a problem, as derive and `list --negative` read
them (ProblemsTx: adapters/neo4j/negative_tx.py), and the premises repair's research found
missing, as repair and compact read them (GapsTx: adapters/neo4j/repair_tx.py). All are parts
engine/graph.py's GraphTx composes."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class ArgumentPart:
    """A node a justification names, as review shows it: id, text, truth label (IN, OUT,
    UNDETERMINED, or MISSING for an id not added yet) and whether review put it there."""

    id: str
    text: str
    truth: str
    defeater: bool = False


@dataclass(frozen=True)
class ArgumentJustification:
    kind: str
    label: str
    antecedents: tuple[ArgumentPart, ...] = ()
    outlist: tuple[ArgumentPart, ...] = ()


@dataclass(frozen=True)
class Argument:
    """A belief with what review judges of it: its claim and justifications in order, each
    with the texts and labels of what it names (nothing else of the network)."""

    id: str
    text: str
    depth: int | None
    truth: str
    justifications: tuple[ArgumentJustification, ...] = ()


class ArgumentsTx(Protocol):
    """The beliefs as review and repair show them."""

    def review_arguments(self, ids: Iterable[str]) -> dict[str, Argument]:
        """The named beliefs that exist, as review shows and hashes them."""


@dataclass(frozen=True)
class NegativeCandidate:
    """An IN belief with its last verdict ("" sha256: never judged)."""

    id: str
    text: str
    kind: str = ""  # the kind of problem the last verdict found; "" for none
    sha256: str = ""  # of the text that verdict judged
    at: str = ""  # when
    run: str = ""  # by which run


class ProblemsTx(Protocol):
    def classified_negatives(self) -> list[NegativeCandidate]:
        """The IN beliefs whose last verdict found a problem, by id (their text may have
        changed since: compare the sha256)."""


@dataclass(frozen=True)
class Gap:
    """A premise the network lacks, as research recorded it."""

    text: str
    for_belief: str
    justification: int
    at: str = ""
    run_id: str = ""
    truth: str = ""  # the label of the belief it is for, when read back

    def as_dict(self) -> dict[str, object]:
        return {"text": self.text, "for": self.for_belief, "justification": self.justification,
                "at": self.at, "run_id": self.run_id, "truth": self.truth}


class GapsTx(Protocol):
    def gaps(self, limit: int) -> tuple[list[Gap], int]:
        """The newest `limit` gaps, and how many there are."""
