"""The reading room's store verbs and records, one protocol per concern:

- ReadingTx: what `compact`, `ask`, `summarize` and impact read (adapters/neo4j/reading_tx.py,
  cypher/reading/compact.cypher: every section is ordered and cut in the database, so
  `compact` reads a few hundred rows whatever the size of the network);
- SearchTx: beliefs by their words (search, ask, derive's sampling; search_tx.py);
- PackTx: the query pack users run (query_tx.py), answering a QueryResult of plain values
  (a graph element is a GraphNode or GraphEdge, so nothing here depends on the driver);
- RegistryTx: the blockers export, the wiki and MCP read (registry_tx.py).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Protocol

from engine.model import Truth


class Section(StrEnum):
    """The sections of `compact`, in the order they are printed (and fill the budget)."""

    NOGOODS = "nogoods"
    CHANGES = "changes"
    GATED = "gated"
    PREMISES = "premises"
    DEEPEST = "deepest"
    DEFEATED = "defeated"


@dataclass(frozen=True)
class Row:
    """One belief (or nogood) as a section lists it; `note` says why it is there."""

    id: str
    text: str
    truth: str  # IN, OUT, UNDETERMINED; for a nogood: holds, resolved, open
    depth: int | None
    note: str = ""


@dataclass(frozen=True)
class SectionRows:
    """The first rows of a section, and how many the whole section has."""

    total: int
    rows: tuple[Row, ...] = ()
    source: str = ""  # for CHANGES: "change log" or "retractions"


@dataclass(frozen=True)
class SummaryCover:
    """An IN summary belief and the beliefs it stands for."""

    id: str
    text: str
    depth: int | None
    covered: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class NetworkCounts:
    beliefs: int
    in_: int
    out: int
    nogoods: int


@dataclass(frozen=True)
class VisibleNetwork:
    """What a client with a visibility set sees of the whole network (engine/visibility.py):
    the ids of its beliefs, how many of them are IN, and the nogoods with only such members."""

    ids: frozenset[str]
    in_count: int
    nogoods: int


class ReadingTx(Protocol):
    def section_rows(self, section: Section, scope: Sequence[str] | None, limit: int
                     ) -> SectionRows:
        """The first `limit` rows of `section` in its order (scope None: the network)."""

    def summary_covers(self, scope: Sequence[str] | None) -> list[SummaryCover]:
        """Every IN summary belief whose cover meets the scope, by id."""

    def impacts(self, ids: Iterable[str], visible_to: frozenset[str] | None = None
                ) -> dict[str, int]:
        """For each id that exists: how many beliefs rest on it transitively (with
        `visible_to`: how many of those a client with that visibility set sees)."""

    def around_ids(self, belief_id: str, steps: int) -> list[str] | None:
        """The belief and every belief within `steps` justification steps of it, up and
        down; None when it does not exist."""

    def network_counts(self) -> NetworkCounts: ...

    def visible_network(self, visible_to: frozenset[str]) -> VisibleNetwork: ...

    def mark_summary(self, belief_id: str) -> bool:
        """Label the belief a summary (:Summary); False when it does not exist."""


@dataclass(frozen=True)
class BeliefHit:
    """A belief as search shows it: enough to judge it without another call."""

    id: str
    text: str
    truth: Truth
    depth: int | None
    dependents: int  # beliefs with a justification naming it


class SearchTx(Protocol):
    """Finding beliefs by their words (search, ask, derive's sampling)."""

    def search_text(self, words: Sequence[str], limit: int, include_out: bool) -> list[BeliefHit]:
        """Up to `limit` beliefs whose text or id matches any of `words` (a word, or a
        word's prefix), best first by relevance; OUT beliefs only with `include_out`."""

    def search_meaning(self, vector: Sequence[float], limit: int, include_out: bool
                       ) -> list[tuple[BeliefHit, float]]:
        """Up to `limit` beliefs whose stored embedding is nearest to `vector` (the
        belief_embedding vector index), best first, each with its cosine; OUT beliefs only
        with `include_out` (fewer when the nearest are mostly OUT)."""

    def belief_hits(self, ids: Iterable[str]) -> dict[str, BeliefHit]:
        """The named beliefs that exist, as search hits."""

    def justification_links(self, ids: Iterable[str]) -> dict[str, frozenset[str]]:
        """For each of `ids` that exists: the ids its justifications name (antecedents and
        outlists; placeholders of ids not added yet among them), without reading it whole."""

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
        client with that visibility set sees (engine/visibility.py)."""


@dataclass(frozen=True)
class GraphNode:
    """A node in a query result: `key` is the database's element id."""

    key: str
    labels: tuple[str, ...]
    properties: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))

    def as_dict(self) -> dict[str, object]:
        return {"labels": list(self.labels), "properties": dict(self.properties)}


@dataclass(frozen=True)
class GraphEdge:
    key: str
    type: str
    source: str  # key of the start node
    target: str  # key of the end node
    properties: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))

    def as_dict(self) -> dict[str, object]:
        return {"type": self.type, "properties": dict(self.properties)}


@dataclass(frozen=True)
class QueryResult:
    columns: tuple[str, ...]
    rows: tuple[tuple[object, ...], ...]

    def records(self) -> list[dict[str, object]]:
        return [dict(zip(self.columns, row)) for row in self.rows]


def cover_index(covers: Sequence[SummaryCover]) -> dict[str, SummaryCover]:
    """Covered id -> the summary standing for it (the smallest summary id when several)."""
    index: dict[str, SummaryCover] = {}
    for cover in sorted(covers, key=lambda c: c.id, reverse=True):
        for covered in cover.covered:
            index[covered] = cover
    return index


# --- health: how true the memory is (engine/reading/health.py) -----------------------------
NEVER, OUTDATED, CURRENT = "never", "outdated", "current"


@dataclass(frozen=True)
class ReviewStanding:
    """The derived beliefs (IN, with a justification that is not a gate) by their review:
    current; never reviewed; reviewed before the last change to it or to a belief its
    justifications name (review's own defeaters aside). `pool`: (id, never|outdated, direct
    dependents) of the not-current ones with the most direct dependents, most first, then
    by id: the beliefs whose impact is counted for the top of the queue."""

    derived: int = 0
    current: int = 0
    never: int = 0
    outdated: int = 0
    pool: tuple[tuple[str, str, int], ...] = ()


@dataclass(frozen=True)
class HealthFacts:
    """What `health` reads of the graph in one read transaction, besides the counts of
    `status`: the review standing; `out_support`, for each OUT belief that is neither
    retracted nor undetermined, the antecedents that are not IN of each justification of
    it (gates aside) whose outlist is all OUT (its support is circular when it leads only
    back to such beliefs); `loose`, the premises nothing rests on and nothing pins to a
    source (how many, the first ids); the nogoods, those holding (every member IN), and the
    beliefs OUT only through a contradiction (retracted by a nogood's resolution)."""

    review: ReviewStanding = ReviewStanding()
    out_support: Mapping[str, tuple[tuple[str, ...], ...]] = field(
        default_factory=lambda: MappingProxyType({}))
    loose: int = 0
    loose_ids: tuple[str, ...] = ()
    nogoods: int = 0
    holding: int = 0
    out_by_nogood: tuple[str, ...] = ()


class HealthTx(Protocol):
    """The views `health` and `list --never-reviewed` read (adapters/neo4j/health_tx.py,
    cypher/reading/health.cypher)."""

    def health_facts(self, pool: int, listed: int) -> HealthFacts:
        """The facts above; at most `pool` beliefs in the review pool and `listed` loose
        ids."""

    def review_stamps(self, ids: Iterable[str] | None = None) -> dict[str, str]:
        """When review last judged each belief (its stamp here, else the `reviewed_at` an
        imported file gave it), by id: of `ids`, or of every belief with one (None)."""
