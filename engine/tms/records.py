"""The kernel's store verbs and records: beliefs, justifications, pins, labels and nogoods
(TmsTx), the transaction the kernel's verbs write in (ResolutionTx: TmsTx and the change
log) and the store as they use it (TmsStore). adapters/neo4j/tms_tx.py implements TmsTx in
Cypher; engine/store.py composes it with every other room's part.

A leaf: it imports the model (supersede's and the source files' records among it: a whole
Network carries them), the records of the change log, and the flat arrays verify reads
(engine/tms/stored_labels.py, the kernel's own), never engine/store.py, so the kernel stands on
nothing above it.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from engine.change_records import ChangeEntry, ChangeLog
from engine.model import (Belief, Change, Justification, Label, Nogood, SourceRecord, Status,
                          SupersedeRecord, Truth)
from engine.tms.stored_labels import StoredLabels

T = TypeVar("T")

# The retraction reason of a belief a network file stored OUT, which an import keeps
# retracted (engine/interchange.py) and defeat does not count as a user's retraction.
KEPT_REASON = "stored OUT in the imported file"


@dataclass
class Network:
    """A whole network, as read from a file or from the store."""

    beliefs: dict[str, Belief]
    nogoods: list[Nogood] = field(default_factory=list)
    repos: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    # supersede's (OLD)-[:SUPERSEDED_BY]->(NEW) links, by old id; the (:Source) files that
    # pinned beliefs have FROM edges to (each belief's lines are in its metadata), by path
    supersessions: list[SupersedeRecord] = field(default_factory=list)
    sources: list[SourceRecord] = field(default_factory=list)


@dataclass(frozen=True)
class Pinned:
    """A belief just pinned by set_pins, as it was before the pin."""

    was_in: bool
    premise: bool


@dataclass(frozen=True, slots=True)
class JustificationNow:
    """One justification of a belief as it stands now: whether it is a gate, and what it
    names, each with whether that is IN now (a name no belief has yet is not)."""

    gate: bool
    antecedents: tuple[tuple[str, bool], ...]
    outlist: tuple[tuple[str, bool], ...]


@dataclass(frozen=True)
class BeliefFilter:
    """Which beliefs `list_beliefs` returns. All None: every belief."""

    truth: Truth | None = None  # IN, OUT (Undetermined included) or UNDETERMINED
    premises: bool | None = None  # True: premises only; False: derived only
    challenged: bool = False  # only beliefs a challenge gates
    superseded: bool = False  # only beliefs a SUPERSEDED_BY link leaves
    min_depth: int | None = None
    max_depth: int | None = None
    has_dependents: bool = False
    sort: str = "id"  # id | depth | impact (direct dependents, most first) | updated (newest)
    label: str | None = None  # only beliefs with a justification whose label contains this
    # (any case)


class TmsTx(Protocol):
    """The TMS core: beliefs, justifications, pins, labels and nogoods (tms.py, import,
    verify, explain)."""

    def get_beliefs(self, ids: Iterable[str]) -> dict[str, Belief]:
        """The named beliefs that exist, with justifications, pins, truth and depth."""

    def existing_ids(self, ids: Iterable[str]) -> set[str]:
        """The subset of `ids` that name beliefs."""

    def justifications_now(self, ids: Iterable[str]) -> dict[str, tuple[JustificationNow, ...]]:
        """For each of `ids` naming a belief that has justifications and is not retracted,
        its justifications in written order (gates too) as they stand now: a lean read,
        for retract's restoration hints over a cascade of any size."""

    def status(self) -> Status: ...

    def list_beliefs(self, which: BeliefFilter) -> list[Belief]:
        """Beliefs (without justifications) in id order."""

    def out_belief_ids(self) -> list[str]:
        """The ids of every OUT belief (Undetermined included), in id order."""

    def upstream(self, ids: Iterable[str]) -> dict[str, Belief]:
        """`ids` and every belief reachable from them through antecedents and outlists,
        with justifications: the material for explain, trace and nogood resolution."""

    def direct_dependents(self, belief_id: str) -> set[str]:
        """Beliefs with a justification that names `belief_id` (a belief, or an id not added
        yet)."""

    def shown_belief(self, belief_id: str) -> tuple[Belief, set[str]] | None:
        """The belief (as get_beliefs gives it) and its direct dependents, read together
        (show); None when no belief has that id."""

    def forward_reference(self, ref: str) -> tuple[list[str], list[str]] | None:
        """For an id named but not added yet: the beliefs whose justifications name it and
        the nogoods that list it, each in id order; None when nothing names such an id."""

    def dependent_counts(self, ids: Iterable[str]) -> dict[str, int]:
        """For each id, how many beliefs have a justification naming it."""

    def read_network(self) -> Network:
        """The whole network with stored labels (for verify and export)."""

    def network_rest(self) -> Network:
        """Everything of the network but its beliefs: nogoods, meta, repos, supersessions,
        sources (a streamed export writes the beliefs from belief_pages)."""

    def belief_count(self) -> int: ...

    def belief_pages(self) -> Iterator[list[Belief]]:
        """Every belief with its stored labels, in id order, a page at a time."""

    def read_labelling(self) -> StoredLabels:
        """What verify needs: every belief's justifications, pins, stored labels and depth
        (no text or metadata), and its raw graph labels where they are not exactly one
        truth label (engine/tms/stored_labels.py)."""

    def nogoods(self) -> list[Nogood]: ...

    def nogoods_holding(self, member_ids: Iterable[str]) -> list[Nogood]:
        """Nogoods with a member among `member_ids` whose members are all IN now."""

    def unresolved_nogoods_holding(self) -> list[Nogood]:
        """Nogoods recorded unresolved (their members rested on no assumption) whose members
        are all IN now, with their resolution."""

    def create_beliefs(self, beliefs: Sequence[Belief]) -> None:
        """Create beliefs with their justifications (ids must be new; named ids that do
        not exist yet are kept as forward references). Labels are not computed here."""

    def placeholder_ids(self, ids: Iterable[str]) -> set[str]:
        """The subset of `ids` that justifications name but no belief has yet."""

    def create_labelled_beliefs(self, labelled: Iterable[tuple[Belief, Label]]) -> None:
        """Bulk-create self-contained beliefs that already carry their final labels (import
        of a file whose labels were computed from scratch), consuming `labelled` as a
        stream: a justification may name a belief that comes later; ids named that never
        come get placeholders."""

    def add_justifications(self, belief_id: str,
                           justifications: Sequence[Justification]) -> None: ...

    def remove_justification(self, belief_id: str, position: int) -> None:
        """Delete the belief's `position`-th justification (1-based, in order)."""

    def supersede_links(self, belief_id: str) -> tuple[list[str], list[str]]:
        """(what supersedes the belief, what it supersedes)."""

    def set_pins(
        self, ids: Sequence[str], *, retracted: bool, asserted: bool, reason: str, at: str
    ) -> dict[str, Pinned]:
        """Record the user's retract / assert decision on beliefs; returns the ones found,
        with what they were before (an id not returned does not exist: nothing was written
        for it)."""

    def relabel(self, seeds: Iterable[str]) -> Change:
        """Propagate from beliefs whose definition changed until labels and depths are the
        well-founded model again; return what went IN and OUT."""

    def write_labels(self, labels: Mapping[str, Label]) -> None:
        """Set the named beliefs' truth and depth exactly as given, with no propagation
        (verify --repair writes the from-scratch labels where the graph differs); then every
        belief's effective access tags follow the labels (engine/tms/access.py)."""

    def create_nogood(self, nogood: Nogood) -> None: ...

    def set_nogood_resolution(self, nogood_id: str, resolution: str) -> None: ...

    def save_network_info(self, meta: dict[str, Any], repos: dict[str, Any]) -> None:
        """Keep a network file's meta and repos sections for export."""

    def reset(self) -> None:
        """Delete every node this project writes."""


class SupersedeRecords(Protocol):
    """The (OLD)-[:SUPERSEDED_BY]->(NEW) links a supersede keeps for its undo: written by
    supersede (engine/memory/supersede.py) and by an import that carries them (a Network's
    supersessions)."""

    def record_supersede(self, record: SupersedeRecord) -> None: ...

    def supersede_record(self, old: str) -> SupersedeRecord | None: ...

    def delete_supersede(self, old: str) -> None: ...


class ResolutionTx(TmsTx, ChangeLog, Protocol):
    """What the kernel's verbs read and write inside one transaction: beliefs, pins, labels
    (TmsTx) and the change log (nogood resolution says what it retracted)."""


class TmsStore(Protocol):
    """The store as the kernel's verbs use it: transactions seen as a ResolutionTx. Every
    engine/store.py `Store` of a ResolutionTx is one (a `Store[GraphTx]` among them)."""

    def init_schema(self) -> dict[str, int]: ...

    def read(self, work: Callable[[ResolutionTx], T]) -> T: ...

    def write(self, work: Callable[[ResolutionTx], T], entry: ChangeEntry | None = None) -> T: ...

    def dry_run(self, work: Callable[[ResolutionTx], T]) -> T: ...
