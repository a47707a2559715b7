"""What a client with a visibility set sees: only beliefs whose effective access tags are all
in its set (engine/tms/access.py); untagged beliefs are visible to all.

`VisibleStore` wraps a store for one client (the Context's `visible_to`: an MCP token's set,
or the CLI's `--visible-to`): every read runs on a `VisibleTx`, which answers the verbs the
filtered reads use (show, list, search by words and by meaning, explain, trace, trace-tags,
compact, blockers, export, context_for, ask) and refuses every other one (deny by
default: a verb added later leaks nothing until someone filters it here). A hidden belief is
absent from every answer, exactly as an unknown id, and from every count; where a visible
belief names one (an outlist member, a justification that does not hold, a closed gate's
closer), the name becomes `(hidden-N)`, a stub with no text whose truth is kept so that
explain and trace can stop there and say something is hidden. No write runs under a set,
except through `VisibleReadsStore`, for ask's own records of a run.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from engine.agents.visible_export import visible_network
from engine.embedding.records import EmbeddingBacklog, StoredEmbedding
from engine.clock import now_iso
from engine.errors import InvalidInput
from engine.model import Belief
from engine.reading.records import (
    BeliefHit,
    GatedConclusion,
    NetworkCounts,
    RetractedPremise,
    Section,
    SectionRows,
    SummaryCover,
    VisibleNetwork,
)
from engine.repair.records import Gap
from engine.tms.access import visible
from engine.tms.records import BeliefFilter, Network

if TYPE_CHECKING:
    from engine.agents.records import NamespaceRecord
    from engine.change_records import ChangeEntry
    from engine.stages.records import NegativeCandidate
    from engine.store import Store

T = TypeVar("T")

HIDDEN_TEXT = "(hidden: not visible to this client)"
SEARCH_OVERFETCH = 4  # hits asked for per hit wanted, since hidden ones are dropped after
EVERY_ROW = 2**31 - 1  # a limit that keeps every row (list slices take 32-bit ints)
CLOSED_BY = "closed by "  # how compact's gated section notes the closers
CHANGE_LOG = "change log"  # the source of compact's changes section when the log exists


def refusal(visible_to: frozenset[str], what: str) -> InvalidInput:
    seen = ", ".join(sorted(visible_to)) or "untagged beliefs only"
    return InvalidInput(f"{what} is not available to a client that sees {seen}",
                        field="visible_to")


class VisibleTx:
    """A read transaction that shows only what `visible_to` may see."""

    def __init__(self, tx: Any, visible_to: frozenset[str]) -> None:
        self._tx = tx
        self._visible_to = visible_to
        self._stubs: dict[str, Belief] = {}  # hidden id -> its stub, stable in one read
        self._network_seen: VisibleNetwork | None = None

    def __getattr__(self, name: str) -> Any:
        raise refusal(self._visible_to, f"this read ({name})")

    def _sees(self, b: Belief) -> bool:
        return visible(b.effective_tags, self._visible_to)

    def _stub(self, hidden: Belief) -> Belief:
        stub = self._stubs.get(hidden.id)
        if stub is None:
            stub = Belief(id=f"(hidden-{len(self._stubs) + 1})", text=HIDDEN_TEXT,
                          truth=hidden.truth, depth=hidden.depth)
            self._stubs[hidden.id] = stub
        return stub

    def _masked(self, beliefs: Iterable[Belief]) -> list[Belief]:
        """`beliefs` (all visible) with every name of a hidden belief replaced by its stub's."""
        beliefs = list(beliefs)
        named = {r for b in beliefs for j in b.justifications for r in j.mentions()}
        hidden = {bid: b for bid, b in self._tx.get_beliefs(sorted(named)).items()
                  if not self._sees(b)}
        if not hidden:
            return beliefs

        def name(r: str) -> str:
            return self._stub(hidden[r]).id if r in hidden else r

        return [dataclasses.replace(b, justifications=tuple(
            dataclasses.replace(j, antecedents=tuple(map(name, j.antecedents)),
                                outlist=tuple(map(name, j.outlist)))
            for j in b.justifications)) for b in beliefs]

    # --- the verbs the filtered reads use ----------------------------------------------
    def get_beliefs(self, ids: Iterable[str]) -> dict[str, Belief]:
        shown = [b for b in self._tx.get_beliefs(ids).values() if self._sees(b)]
        return {b.id: b for b in self._masked(shown)}

    def existing_ids(self, ids: Iterable[str]) -> set[str]:
        return set(self.get_beliefs(ids))

    def direct_dependents(self, belief_id: str) -> set[str]:
        return self.existing_ids(self._tx.direct_dependents(belief_id))

    def shown_belief(self, belief_id: str) -> tuple[Belief, set[str]] | None:
        found = self.get_beliefs([belief_id]).get(belief_id)
        return None if found is None else (found, self.direct_dependents(belief_id))

    def forward_reference(self, ref: str) -> tuple[list[str], list[str]] | None:
        """Only what visible beliefs name (a nogood may list hidden beliefs: not shown)."""
        found = self._tx.forward_reference(ref)
        named_by = sorted(self.existing_ids(found[0])) if found else []
        return (named_by, []) if named_by else None

    def list_beliefs(self, which: BeliefFilter) -> list[Belief]:
        return self._masked(b for b in self._tx.list_beliefs(which) if self._sees(b))

    def upstream(self, ids: Iterable[str]) -> dict[str, Belief]:
        """What explain and trace walk: from the visible ones of `ids`, through visible
        beliefs only; a hidden one met on the way is its stub, and the walk stops there."""
        ids = list(ids)
        found = self._tx.upstream(ids)
        reached: dict[str, Belief] = {}
        frontier = [i for i in ids if i in found and self._sees(found[i])]
        while frontier:
            following: list[str] = []
            for bid in frontier:
                if bid in reached:
                    continue
                reached[bid] = found[bid]
                following.extend(r for j in found[bid].justifications for r in j.mentions()
                                 if r in found and r not in reached and self._sees(found[r]))
            frontier = following
        shown = {b.id: b for b in self._masked(reached.values())}
        for stub in self._stubs.values():
            shown[stub.id] = stub
        return shown

    def search_text(self, words: Sequence[str], limit: int, include_out: bool
                    ) -> list[BeliefHit]:
        hits = self._tx.search_text(words, limit * SEARCH_OVERFETCH, include_out)
        seen = self.existing_ids(h.id for h in hits)
        return [h for h in hits if h.id in seen][:limit]

    def similar_beliefs(self, vector: Sequence[float], limit: int) -> list[tuple[str, float]]:
        return self._tx.similar_beliefs(vector, limit)  # ids only: belief_hits filters them

    def search_meaning(self, vector: Sequence[float], limit: int, include_out: bool
                       ) -> list[tuple[BeliefHit, float]]:
        found = self._tx.search_meaning(vector, limit * SEARCH_OVERFETCH, include_out)
        seen = self.existing_ids(h.id for h, _ in found)
        return [(h, c) for h, c in found if h.id in seen][:limit]

    def embeddings(self, ids: Iterable[str]) -> dict[str, StoredEmbedding]:
        """The stored embeddings of visible beliefs only (ask folds near duplicates)."""
        seen = self._network().ids
        return self._tx.embeddings(i for i in ids if i in seen)

    def embedding_backlog(self, model: str, scope: Sequence[str] | None = None
                          ) -> EmbeddingBacklog:
        """Counted over the visible beliefs only (a count of the hidden ones says they are
        there); the memory's recorded model is no belief's content."""
        return self._tx.embedding_backlog(model, self._scoped(scope))

    def justification_links(self, ids: Iterable[str]) -> dict[str, frozenset[str]]:
        """Of visible beliefs, and naming visible ones only (a hidden belief named would say
        it is there)."""
        seen = self._network().ids
        return {i: frozenset(named & seen)
                for i, named in self._tx.justification_links(i for i in ids if i in seen).items()}

    def neighbours(self, ids: Sequence[str], depth: int) -> dict[str, int]:
        """Step by step through visible beliefs only: a hidden one is neither listed nor
        walked through (it would say which visible beliefs it connects)."""
        found: dict[str, int] = {}
        seen = set(ids)
        frontier = sorted(seen)
        for distance in range(1, depth + 1):
            step = set(self._tx.neighbours(frontier, 1)) - seen
            frontier = sorted(self.existing_ids(step))
            seen.update(step)
            found.update((i, distance) for i in frontier)
        return found

    def supersede_links(self, belief_id: str) -> tuple[list[str], list[str]]:
        """(what supersedes it, what it supersedes), visible beliefs only (ask's why-OUT)."""
        by, of = self._tx.supersede_links(belief_id)
        seen = self.existing_ids([*by, *of])
        return [i for i in by if i in seen], [i for i in of if i in seen]

    def classified_negatives(self) -> list[NegativeCandidate]:
        """`list --negative`: the negatives stage's verdicts on visible beliefs only."""
        found = self._tx.classified_negatives()
        seen = self.existing_ids(c.id for c in found)
        return [c for c in found if c.id in seen]

    def belief_hits(self, ids: Iterable[str]) -> dict[str, BeliefHit]:
        hits = self._tx.belief_hits(ids)
        seen = self.existing_ids(hits)
        return {i: h for i, h in hits.items() if i in seen}

    # --- what compact, blockers, context_for and ask read -------------------------------
    # compact reads the visible network as its scope (so every section's rows and totals
    # count visible beliefs only), and its notes keep only what cannot name a hidden belief.
    def _network(self) -> VisibleNetwork:
        if self._network_seen is None:
            self._network_seen = self._tx.visible_network(self._visible_to)
        return self._network_seen

    def _only_visible(self, ids: Iterable[str]) -> list[str]:
        seen = self._network().ids
        return [i for i in ids if i in seen]

    def _scoped(self, scope: Sequence[str] | None) -> list[str]:
        return sorted(self._network().ids) if scope is None else self._only_visible(scope)

    def _stub_ids(self, ids: Sequence[str]) -> tuple[str, ...]:
        seen = self._network().ids
        hidden = self._tx.get_beliefs([i for i in ids if i not in seen])
        return tuple(self._stub(hidden[i]).id if i in hidden else i for i in ids)

    def network_counts(self) -> NetworkCounts:
        n = self._network()
        return NetworkCounts(len(n.ids), n.in_count, len(n.ids) - n.in_count, n.nogoods)

    def section_rows(self, section: Section, scope: Sequence[str] | None, limit: int
                     ) -> SectionRows:
        scoped = self._scoped(scope)
        if section is Section.NOGOODS:  # a nogood with a hidden member is hidden: read all
            rows = self._tx.section_rows(section, scoped, EVERY_ROW)
            seen = self._network().ids
            kept = [r for r in rows.rows if all(m in seen for m in r.text.split(", "))]
            return SectionRows(len(kept), tuple(kept[:limit]), rows.source)
        rows = self._tx.section_rows(section, scoped, limit)
        return dataclasses.replace(rows, rows=tuple(
            dataclasses.replace(r, note=self._note(section, r.note, rows.source))
            for r in rows.rows))

    def _note(self, section: Section, note: str, source: str) -> str:
        if section is Section.GATED and note.startswith(CLOSED_BY):
            return CLOSED_BY + ", ".join(self._stub_ids(note[len(CLOSED_BY):].split(", ")))
        if section is Section.CHANGES and source == CHANGE_LOG:
            return " ".join(note.split(" ")[:2])  # op and day: a reason may name anything
        if section is Section.DEFEATED:
            return note.split(":", 1)[0]  # the kind: a finding may name hidden antecedents
        return note

    def summary_covers(self, scope: Sequence[str] | None) -> list[SummaryCover]:
        seen = self._network().ids
        return [dataclasses.replace(c, covered=tuple(i for i in c.covered if i in seen))
                for c in self._tx.summary_covers(self._scoped(scope)) if c.id in seen]

    def impacts(self, ids: Iterable[str], visible_to: frozenset[str] | None = None
                ) -> dict[str, int]:
        return self._tx.impacts(self._only_visible(ids), self._visible_to)

    def around_ids(self, belief_id: str, steps: int) -> list[str] | None:
        if belief_id not in self._network().ids:
            return None
        near = self._tx.around_ids(belief_id, steps)
        return None if near is None else self._only_visible(near)

    def gaps(self, limit: int) -> tuple[list[Gap], int]:
        gaps, _ = self._tx.gaps(EVERY_ROW)
        seen = self._network().ids
        kept = [g for g in gaps if g.for_belief in seen]
        return kept[:limit], len(kept)

    def read_network(self) -> Network:
        """What export writes for this client: engine/agents/visible_export.py."""
        return visible_network(self._tx.read_network(), self._sees, now_iso())

    def namespace_records(self) -> list[NamespaceRecord]:
        return self._tx.namespace_records()

    def namespace_ids(self, name: str) -> list[str]:
        return self._only_visible(self._tx.namespace_ids(name))

    def closed_gates(self) -> list[GatedConclusion]:
        seen = self._network().ids
        return [dataclasses.replace(g, closers=self._stub_ids(g.closers))
                for g in self._tx.closed_gates() if g.id in seen]

    def retracted_premises(self, limit: int | None, visible_to: frozenset[str] | None = None
                           ) -> list[RetractedPremise]:
        return self._tx.retracted_premises(limit, self._visible_to)


class VisibleStore:
    """A store as a client that sees only `visible_to` reads it: reads filtered, writes
    refused."""

    def __init__(self, store: Store, visible_to: frozenset[str] | None) -> None:
        self._store = store
        self._visible_to = visible_to

    def _current(self) -> frozenset[str] | None:
        return self._visible_to

    def init_schema(self) -> dict[str, int]:
        return self._store.init_schema()

    def read(self, work: Callable[[Any], T]) -> T:
        visible_to = self._current()
        if visible_to is None:
            return self._store.read(work)
        return self._store.read(lambda tx: work(VisibleTx(tx, visible_to)))

    def write(self, work: Callable[[Any], T], entry: ChangeEntry | None = None) -> T:
        visible_to = self._current()
        if visible_to is not None:
            raise refusal(visible_to, "a write")
        return self._store.write(work, entry)

    def dry_run(self, work: Callable[[Any], T]) -> T:
        visible_to = self._current()
        if visible_to is not None:
            raise refusal(visible_to, "a what-if")
        return self._store.dry_run(work)

    def close(self) -> None:
        self._store.close()

    def __getattr__(self, name: str) -> Any:  # the store's other parts (the writer lock, ...)
        return getattr(self._store, name)



class VisibleReadsStore(VisibleStore):
    """A VisibleStore whose writes pass: for ask, which reads as the client sees and then
    records its own run, rounds and citations (of beliefs it was shown, so visible ones)."""

    def write(self, work: Callable[[Any], T], entry: ChangeEntry | None = None) -> T:
        return self._store.write(work, entry)
