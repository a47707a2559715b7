"""The domain's records: beliefs, justifications, nogoods, labels and changes; a supersession
and a source file as a whole network carries them.

Plain frozen dataclasses, no I/O. Every adapter converts to and from these.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Mapping

from engine.errors import InvalidInput

ID_RE = re.compile(r"[a-z0-9][a-z0-9._:-]{0,199}")
_EMPTY: Mapping[str, Any] = MappingProxyType({})  # shared: beliefs without metadata are many


class Truth(StrEnum):
    """A belief's label. UNDETERMINED beliefs are stored as :Out:Undetermined and export as OUT."""

    IN = "IN"
    OUT = "OUT"
    UNDETERMINED = "UNDETERMINED"


class Kind(StrEnum):
    """Justification kinds. CP is kept as written and evaluated like SL (as ftl-reasons does)."""

    SL = "SL"
    CP = "CP"


def check_id(value: object, *, what: str = "belief id") -> str:
    """Return `value` if it is a valid id, else raise InvalidInput naming it."""
    if not isinstance(value, str) or not ID_RE.fullmatch(value):
        raise InvalidInput(
            f"invalid {what} {value!r}: ids are 1-200 characters of [a-z0-9._:-], "
            "starting with a letter or digit",
            field=what,
            value=value,
        )
    return value


def check_text(value: object, *, ident: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"belief '{ident}' has an empty text", field="text", value=value)
    return value


@dataclass(frozen=True)
class Justification:
    """One SL (or CP) justification: holds when every antecedent is IN and every outlist
    member is OUT."""

    antecedents: tuple[str, ...]
    outlist: tuple[str, ...] = ()
    kind: Kind = Kind.SL
    label: str = ""
    # A gate: the outlist-only justification that lets supersede and challenge gate a
    # premise without making it derived (see Belief.is_premise).
    gate: bool = False

    def mentions(self) -> tuple[str, ...]:
        return self.antecedents + self.outlist


@dataclass(frozen=True)
class Belief:
    """A belief as stored. `retracted` and `asserted` are the user's pins; `truth` and
    `depth` are computed (None where not yet known)."""

    id: str
    text: str
    justifications: tuple[Justification, ...] = ()
    source: str = ""
    source_url: str = ""
    source_hash: str = ""
    date: str = ""
    metadata: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    created_at: str = ""
    updated_at: str = ""
    retracted: bool = False
    asserted: bool = False
    retracted_at: str = ""
    retract_reason: str = ""
    # Fields of the network.json format this engine does not interpret (reviewed_at, ...),
    # kept so that import -> export gives them back.
    extra: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)
    truth: Truth | None = None
    depth: int | None = None
    # computed, as truth: its own access tags and those of its support (engine/tms/access.py)
    effective_tags: tuple[str, ...] = ()

    @property
    def is_premise(self) -> bool:
        """A premise to the user: no justification, or only the gate that supersede and
        challenge give a premise (it stays a premise at depth 0, and IN while no gate is IN)."""
        return all(j.gate for j in self.justifications)


@dataclass(frozen=True)
class Nogood:
    """A set of beliefs that must not all be IN together."""

    id: str
    members: tuple[str, ...]
    discovered: str = ""
    resolution: str = ""


@dataclass(frozen=True)
class Label:
    truth: Truth
    depth: int | None


@dataclass
class Change:
    """What an operation did to labels. `went_out` includes beliefs that became
    Undetermined (they are OUT for every purpose that needs a yes or no)."""

    went_in: list[str] = field(default_factory=list)
    went_out: list[str] = field(default_factory=list)
    retracted_by_nogood: list[str] = field(default_factory=list)

    def merge(self, other: "Change") -> "Change":
        """Combine two successive changes into their net effect."""
        went_in = set(self.went_in)
        went_out = set(self.went_out)
        for b in other.went_in:
            if b in went_out:
                went_out.discard(b)
            else:
                went_in.add(b)
        for b in other.went_out:
            if b in went_in:
                went_in.discard(b)
            else:
                went_out.add(b)
        return Change(
            sorted(went_in),
            sorted(went_out),
            self.retracted_by_nogood + [b for b in other.retracted_by_nogood
                                        if b not in self.retracted_by_nogood],
        )

    def as_dict(self) -> dict[str, list[str]]:
        out = {"went_in": sorted(self.went_in), "went_out": sorted(self.went_out)}
        if self.retracted_by_nogood:
            out["retracted_by_nogood"] = list(self.retracted_by_nogood)
        return out


@dataclass(frozen=True)
class Status:
    beliefs: int
    in_: int
    out: int
    undetermined: int
    premises: int
    derived: int
    nogoods: int
    max_depth: int
    undetermined_ids: tuple[str, ...] = ()
    challenged: int = 0  # beliefs an open (IN) challenge gates

    def as_dict(self) -> dict[str, int]:
        return {
            "beliefs": self.beliefs,
            "in": self.in_,
            "out": self.out,
            "undetermined": self.undetermined,
            "premises": self.premises,
            "derived": self.derived,
            "nogoods": self.nogoods,
            "max_depth": self.max_depth,
            "challenged": self.challenged,
        }


def text_sha256(text: str) -> str:
    """The sha256 of a text's UTF-8 bytes: what says a text is the one judged or embedded."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, order=True)
class RewiredEdge:
    """One antecedent (REQUIRES) or outlist (UNLESS) edge a merge moved from the merged belief
    to the kept one: justification number `seq` of belief `belief`, at position `pos`."""

    belief: str
    seq: int
    kind: str  # REQUIRES | UNLESS
    pos: int


@dataclass(frozen=True)
class SupersedeRecord:
    """A supersede, kept on its (OLD)-[:SUPERSEDED_BY]->(NEW) edge so undo restores it
    exactly: whether NEW was created by the reword, the dependents' edges moved to NEW, and
    how many of OLD's justifications the gate was appended to (0: every one named NEW in its
    outlist already, so undo takes nothing away; None: not known, a record from a file that
    does not say, where undo takes every mention)."""

    old: str
    new: str
    created_new: bool
    rewired: tuple[RewiredEdge, ...]
    reason: str
    at: str
    gated: int | None = None
    chain: tuple[str, ...] = ()  # the older versions OLD superseded, gated by NEW as well
    # (supersede --transitive): undo takes those gates away


def gated_of(value: object) -> int | None:
    """A SupersedeRecord's `gated` as stored or written in a file: a count, or None."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


@dataclass(frozen=True)
class SourceRecord:
    """A source file forge has read: (:Source {path, sha256, size, forged_at, chunks})."""

    path: str  # relative to the root forge was given
    sha256: str  # of the file's bytes when it was last forged
    size: int
    forged_at: str
    chunks: tuple[str, ...] = ()  # sha256 of each chunk of that text already forged
