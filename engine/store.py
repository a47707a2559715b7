"""The Store protocol: what truth maintenance and derive need from a graph.

The engine speaks only these domain verbs; adapters/neo4j implements them in Cypher and
tests/fakes.py implements them in memory. A `GraphTx` is the store seen from inside one
transaction: `Store.write(work)` runs `work(tx)` and commits everything it did, the
propagation included, or nothing. `work` may be run more than once (a cluster retries
transient failures), so it must not have side effects outside the transaction.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from engine.change_records import ChangeEntry, LogEntry, LogQuery, Touch
from engine.model import Belief, Change, Justification, Label, Network, Nogood, Status, Truth
from engine.reading.query_result import QueryResult
from engine.stages.provenance import ProposedBy, RoundRecord, RunRecord

T = TypeVar("T")


@dataclass(frozen=True)
class Pinned:
    """A belief just pinned by set_pins, as it was before the pin."""

    was_in: bool
    premise: bool


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


@dataclass(frozen=True)
class StoredEmbedding:
    """A belief's cached embedding: the vector, the sha256 of the text it was computed
    from and the model that computed it (either differing from now means recompute)."""

    id: str
    sha256: str
    model: str
    vector: Sequence[float]


@dataclass(frozen=True)
class BeliefHit:
    """A belief as search shows it: enough to judge it without another call."""

    id: str
    text: str
    truth: Truth
    depth: int | None
    dependents: int  # beliefs with a justification naming it


@dataclass(frozen=True)
class SourceRecord:
    """A source file forge has read: (:Source {path, sha256, size, forged_at, chunks})."""

    path: str  # relative to the root forge was given
    sha256: str  # of the file's bytes when it was last forged
    size: int
    forged_at: str
    chunks: tuple[str, ...] = ()  # sha256 of each chunk of that text already forged


@dataclass(frozen=True)
class SourcePin:
    """Where a premise's words stand in its source: the belief's `source`, `source_hash` and
    `metadata` (quote and lines inside) are set, and its one (:Belief)-[:FROM {lines}]->
    (:Source) edge points at `source`."""

    id: str
    source: str
    source_hash: str
    lines: tuple[int, int]
    metadata: Mapping[str, Any]
    at: str = ""


@dataclass(frozen=True)
class ReviewCandidate:
    """An IN derived belief as review's what-is-due sees it (no texts)."""

    id: str
    depth: int | None
    review_sha256: str = ""  # hash of what the last review was shown; "" when never reviewed
    reviewed_at: str = ""
    rests_on: tuple[str, ...] = ()  # the IN derived beliefs its justifications name as antecedents


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


@dataclass(frozen=True)
class ReviewStamp:
    """A judged belief: when, the hash of what was judged, and by which run."""

    id: str
    at: str
    sha256: str
    run_id: str


@dataclass(frozen=True)
class VerdictEdge:
    """One verdict on one justification (belief id + 1-based position in the belief's order),
    recorded as an edge from the round that judged it; `fields` are scalars or lists of str."""

    belief_id: str
    position: int
    fields: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PairVerdict:
    """A stage's verdict on a pair of beliefs (a < b), with the sha256 of each text as it was
    judged: a verdict whose texts changed since is stale and the pair is asked again."""

    stage: str  # "dedup" | "contradictions"
    a: str
    b: str
    sha_a: str
    sha_b: str
    verdict: str  # SAME | DIFFERENT | CONTRADICTION | COMPATIBLE
    run_id: str = ""
    round: int = 0
    comment: str = ""


@dataclass(frozen=True, order=True)
class RewiredEdge:
    """One antecedent (REQUIRES) or outlist (UNLESS) edge a merge moved from the merged belief
    to the kept one: justification number `seq` of belief `belief`, at position `pos`."""

    belief: str
    seq: int
    kind: str  # REQUIRES | UNLESS
    pos: int


@dataclass(frozen=True)
class MergeRecord:
    """What a dedup merge changed, kept on its DUPLICATE_OF edge so undo restores it exactly:
    the edges moved and the merged belief's pins and timestamp as they were before."""

    merged: str
    kept: str
    rewired: tuple[RewiredEdge, ...]
    was_retracted: bool
    was_asserted: bool
    was_retracted_at: str
    was_reason: str
    was_updated_at: str
    run_id: str
    round: int
    at: str


@dataclass(frozen=True)
class SupersedeRecord:
    """A supersede, kept on its (OLD)-[:SUPERSEDED_BY]->(NEW) edge so undo restores it
    exactly: whether NEW was created by the reword, and the dependents' edges moved to NEW."""

    old: str
    new: str
    created_new: bool
    rewired: tuple[RewiredEdge, ...]
    reason: str
    at: str


class ChangeLog(Protocol):
    """The change log seen from a transaction (engine/memory/changelog.py). The store appends the
    entry of each write itself, after `work`; these are what the engine adds and reads."""

    def actor(self) -> str:
        """Who this write is by (the entry point's actor, or the entry's)."""

    def note_retracted_by_nogood(self, ids: Sequence[str]) -> None:
        """Say, for this write's entry, that nogood resolution retracted these beliefs."""

    def change_entries(self, query: LogQuery) -> list[LogEntry]: ...

    def belief_history(self, belief_id: str) -> list[tuple[LogEntry, Touch]]:
        """The entries that touched the belief, oldest first, with what each did to it."""

    def seq_before(self, at: str | None) -> int:
        """The seq of the last entry before time `at` (0: none)."""

    def touches_after(self, seq: int) -> tuple[dict[str, list[Touch]], dict[str, bool]]:
        """Every touch of a belief by an entry after `seq`, by belief id; and the ids the
        entries after `seq` removed, each with whether one of them had created it."""

    def prune_changes(self, before: str) -> int:
        """Delete the entries older than `before`; how many."""

    def truths(self, ids: Iterable[str]) -> dict[str, Truth]:
        """The current label of each named belief that exists (a light read for diff)."""


EDITABLE_FIELDS = frozenset({"text", "source", "source_url", "source_hash", "date"})


class Editing(Protocol):
    """The editing verbs: gates (supersede, challenge, defend), justifications, metadata.
    None of them computes labels: relabel the beliefs afterwards."""

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

    def record_supersede(self, record: SupersedeRecord) -> None: ...

    def supersede_record(self, old: str) -> SupersedeRecord | None: ...

    def delete_supersede(self, old: str) -> None: ...

    def supersede_links(self, belief_id: str) -> tuple[list[str], list[str]]:
        """(what supersedes the belief, what it supersedes)."""

    def move_mentions_back(self, edges: Sequence[RewiredEdge], moved_to: str, back_to: str
                           ) -> int:
        """Move recorded edges from `moved_to` back to `back_to`; how many were found."""

    def remove_justification(self, belief_id: str, position: int) -> None:
        """Delete the belief's `position`-th justification (1-based, in order)."""

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


# --- the registry: blockers (engine/reading/blockers.py), read by export, the wiki and MCP ---
@dataclass(frozen=True)
class GatedConclusion:
    """An OUT belief one of whose justifications holds but for IN beliefs in its outlist."""

    id: str
    text: str
    seq: int  # which justification (1-based, in the belief's order)
    closers: tuple[str, ...]  # its outlist's IN members, in written order


@dataclass(frozen=True)
class RetractedPremise:
    id: str
    text: str
    reason: str
    retracted_at: str
    resting: int  # beliefs resting on it through antecedents, at any distance


class RegistryTx(Protocol):
    def closed_gates(self) -> list[GatedConclusion]:
        """Every blocked conclusion: OUT (not retracted, not undetermined) with a
        justification whose antecedents are all IN and whose outlist holds IN beliefs and no
        undetermined one; one entry per such justification, by id and position."""

    def retracted_premises(self, limit: int | None, visible_to: frozenset[str] | None = None
                           ) -> list[RetractedPremise]:
        """Retracted premises by how many beliefs rest on them, most first, then by id; at
        most `limit` (None: all). With `visible_to`, only premises and resting beliefs a
        client with that visibility set sees (engine/agents/visibility.py)."""


class TmsTx(Protocol):
    """The TMS core: beliefs, justifications, pins, labels and nogoods (tms.py, import,
    verify, explain)."""

    def get_beliefs(self, ids: Iterable[str]) -> dict[str, Belief]:
        """The named beliefs that exist, with justifications, pins, truth and depth."""

    def existing_ids(self, ids: Iterable[str]) -> set[str]:
        """The subset of `ids` that name beliefs."""

    def status(self) -> Status: ...

    def list_beliefs(self, which: BeliefFilter) -> list[Belief]:
        """Beliefs (without justifications) in id order."""

    def out_belief_ids(self) -> list[str]:
        """The ids of every OUT belief (Undetermined included), in id order."""

    def upstream(self, ids: Iterable[str]) -> dict[str, Belief]:
        """`ids` and every belief reachable from them through antecedents and outlists,
        with justifications: the material for explain, trace and nogood resolution."""

    def direct_dependents(self, belief_id: str) -> set[str]:
        """Beliefs with a justification that names `belief_id`."""

    def shown_belief(self, belief_id: str) -> tuple[Belief, set[str]] | None:
        """The belief (as get_beliefs gives it) and its direct dependents, read together
        (show); None when no belief has that id."""

    def dependent_counts(self, ids: Iterable[str]) -> dict[str, int]:
        """For each id, how many beliefs have a justification naming it."""

    def read_network(self) -> Network:
        """The whole network with stored labels (for verify and export)."""

    def read_labelling(self) -> tuple[dict[str, Belief], dict[str, list[str]]]:
        """What verify needs: every belief with its justifications, pins, truth and depth
        (no text or metadata), and its raw graph labels (exactly one truth label?)."""

    def nogoods(self) -> list[Nogood]: ...

    def nogoods_holding(self, member_ids: Iterable[str]) -> list[Nogood]:
        """Nogoods with a member among `member_ids` whose members are all IN now."""

    def create_beliefs(self, beliefs: Sequence[Belief]) -> None:
        """Create beliefs with their justifications (ids must be new; named ids that do
        not exist yet are kept as forward references). Labels are not computed here."""

    def placeholder_ids(self, ids: Iterable[str]) -> set[str]:
        """The subset of `ids` that justifications name but no belief has yet."""

    def create_labelled_beliefs(self, beliefs: Sequence[Belief], labels: dict[str, Label]) -> None:
        """Bulk-create self-contained beliefs that already carry their final labels (import
        of a file whose labels were computed from scratch)."""

    def add_justifications(self, belief_id: str,
                           justifications: Sequence[Justification]) -> None: ...

    def set_pins(
        self, ids: Sequence[str], *, retracted: bool, asserted: bool, reason: str, at: str
    ) -> dict[str, "Pinned"]:
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


class SearchTx(Protocol):
    """Finding beliefs by their words (search, ask, derive's sampling)."""

    def search_text(self, words: Sequence[str], limit: int, include_out: bool) -> list[BeliefHit]:
        """Up to `limit` beliefs whose text or id matches any of `words` (a word, or a
        word's prefix), best first by relevance; OUT beliefs only with `include_out`."""

    def belief_hits(self, ids: Iterable[str]) -> dict[str, BeliefHit]:
        """The named beliefs that exist, as search hits."""

    def neighbours(self, ids: Sequence[str], depth: int) -> dict[str, int]:
        """The beliefs within `depth` justification steps of any of `ids` (what their
        justifications name, antecedents and outlists, and what names them), `ids` left
        out, each with its distance in steps (1 to `depth`)."""

    def premise_pool(self, topic_words: Sequence[str] = ()) -> list[tuple[str, str]]:
        """(id, text) of every IN premise (no justification), sorted by id; with
        `topic_words`, only those whose id or text contains one of them (any case)."""


class PackTx(Protocol):
    """The query pack users run (cypher/queries/)."""

    def run_pack_query(self, name: str, params: Mapping[str, Any]) -> QueryResult:
        """Run the named query of the pack (cypher/queries/, read-only) with `params`;
        graph values come back as GraphNode / GraphEdge. An unknown name is NotFound."""


class ProvenanceTx(Protocol):
    """The LLM stages' runs and rounds, and what derive's rounds proposed."""

    def recent_stage_runs(self, limit: int) -> list[RunRecord]:
        """The `limit` most recent (:Run) nodes of the LLM stages, newest first."""

    def create_run(self, run: RunRecord) -> None:
        """Create the run's node, once: a second call with the same id changes nothing."""

    def record_round(self, record: RoundRecord) -> None:
        """Record one round under its run (which must exist)."""

    def link_proposed(self, run_id: str, round_n: int, proposed: Sequence[Mapping[str, str]]
                      ) -> None:
        """PROPOSED edges from a recorded round to the beliefs it created; each entry has
        "id", "kind", "mode", "label" (the round and every belief must exist)."""

    def derived_citing(self, ids: Iterable[str]) -> list[Belief]:
        """Derived beliefs with a justification whose antecedents include one of `ids`,
        each with every justification, truth and depth (other fields may be empty), by id."""

    def derive_provenance(self, belief_id: str) -> list[ProposedBy]:
        """Every derive round that proposed the belief, oldest first."""


class ReviewRecords(Protocol):
    """What review judges and records: candidates, arguments, stamps, verdicts,
    defeaters."""

    def review_candidates(self) -> list[ReviewCandidate]:
        """Every IN belief its justifications hold (depth >= 1: neither a premise nor
        asserted by the user), with its review stamp and the such beliefs it names as
        antecedents."""

    def review_arguments(self, ids: Iterable[str]) -> dict[str, Argument]:
        """The named beliefs that exist, as review shows and hashes them."""

    def add_defeater(self, belief_id: str, position: int, defeater_id: str) -> None:
        """Append the belief `defeater_id` (which must exist) to the outlist of the belief's
        `position`-th justification (1-based, in the belief's order; nothing changes when it
        is there already) and mark it a defeater (:Defeater). Labels are not recomputed
        here: relabel the belief afterwards."""

    def stamp_reviews(self, stamps: Sequence[ReviewStamp]) -> None:
        """Record on each belief when it was judged and the hash of what was judged."""

    def record_verdicts(self, run_id: str, round_n: int, verdicts: Sequence[VerdictEdge]) -> None:
        """An edge from the round (which must exist) to each judged justification (which must
        exist), carrying the verdict's fields."""


class VectorTx(Protocol):
    """Stored embeddings and the vector index; every score is a cosine in [-1, 1]."""

    def embedding_keys(self, ids: Iterable[str]) -> dict[str, tuple[str, str]]:
        """id -> (text sha256, model) of the stored embedding, for the `ids` that have one
        (no vectors read: the cheap check of what is missing or stale)."""

    def embeddings(self, ids: Iterable[str]) -> dict[str, StoredEmbedding]:
        """The stored embeddings of the `ids` that have one."""

    def save_embeddings(self, rows: Sequence[StoredEmbedding]) -> int:
        """Store each row on its belief (replacing what was there); returns how many
        beliefs were found. Meant for small write transactions of their own: a cache."""

    def similar_beliefs(self, vector: Sequence[float], limit: int) -> list[tuple[str, float]]:
        """Up to `limit` (id, cosine) of the beliefs whose stored embedding is nearest to
        `vector`, best first (the belief_embedding vector index); cosine, as every vector
        verb returns, not the index's (1 + cos) / 2 score."""

    def nearest_beliefs(self, ids: Sequence[str], k: int, min_cosine: float
                        ) -> list[tuple[str, str, float]]:
        """For each of `ids` with a stored embedding, its up to `k` nearest beliefs by the
        belief_embedding vector index, kept when IN and at cosine >= `min_cosine`:
        (id, neighbour id, cosine in [-1, 1]). One batched statement, not one per id."""


class SourceRecords(Protocol):
    """The sources premises are drawn from, and the pins to them (forge, add
    --source, sources status)."""

    def sources(self) -> list[SourceRecord]:
        """Every Source node, by path."""

    def save_sources(self, sources: Sequence[SourceRecord]) -> None:
        """Create or update each source by path (its hash, size, time and forged chunks)."""

    def pin_to_sources(self, pins: Sequence[SourcePin]) -> int:
        """Set each belief's source fields and its FROM edge (replacing an older one); the
        sources must exist. Returns how many beliefs were found."""

    def beliefs_from_sources(self, paths: Iterable[str]) -> list[Belief]:
        """Beliefs with a FROM edge to one of these sources, with pins, truth and metadata,
        by id."""

    def unpinned_sourced_ids(self) -> list[str]:
        """Ids of the beliefs that name a source but carry no source hash and no FROM edge
        (imported ones, or added before sources were pinned), by id."""

    def hashed_unpinned_ids(self) -> list[str]:
        """Ids of the beliefs that name a source and carry its hash but no FROM edge (what
        ftl-reasons and reasonsforge pin: the whole file's sha256), by id."""

    def set_source_hashes(self, hashes: Mapping[str, str], at: str) -> int:
        """Set each belief's `source_hash` (by id) and `updated_at`; returns how many were
        found."""

    def project_root(self) -> str:
        """The folder the memory's source paths are relative to (absolute), "" when none was
        recorded yet."""

    def save_project_root(self, root: str) -> None:
        """Record (or move) the memory's root folder."""

    def network_repos(self) -> dict[str, str]:
        """The repos maps kept from imported files (repo name -> path): the imported agents'
        files', then the memory's own over them; {} when none."""


class PairRecords(Protocol):
    """What dedup and contradictions read and record: texts, pairs, verdicts, merges
    and their undo, nogoods they found."""

    def in_belief_texts(self) -> list[tuple[str, str]]:
        """(id, text) of every IN belief, by id."""

    def sibling_groups(self, max_group: int) -> list[tuple[str, ...]]:
        """For each belief named as an antecedent by between 2 and `max_group` IN beliefs,
        those beliefs' ids (sorted): beliefs that rest on a common antecedent."""

    def pair_verdicts(self, stage: str) -> list[PairVerdict]:
        """Every stored verdict of `stage`."""

    def save_pair_verdicts(self, verdicts: Sequence[PairVerdict]) -> None:
        """Store each verdict, replacing the one stored for the same stage and pair."""

    def rewire_mentions(self, merged: str, kept: str) -> tuple[RewiredEdge, ...]:
        """Move every antecedent and outlist edge to `merged` (of justifications of beliefs
        other than `kept`) onto `kept`; returns what was moved. Labels are not computed."""

    def record_merge(self, record: MergeRecord) -> None:
        """The DUPLICATE_OF edge from the merged belief to the kept one, holding `record`,
        linked from its round when the round's node exists."""

    def merge_record(self, merged: str) -> MergeRecord | None:
        """The merge that retracted `merged`, if it stands."""

    def undo_merge(self, record: MergeRecord) -> None:
        """Move the edges of `record` back to the merged belief, restore its pins and
        timestamp, and delete the DUPLICATE_OF edge. Raises InvalidInput, writing nothing,
        when an edge is no longer where the merge left it. Labels are not computed."""

    def mark_nogood_found(self, nogood_id: str, stage: str, run_id: str, round_n: int) -> None:
        """Record which stage, run and round found a nogood (and link it from the round's
        node when it exists)."""


class GraphTx(TmsTx, SearchTx, PackTx, ProvenanceTx,
              ReviewRecords, VectorTx, SourceRecords, PairRecords,
              ChangeLog, Editing, RegistryTx, Protocol):
    """The store seen from inside one transaction: every part above, so a call site may
    take GraphTx, or only the part it uses."""


class Store(Protocol):
    def init_schema(self) -> dict[str, int]:
        """Create constraints and indexes, and upgrade what older versions wrote
        (idempotent); returns how many nodes each upgrade changed, by name."""

    def read(self, work: Callable[[GraphTx], T]) -> T: ...

    def write(self, work: Callable[[GraphTx], T], entry: ChangeEntry | None = None) -> T:
        """Run `work` in one write transaction and append its change-log entry (`entry`
        says what it is; None: op "write") in the same transaction."""

    def dry_run(self, work: Callable[[GraphTx], T]) -> T:
        """Run `work` in a transaction that is always rolled back (what-if)."""

    def close(self) -> None: ...
