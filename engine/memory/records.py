"""The memory room's store verbs and records: the editing verbs (gates, supersede links, moved
edges, metadata) and what a supersede keeps for its undo. adapters/neo4j/edit_tx.py
implements `Editing` in Cypher; the change log's protocol is engine/change_records.py's."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from engine.model import RewiredEdge, SupersedeRecord, gated_of
from engine.tms.records import SupersedeRecords

__all__ = ["RewiredEdge", "SupersedeRecord", "gated_of", "Editing", "HistoryRecords",
           "EDITABLE_FIELDS", "MARKER_LABELS"]


EDITABLE_FIELDS = frozenset({"text", "source", "source_url", "source_hash", "date"})
MARKER_LABELS = frozenset({"Defeater", "Challenge", "Defence"})  # what mark_labels may add


class Editing(SupersedeRecords, Protocol):
    """The editing verbs: gates (supersede, challenge, defend), supersede records (the
    kernel's SupersedeRecords, which an import writes too), moved edges, metadata,
    deletion. None of them computes labels: relabel the beliefs afterwards."""

    def gate_belief(self, belief_id: str, gate_id: str, positions: Sequence[int] | None) -> int:
        """Append `gate_id` (which must exist) to the outlist of the belief's justifications
        at `positions` (1-based; all when None; where not there already). A premise gets its
        one gate justification (an outlist only, flagged `gate`) or has it extended.
        Returns how many justifications were gated."""

    def ungate_belief(self, belief_id: str, gate_id: str) -> int:
        """Remove from the belief's outlists what gate_belief appended of `gate_id` (an
        outlist that named it before keeps it; with nothing known of what was appended, as
        after an import, every mention), and a gate justification it leaves empty; returns
        how many edges went."""

    def move_mentions_back(self, edges: Sequence[RewiredEdge], moved_to: str, back_to: str
                           ) -> int:
        """Move recorded edges from `moved_to` back to `back_to`; how many were found."""

    def rewire_antecedents(self, old: str, new: str, owners: Sequence[str]
                           ) -> tuple[RewiredEdge, ...]:
        """In the justifications of the beliefs `owners`, name `new` (which must exist)
        wherever an antecedent names `old` (same position; outlists stay); the edges moved,
        sorted."""

    def set_metadata(self, belief_id: str, metadata: Mapping[str, Any], at: str) -> None: ...

    def set_fields(self, belief_id: str, fields: Mapping[str, str], at: str) -> None:
        """Set some of a belief's own fields in place (EDITABLE_FIELDS: text, source,
        source_url, source_hash, date) and stamp updated_at; an unknown field raises
        InvalidInput."""

    def copy_source_link(self, old: str, new: str) -> None:
        """Give `new` the FROM edge (with its lines) `old` has, if any."""

    def delete_belief(self, belief_id: str) -> None:
        """Delete a belief nothing names, with its justifications."""

    def mark_labels(self, belief_id: str, labels: Sequence[str]) -> None:
        """Add marker labels (closed set: Defeater, Challenge, Defence) to a belief."""


# --- history: before-images and releases (engine/memory/history.py, images.py) ---------
Image = Mapping[str, Any]
Images = Mapping[str, Mapping[str, Image | None]]  # kind -> key -> image (None: absent)


@dataclass(frozen=True)
class LoggedWrite:
    """One change-log entry as history reads it: its images (None: it kept none)."""

    seq: int
    at: str
    op: str
    actor: str
    images: Images | None
    went_in: tuple[str, ...] = ()
    went_out: tuple[str, ...] = ()


@dataclass(frozen=True)
class Release:
    name: str
    seq: int
    at: str  # when the release was made
    note: str = ""
    actor: str = ""

    def as_dict(self) -> dict[str, object]:
        return {"name": self.name, "seq": self.seq, "at": self.at, "note": self.note,
                "actor": self.actor}


class HistoryRecords(Protocol):
    """What history reads and writes of the change log's before-images and releases
    (engine/memory/history.py; adapters/neo4j/history_tx.py)."""

    def last_seq(self) -> int: ...

    def history_start(self) -> int:
        """The earliest point the log can be read back to."""
        ...

    def seq_at_or_before(self, at: str) -> int:
        """The seq of the last entry at or before `at` (0 when none is)."""
        ...

    def writes_after(self, seq: int) -> list[LoggedWrite]:
        """Every entry after `seq`, oldest first, with its images."""
        ...

    def current_images(self, kind: str, keys: Sequence[str]) -> dict[str, Image | None]: ...

    def restore_images(self, images: Images) -> list[str]:
        """Set each unit's definition to its image (None: remove it); returns the ids of the
        beliefs that exist afterwards and changed (for propagation)."""
        ...

    def release(self, name: str) -> Release | None: ...

    def releases(self) -> list[Release]: ...

    def create_release(self, release: Release) -> None: ...

    def prune_reach(self, before: str) -> tuple[int | None, tuple[str, int] | None]:
        """The highest seq `log --prune --before` would cut (None: none), and the release
        naming the lowest point (None: no release)."""
        ...
