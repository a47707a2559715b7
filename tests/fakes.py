"""In-memory stand-ins that subclass or satisfy the real interfaces, for unit tests.

FakeStore keeps beliefs in dicts and labels them with engine.tms.semantics (the definition of
truth), so a unit test sees exactly what the Neo4j store must produce.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Protocol, TypeVar

from engine.agents.records import AgentTx
from engine.ask.records import AskTx
from engine.change_records import ChangeEntry, ChangeLog, LogEntry, LogQuery, Touch
from engine.embedding.records import EmbeddingBacklog, StoredEmbedding, VectorTx
from engine.errors import InvalidInput, StoreError
from engine.memory.records import (
    EDITABLE_FIELDS,
    MARKER_LABELS,
    Editing,
    RewiredEdge,
    SupersedeRecord,
)
from engine.model import Belief, Change, Justification, Label, Nogood, Status, Truth
from engine.negatives.records import NegativeStamp, NegativeTx
from engine.pairs.records import MergeRecord, PairRecords, PairVerdict
from engine.proposals.records import ProposalTx
from engine.reading.records import (
    BeliefHit,
    GatedConclusion,
    HealthTx,
    ReadingTx,
    RegistryTx,
    RetractedPremise,
    SearchTx,
)
from engine.repair.records import RepairTx
from engine.review.records import ReviewCandidate, ReviewRecords, ReviewStamp, VerdictEdge
from engine.review_premises.records import PremiseReviewTx
from engine.sources.records import SourcePin, SourceRecord, SourceRecords
from engine.stages.records import (
    Argument,
    ArgumentJustification,
    ArgumentPart,
    ArgumentsTx,
    GapsTx,
    NegativeCandidate,
    ProblemsTx,
)
from engine.stages.provenance import ProposedBy, ProvenanceTx, RoundRecord, RunRecord
from engine.tms.access import own_tags, visible
from engine.tms.propagate import propagate, retag
from engine.tms.records import BeliefFilter, JustificationNow, Network, Pinned, TmsTx
from engine.tms.region_reader import ClassRow, RegionReader, StructureRow, TagRow, WaveRow
from engine.tms.stored_labels import StoredLabels, stored_labels_of
from engine.tms.values import IN, OUT, RANK, TRUTH, UNDETERMINED
from tests.fake_parts import (
    FakeAgents,
    FakeAsk,
    FakeHealth,
    FakePremiseReview,
    FakeProposals,
    FakeReading,
    FakeRepair,
    by_words,
)
from tests.fake_state import FakeState

T = TypeVar("T")


class FakeRegionReader:
    """Propagation's reader (engine/tms/region_reader.RegionReader) over a FakeState: the rows
    the Neo4j queries give, computed from the beliefs in memory. Keys are ids; an id that
    justifications name but no belief has is a placeholder (OUT, depth 0)."""

    def __init__(self, state: FakeState):
        self.beliefs = state.beliefs
        self._dependents: dict[str, list[str]] | None = None

    def _rank(self, ref: str) -> int:
        """As a named node reads: a placeholder, or a belief not labelled yet, is OUT."""
        b = self.beliefs.get(ref)
        return OUT if b is None or b.truth is None else RANK[b.truth]

    def _depth(self, ref: str) -> int | None:
        b = self.beliefs.get(ref)
        return 0 if b is None else b.depth

    def keys_of(self, ids: Sequence[str]) -> list[str]:
        return [i for i in ids if i in self.beliefs]

    def wave(self, frontier: Sequence[str]) -> list[WaveRow]:
        if self._dependents is None:  # one entry per edge: REQUIRES and UNLESS alike
            self._dependents = {}
            for c, b in self.beliefs.items():
                for j in b.justifications:
                    for ref in j.mentions():
                        self._dependents.setdefault(ref, []).append(c)
        named_by: dict[str, list[int]] = {}
        for position, key in enumerate(frontier):
            for c in self._dependents.get(key, ()):
                named_by.setdefault(c, []).append(position)
        rows: list[WaveRow] = []
        for c, parents in named_by.items():
            b = self.beliefs[c]
            simple = (len(b.justifications) == 1 and not b.justifications[0].outlist
                      and not b.retracted and not b.asserted)
            rows.append((c, parents, None if b.truth is None else RANK[b.truth], b.depth,
                         simple))
        return rows

    def structure(self, keys: Sequence[str]) -> list[StructureRow]:
        rows: list[StructureRow] = []
        for key in keys:
            b = self.beliefs[key]
            rows.append((key, b.retracted, b.asserted,
                         None if b.truth is None else RANK[b.truth], b.depth,
                         [([(a, self._rank(a), self._depth(a)) for a in j.antecedents],
                           [(o, self._rank(o)) for o in j.outlist], j.gate)
                          for j in b.justifications]))
        return rows

    def antecedent_classes(self, keys: Sequence[str]) -> list[ClassRow]:
        rows: list[ClassRow] = []
        for key in keys:
            ranks = [self._rank(a) for j in self.beliefs[key].justifications
                     for a in j.antecedents]
            rows.append((key, sum(r == OUT for r in ranks), ranks.count(UNDETERMINED)))
        return rows

    def write_labels(self, rank: int, keys: Sequence[str]) -> list[str]:
        for key in keys:
            self.beliefs[key] = dataclasses.replace(self.beliefs[key], truth=TRUTH[rank])
        return list(keys)

    def write_depths(self, rows: Sequence[tuple[str, int | None]]) -> None:
        for key, depth in rows:
            self.beliefs[key] = dataclasses.replace(self.beliefs[key], depth=depth)

    def tags_exist(self) -> bool:
        return any(own_tags(b.metadata) or b.effective_tags for b in self.beliefs.values())

    def tag_rows(self, keys: Sequence[str]) -> list[TagRow]:
        def is_in(ref: str) -> bool:
            return self._rank(ref) == IN

        def effective(ref: str) -> tuple[str, ...]:
            b = self.beliefs.get(ref)
            return () if b is None else b.effective_tags

        return [(key, sorted(own_tags(b.metadata)), b.effective_tags, is_in(key),
                 [([(a, is_in(a), effective(a)) for a in j.antecedents],
                   [(o, is_in(o)) for o in j.outlist]) for j in b.justifications])
                for key, b in ((key, self.beliefs[key]) for key in keys)]

    def write_tags(self, rows: Sequence[tuple[str, list[str] | None]]) -> None:
        for key, tags in rows:
            self.beliefs[key] = dataclasses.replace(self.beliefs[key],
                                                    effective_tags=tuple(tags or ()))


_READER: type[RegionReader] = FakeRegionReader  # checked by mypy


class FakeTx(FakeReading, FakeRepair, FakeAsk, FakePremiseReview, FakeAgents, FakeProposals,
             FakeHealth):
    """The store seen from inside one transaction, in memory: every part of
    engine.graph.GraphTx but the query pack (FakeGraphTx below; mypy checks it)."""

    reader_type = FakeRegionReader  # propagation's reader

    def __init__(self, state: FakeState, actor: str = "test", change_seq: int = 0):
        self.s = state
        self._actor = actor
        self.by_nogood: list[str] = []
        self.change_seq = change_seq  # the seq of this write's entry (0: not a write)
        self.relabelled = Change()  # what this transaction's propagation did, for its entry

    # --- the change log (engine.change_records.ChangeLog) ----------------------------
    def actor(self) -> str:
        return self._actor

    def note_retracted_by_nogood(self, ids: Sequence[str]) -> None:
        self.by_nogood.extend(ids)

    def change_entries(self, query: LogQuery) -> list[LogEntry]:
        found = [e for e in self.s.changes
                 if (query.after is None or e.seq > query.after)
                 and (query.since is None or e.at >= query.since)
                 and (query.op is None or e.op == query.op)
                 and (query.actor is None or e.actor == query.actor)]
        found = found if query.oldest_first else found[::-1]
        return found[:query.limit] if query.limit else found

    def belief_history(self, belief_id: str) -> list[tuple[LogEntry, Touch]]:
        return []  # the fake keeps no TOUCHED edges; the Neo4j store's tests cover them

    def seq_before(self, at: str | None) -> int:
        return max((e.seq for e in self.s.changes if at is not None and e.at < at), default=0)

    def touches_after(self, seq: int) -> tuple[dict[str, list[Touch]], dict[str, bool]]:
        return {}, {}

    def truths(self, ids: Iterable[str]) -> dict[str, Truth]:
        return {i: truth for i in ids if i in self.s.beliefs
                for truth in (self.s.beliefs[i].truth,) if truth is not None}

    def prune_changes(self, before: str) -> int:
        kept = [e for e in self.s.changes if e.at >= before]
        pruned = len(self.s.changes) - len(kept)
        self.s.changes = kept
        return pruned

    # --- editing (engine.memory.records.Editing) ---------------------------------------
    def _replace_justifications(self, belief_id: str, js: Sequence[Justification]) -> None:
        self.s.beliefs[belief_id] = dataclasses.replace(self.s.beliefs[belief_id],
                                                        justifications=tuple(js))

    def gate_belief(self, belief_id: str, gate_id: str, positions: Sequence[int] | None) -> int:
        b = self.s.beliefs[belief_id]
        if b.is_premise:
            gate = b.justifications[0] if b.justifications else Justification((), (), gate=True)
            positions, js = [1], [gate]
        else:
            js = list(b.justifications)
        appended = set(self.s.gated.get((belief_id, gate_id), ()))
        gated = 0
        for k, j in enumerate(js, start=1):
            if (positions is None or k in positions) and gate_id not in j.outlist:
                js[k - 1] = dataclasses.replace(j, outlist=j.outlist + (gate_id,))
                appended.add(k)  # what the store marks `gate` on its edges
                gated += 1
        self.s.gated[(belief_id, gate_id)] = frozenset(appended)
        self._replace_justifications(belief_id, js)
        return gated

    def ungate_belief(self, belief_id: str, gate_id: str) -> int:
        b = self.s.beliefs[belief_id]
        appended = self.s.gated.pop((belief_id, gate_id), None)  # None: nothing known
        removed = 0
        js = []
        for k, j in enumerate(b.justifications, start=1):
            if gate_id in j.outlist and (appended is None or k in appended):
                removed += j.outlist.count(gate_id)
                j = dataclasses.replace(j, outlist=tuple(o for o in j.outlist if o != gate_id))
            js.append(j)
        self._replace_justifications(belief_id, [j for j in js if not (j.gate and not j.outlist)])
        return removed

    def record_supersede(self, record: SupersedeRecord) -> None:
        self.s.supersedes[record.old] = record

    def supersede_record(self, old: str) -> SupersedeRecord | None:
        return self.s.supersedes.get(old)

    def delete_supersede(self, old: str) -> None:
        self.s.supersedes.pop(old, None)

    def supersede_links(self, belief_id: str) -> tuple[list[str], list[str]]:
        return ([r.new for r in self.s.supersedes.values() if r.old == belief_id],
                sorted(r.old for r in self.s.supersedes.values() if r.new == belief_id))

    def rewire_antecedents(self, old: str, new: str, owners: Sequence[str]
                           ) -> tuple[RewiredEdge, ...]:
        moved = []
        for bid in owners:
            b = self.s.beliefs.get(bid)
            if b is None:
                continue
            js = []
            for seq, j in enumerate(b.justifications):
                moved += [RewiredEdge(bid, seq, "REQUIRES", pos)
                          for pos, r in enumerate(j.antecedents) if r == old]
                js.append(dataclasses.replace(
                    j, antecedents=tuple(new if r == old else r for r in j.antecedents)))
            self._replace_justifications(bid, js)
        return tuple(sorted(moved))

    def move_mentions_back(self, edges: Sequence[RewiredEdge], moved_to: str, back_to: str
                           ) -> int:
        moved = 0
        for e in edges:
            js = list(self.s.beliefs[e.belief].justifications)
            j = js[e.seq]
            refs = list(j.antecedents if e.kind == "REQUIRES" else j.outlist)
            if e.pos < len(refs) and refs[e.pos] == moved_to:
                refs[e.pos] = back_to
                moved += 1
            js[e.seq] = (dataclasses.replace(j, antecedents=tuple(refs)) if e.kind == "REQUIRES"
                         else dataclasses.replace(j, outlist=tuple(refs)))
            self._replace_justifications(e.belief, js)
        return moved

    def remove_justification(self, belief_id: str, position: int) -> None:
        js = list(self.s.beliefs[belief_id].justifications)
        del js[position - 1]
        self._replace_justifications(belief_id, js)

    def set_metadata(self, belief_id: str, metadata: Mapping[str, Any], at: str) -> None:
        self.s.beliefs[belief_id] = dataclasses.replace(
            self.s.beliefs[belief_id], metadata=MappingProxyType(dict(metadata)), updated_at=at)

    def set_fields(self, belief_id: str, fields: Mapping[str, str], at: str) -> None:
        unknown = set(fields) - EDITABLE_FIELDS
        if unknown:
            raise InvalidInput(f"not an editable field: {min(unknown)}", field="fields")
        changed: dict[str, Any] = dict(fields)
        self.s.beliefs[belief_id] = dataclasses.replace(self.s.beliefs[belief_id], **changed,
                                                        updated_at=at)

    def copy_source_link(self, old: str, new: str) -> None:
        if old in self.s.from_edges:
            self.s.from_edges[new] = self.s.from_edges[old]

    def delete_belief(self, belief_id: str) -> None:
        del self.s.beliefs[belief_id]
        self.s.marks.pop(belief_id, None)

    def mark_labels(self, belief_id: str, labels: Sequence[str]) -> None:
        unknown = set(labels) - MARKER_LABELS
        if unknown:
            raise InvalidInput(f"not a marker label: {min(unknown)}", field="labels")
        self._mark(belief_id, labels)

    # --- reads ---------------------------------------------------------------------
    def get_beliefs(self, ids: Iterable[str]) -> dict[str, Belief]:
        return {i: self.s.beliefs[i] for i in ids if i in self.s.beliefs}

    def existing_ids(self, ids: Iterable[str]) -> set[str]:
        return {i for i in ids if i in self.s.beliefs}

    def justifications_now(self, ids: Iterable[str]) -> dict[str, tuple[JustificationNow, ...]]:
        beliefs = self.s.beliefs

        def now(refs: Sequence[str]) -> tuple[tuple[str, bool], ...]:
            return tuple((r, r in beliefs and beliefs[r].truth == Truth.IN) for r in refs)

        return {i: tuple(JustificationNow(j.gate, now(j.antecedents), now(j.outlist))
                         for j in beliefs[i].justifications)
                for i in ids if i in beliefs and beliefs[i].justifications
                and not beliefs[i].retracted}

    def status(self) -> Status:
        bs = self.s.beliefs.values()
        und = sorted(b.id for b in bs if b.truth == Truth.UNDETERMINED)
        return Status(
            beliefs=len(self.s.beliefs),
            in_=sum(b.truth == Truth.IN for b in bs),
            out=sum(b.truth != Truth.IN for b in bs),
            undetermined=len(und),
            premises=sum(b.is_premise for b in bs),
            derived=sum(not b.is_premise for b in bs),
            nogoods=len(self.s.nogoods),
            max_depth=max((b.depth for b in bs if b.depth is not None), default=0),
            undetermined_ids=tuple(und),
            challenged=sum(1 for b in bs if any(
                self._is_in(o) and "Challenge" in self.s.marks.get(o, ())
                for j in b.justifications for o in j.outlist)),
        )

    def list_beliefs(self, which: BeliefFilter) -> list[Belief]:
        out = []
        for b in sorted(self.s.beliefs.values(), key=lambda b: b.id):
            if which.truth == Truth.IN and b.truth != Truth.IN:
                continue
            if which.truth == Truth.OUT and b.truth == Truth.IN:
                continue
            if which.truth == Truth.UNDETERMINED and b.truth != Truth.UNDETERMINED:
                continue
            if which.premises is not None and b.is_premise != which.premises:
                continue
            if which.label is not None and not any(
                    which.label.lower() in j.label.lower() for j in b.justifications):
                continue
            out.append(b)
        return out

    def out_belief_ids(self) -> list[str]:
        return sorted(i for i, b in self.s.beliefs.items() if b.truth != Truth.IN)

    def upstream(self, ids: Iterable[str]) -> dict[str, Belief]:
        seen: dict[str, Belief] = {}
        stack = [i for i in ids if i in self.s.beliefs]
        while stack:
            i = stack.pop()
            if i in seen:
                continue
            seen[i] = self.s.beliefs[i]
            for j in seen[i].justifications:
                stack.extend(a for a in j.mentions() if a in self.s.beliefs)
        return seen

    def direct_dependents(self, belief_id: str) -> set[str]:
        return {b.id for b in self.s.beliefs.values()
                if any(belief_id in j.mentions() for j in b.justifications)}

    def dependent_counts(self, ids: Iterable[str]) -> dict[str, int]:
        return {i: len(self.direct_dependents(i)) for i in ids}

    def shown_belief(self, belief_id: str) -> tuple[Belief, set[str]] | None:
        found = self.get_beliefs([belief_id]).get(belief_id)
        return None if found is None else (found, self.direct_dependents(belief_id))

    def forward_reference(self, ref: str) -> tuple[list[str], list[str]] | None:
        if ref in self.s.beliefs:
            return None
        named_by = sorted(self.direct_dependents(ref))
        nogoods = sorted(n.id for n in self.s.nogoods if ref in n.members)
        return (named_by, nogoods) if named_by or nogoods else None

    def read_labelling(self) -> StoredLabels:
        # a belief without a truth label carries only :Belief, as a node left so would
        return stored_labels_of(self.s.beliefs, {i: ["Belief"] for i, b in self.s.beliefs.items()
                                                 if b.truth is None})

    def nogoods_holding(self, member_ids: Iterable[str]) -> list[Nogood]:
        ids = set(member_ids)
        return [n for n in self.s.nogoods if ids & set(n.members) and all(
            m in self.s.beliefs and self.s.beliefs[m].truth == Truth.IN for m in n.members)]

    def unresolved_nogoods_holding(self) -> list[Nogood]:
        return sorted((n for n in self.s.nogoods if n.resolution.startswith("unresolved") and all(
            m in self.s.beliefs and self.s.beliefs[m].truth == Truth.IN for m in n.members)),
            key=lambda n: n.id)

    def read_network(self) -> Network:
        rest = self.network_rest()
        rest.beliefs.update(self.s.beliefs)
        return rest

    def network_rest(self) -> Network:
        meta, repos = self.s.extra.get("network_info", ({}, {}))
        return Network({}, list(self.s.nogoods), dict(repos), dict(meta),
                       [self.s.supersedes[o] for o in sorted(self.s.supersedes)],
                       self.sources())

    def belief_count(self) -> int:
        return len(self.s.beliefs)

    def belief_pages(self) -> Iterator[list[Belief]]:
        ids = sorted(self.s.beliefs)
        for start in range(0, len(ids), 3):  # small pages: callers must not assume one
            yield [self.s.beliefs[i] for i in ids[start:start + 3]]

    def nogoods(self) -> list[Nogood]:
        return list(self.s.nogoods)

    # --- writes --------------------------------------------------------------------
    def create_beliefs(self, beliefs: Sequence[Belief]) -> None:
        for b in beliefs:
            assert b.id not in self.s.beliefs, f"duplicate {b.id}"
            self.s.beliefs[b.id] = dataclasses.replace(b, truth=None, depth=None)

    def add_justifications(self, belief_id: str, justifications: Sequence[Justification]) -> None:
        b = self.s.beliefs[belief_id]
        self.s.beliefs[belief_id] = dataclasses.replace(
            b, justifications=b.justifications + tuple(justifications)
        )

    def set_pins(self, ids: Sequence[str], *, retracted: bool, asserted: bool, reason: str,
                 at: str) -> dict[str, Pinned]:
        pinned = {i: Pinned(self.s.beliefs[i].truth == Truth.IN, self.s.beliefs[i].is_premise)
                  for i in ids if i in self.s.beliefs}
        for i in pinned:
            b = self.s.beliefs[i]
            self.s.beliefs[i] = dataclasses.replace(
                b, retracted=retracted, asserted=asserted,
                retracted_at=at if retracted else "", retract_reason=reason if retracted else "",
            )
        return pinned

    def relabel(self, seeds: Iterable[str]) -> Change:
        """The kernel's propagation (engine/tms/propagate.py), as the Neo4j store runs it."""
        change = propagate(self.reader_type(self.s), seeds)
        self.relabelled = self.relabelled.merge(change)
        return change

    def write_labels(self, labels: Mapping[str, Label]) -> None:
        for i, label in labels.items():
            if i in self.s.beliefs:
                self.s.beliefs[i] = dataclasses.replace(self.s.beliefs[i], truth=label.truth,
                                                        depth=label.depth)
        retag(FakeRegionReader(self.s), sorted(self.s.beliefs))

    def placeholder_ids(self, ids: Iterable[str]) -> set[str]:
        named = {r for b in self.s.beliefs.values() for j in b.justifications for r in j.mentions()}
        return {i for i in ids if i in named and i not in self.s.beliefs}

    def create_labelled_beliefs(self, labelled: Iterable[tuple[Belief, Label]]) -> None:
        tagged = False
        for b, label in labelled:
            self.s.beliefs[b.id] = dataclasses.replace(b, truth=label.truth, depth=label.depth)
            tagged = tagged or bool(own_tags(b.metadata))
        if tagged:
            retag(FakeRegionReader(self.s), sorted(self.s.beliefs))

    def create_nogood(self, nogood: Nogood) -> None:
        self.s.nogoods.append(nogood)

    def set_nogood_resolution(self, nogood_id: str, resolution: str) -> None:
        self.s.nogoods = [dataclasses.replace(n, resolution=resolution) if n.id == nogood_id
                          else n for n in self.s.nogoods]

    def save_network_info(self, meta: dict[str, Any], repos: dict[str, Any]) -> None:
        self.s.extra["network_info"] = (dict(meta), dict(repos))

    def reset(self) -> None:
        self.s.beliefs.clear()
        self.s.nogoods.clear()
        self.s.runs.clear()
        self.s.rounds.clear()
        self.s.proposed.clear()
        self.s.embeddings.clear()
        self.s.sources.clear()
        self.s.from_edges.clear()
        self.s.extra.pop("network_info", None)  # the meta, repos and root, as Neo4j's reset
        self.s.extra.pop("project_root", None)
        self.s.reviews.clear()
        self.s.verdicts.clear()
        self.s.marks.clear()
        self.s.supersedes.clear()
        self.s.gated.clear()
        # what hangs on beliefs and rounds goes with them; proposals and gaps stay
        self.s.answers.clear()
        self.s.citations.clear()
        self.s.repairs.clear()
        self.s.premise_stamps.clear()
        self.s.premise_verdicts.clear()
        self.s.namespaces.clear()
        self.s.pair_verdicts.clear()
        self.s.merges.clear()
        self.s.found.clear()

    # --- stage provenance ---------------------------------------------------------
    def create_run(self, run: RunRecord) -> None:
        self.s.runs.setdefault(run.id, run)

    def record_round(self, record: RoundRecord) -> None:
        if record.run_id not in self.s.runs:
            raise StoreError(f"no run '{record.run_id}'")
        self.s.rounds.append(record)

    # --- derive --------------------------------------------------------------------
    def link_proposed(self, run_id: str, round_n: int, proposed) -> None:
        if not any(r.run_id == run_id and r.round == round_n for r in self.s.rounds):
            raise StoreError(f"no round {round_n} of run '{run_id}'")
        missing = [p["id"] for p in proposed if p["id"] not in self.s.beliefs]
        if missing:
            raise StoreError(f"derive round proposes beliefs that do not exist: {missing}")
        self.s.proposed += [(run_id, round_n, dict(p)) for p in proposed]

    def derived_citing(self, ids: Iterable[str]) -> list[Belief]:
        wanted = set(ids)
        return [b for _, b in sorted(self.s.beliefs.items())
                if any(wanted.intersection(j.antecedents) for j in b.justifications)]

    def derive_provenance(self, belief_id: str) -> list[ProposedBy]:
        rounds = {(r.run_id, r.round): r for r in self.s.rounds}
        out = [ProposedBy(self.s.runs[run_id], rounds[run_id, n], kind=p["kind"],
                          mode=p["mode"], label=p["label"])
               for run_id, n, p in self.s.proposed if p["id"] == belief_id]
        return sorted(out, key=lambda p: (p.run.started_at, p.round.round))


    # --- search and stage runs ------------------------------------------------------
    def _hit(self, b: Belief) -> BeliefHit:
        return BeliefHit(b.id, b.text, b.truth or Truth.OUT, b.depth,
                         len(self.direct_dependents(b.id)))

    def search_text(self, words: Sequence[str], limit: int, include_out: bool) -> list[BeliefHit]:
        """Relevance here: how many words occur in the id or text (as a word's prefix)."""
        return [self._hit(b) for b in by_words(self.s.beliefs.values(), words, include_out)
                [:limit]]

    def search_meaning(self, vector: Sequence[float], limit: int, include_out: bool
                       ) -> list[tuple[BeliefHit, float]]:
        nearest = self.similar_beliefs(vector, limit if include_out else 2 * limit)
        hits = [(self._hit(self.s.beliefs[i]), c) for i, c in nearest]
        return [(h, c) for h, c in hits if include_out or h.truth == Truth.IN][:limit]

    def belief_hits(self, ids: Iterable[str]) -> dict[str, BeliefHit]:
        return {i: self._hit(self.s.beliefs[i]) for i in ids if i in self.s.beliefs}

    def justification_links(self, ids: Iterable[str]) -> dict[str, frozenset[str]]:
        return {i: frozenset(m for j in self.s.beliefs[i].justifications for m in j.mentions())
                for i in ids if i in self.s.beliefs}

    def neighbours(self, ids: Sequence[str], depth: int) -> dict[str, int]:
        found: dict[str, int] = {}
        seen = set(ids)
        frontier = set(ids)
        for distance in range(1, depth + 1):
            step = {r for i in frontier if i in self.s.beliefs
                    for j in self.s.beliefs[i].justifications for r in j.mentions()
                    if r in self.s.beliefs}
            step |= {b.id for b in self.s.beliefs.values()
                     if any(frontier.intersection(j.mentions()) for j in b.justifications)}
            frontier = step - seen
            seen |= frontier
            found.update((i, distance) for i in frontier)
        return found

    # --- the negatives stage (engine/negatives/records.NegativeTx) ---------------------
    def _negative(self, b: Belief) -> NegativeCandidate:
        kind, sha, at, run = self.s.extra.get("negatives", {}).get(b.id, ("", "", "", ""))
        return NegativeCandidate(b.id, b.text, kind, sha, at, run)

    def negative_candidates(self, ids: Sequence[str] | None = None) -> list[NegativeCandidate]:
        wanted = None if ids is None else set(ids)
        return [self._negative(b) for i, b in sorted(self.s.beliefs.items())
                if b.truth == Truth.IN and not self._marked(i, "Defeater")
                and b.metadata.get("source_type") not in ("challenge", "defence", "defeat")
                and (wanted is None or i in wanted)]

    def classified_negatives(self) -> list[NegativeCandidate]:
        return [c for c in self.negative_candidates() if c.kind]

    def stamp_negatives(self, stamps: Sequence[NegativeStamp]) -> int:
        for st in stamps:
            if not any(r.run_id == st.run_id and r.round == st.round for r in self.s.rounds):
                raise StoreError(f"no round {st.round} of run '{st.run_id}'")
            if st.id not in self.s.beliefs:
                raise StoreError(f"negatives verdicts name a belief that does not exist: {st.id}")
        kept = self.s.extra.setdefault("negatives", {})
        for st in stamps:
            kept[st.id] = (st.kind, st.sha256, st.at, st.run_id)
            self.s.extra.setdefault("classified", []).append(dataclasses.asdict(st))
        return len(stamps)

    def recent_stage_runs(self, limit: int) -> list[RunRecord]:
        runs = sorted(self.s.runs.values(), key=lambda r: (r.started_at, r.id), reverse=True)
        return runs[:limit]
    # --- review ------------------------------------------------------------------------
    def review_candidates(self) -> list[ReviewCandidate]:
        beliefs = self.s.beliefs
        out = []
        def held(b):  # IN by its justifications: depth >= 1 (not a premise, not asserted)
            return b.truth == Truth.IN and (b.depth or 0) > 0

        for bid, b in sorted(beliefs.items()):
            if not held(b):
                continue
            rests_on = sorted({a for j in b.justifications for a in j.antecedents
                               if a in beliefs and held(beliefs[a])})
            stamp = self.s.reviews.get(bid)
            out.append(ReviewCandidate(bid, b.depth, stamp.sha256 if stamp else "",
                                       stamp.at if stamp else "", tuple(rests_on)))
        return out

    def review_arguments(self, ids: Iterable[str]) -> dict[str, Argument]:
        beliefs = self.s.beliefs

        def part(ref: str) -> ArgumentPart:
            b = beliefs.get(ref)
            if b is None:
                return ArgumentPart(ref, "(not in the network yet)", "MISSING")
            return ArgumentPart(ref, b.text, (b.truth or Truth.OUT).value,
                                self._marked(ref, "Defeater"))

        return {i: Argument(i, b.text, b.depth, (b.truth or Truth.OUT).value, tuple(
            ArgumentJustification(j.kind.value, j.label, tuple(part(a) for a in j.antecedents),
                                  tuple(part(o) for o in j.outlist))
            for j in b.justifications))
                for i, b in ((i, beliefs.get(i)) for i in ids) if b is not None}

    def add_defeater(self, belief_id: str, position: int, defeater_id: str) -> None:
        b = self.s.beliefs.get(belief_id)
        if (b is None or not 1 <= position <= len(b.justifications)
                or defeater_id not in self.s.beliefs):
            raise StoreError(f"no justification {position} of '{belief_id}', or no belief "
                             f"'{defeater_id}'")
        js = list(b.justifications)
        j = js[position - 1]
        if defeater_id not in j.outlist:
            js[position - 1] = dataclasses.replace(j, outlist=j.outlist + (defeater_id,))
        self.s.beliefs[belief_id] = dataclasses.replace(b, justifications=tuple(js))
        self._mark(defeater_id, ["Defeater"])

    def stamp_reviews(self, stamps: Sequence[ReviewStamp]) -> None:
        missing = [s.id for s in stamps if s.id not in self.s.beliefs]
        if missing:
            raise StoreError(f"review stamps name beliefs that do not exist: {missing}")
        for stamp in stamps:
            self.s.reviews[stamp.id] = stamp

    def record_verdicts(self, run_id: str, round_n: int, verdicts: Sequence[VerdictEdge]) -> None:
        if not any(r.run_id == run_id and r.round == round_n for r in self.s.rounds):
            raise StoreError(f"no round {round_n} of run '{run_id}'")
        for v in verdicts:
            b = self.s.beliefs.get(v.belief_id)
            if b is None or not 1 <= v.position <= len(b.justifications):
                raise StoreError(f"no justification {v.position} of '{v.belief_id}'")
        self.s.verdicts.extend((run_id, round_n, v) for v in verdicts)

    # --- sampling and embeddings ----------------------------------------------------
    def premise_pool(self, topic_words: Sequence[str] = ()) -> list[tuple[str, str]]:
        words = [w.lower() for w in topic_words if w.strip()]
        return [(b.id, b.text) for _, b in sorted(self.s.beliefs.items())
                if b.truth == Truth.IN and b.is_premise and not self._marked(b.id, "Defeater")
                and (not words or any(w in b.id.lower() or w in b.text.lower() for w in words))]

    def embedding_keys(self, ids: Iterable[str]) -> dict[str, tuple[str, str]]:
        return {i: (e.sha256, e.model) for i, e in self.embeddings(ids).items()}

    def embeddings(self, ids: Iterable[str]) -> dict[str, StoredEmbedding]:
        return {i: self.s.embeddings[i] for i in ids
                if i in self.s.embeddings and i in self.s.beliefs}

    def save_embeddings(self, rows: Sequence[StoredEmbedding]) -> int:
        found = [e for e in rows if e.id in self.s.beliefs]
        for e in found:
            self.s.embeddings[e.id] = dataclasses.replace(e, vector=[float(x) for x in e.vector])
        return len(found)

    def _embedded(self, b: Belief, model: str) -> bool:
        e = self.s.embeddings.get(b.id)
        return e is not None and e.model == model and e.text == b.text

    def embedding_backlog(self, model: str, scope: Sequence[str] | None = None
                          ) -> EmbeddingBacklog:
        wanted = None if scope is None else set(scope)
        beliefs = [b for i, b in self.s.beliefs.items() if wanted is None or i in wanted]
        recorded = self.s.extra.get("embedding_model")
        return EmbeddingBacklog(model, len(beliefs),
                                sum(not self._embedded(b, model) for b in beliefs),
                                None if recorded is None else str(recorded))

    def beliefs_to_embed(self, model: str, after: str, limit: int) -> list[tuple[str, str]]:
        return [(i, b.text) for i, b in sorted(self.s.beliefs.items())
                if i > after and not self._embedded(b, model)][:limit]

    def record_embedding_model(self, model: str) -> None:
        self.s.extra["embedding_model"] = model

    def similar_beliefs(self, vector: Sequence[float], limit: int) -> list[tuple[str, float]]:
        q = [float(x) for x in vector]
        qn = sum(x * x for x in q) ** 0.5
        scored = []
        for i, e in self.embeddings(sorted(self.s.embeddings)).items():
            en = sum(x * x for x in e.vector) ** 0.5
            if len(e.vector) == len(q) and qn and en:
                cos = sum(a * b for a, b in zip(q, e.vector)) / (qn * en)
                scored.append((i, cos))
        return sorted(scored, key=lambda p: (-p[1], p[0]))[:limit]

    # --- forge ------------------------------------------------------------------------
    def sources(self) -> list[SourceRecord]:
        return [self.s.sources[p] for p in sorted(self.s.sources)]

    def save_sources(self, sources: Sequence[SourceRecord]) -> None:
        for src in sources:
            self.s.sources[src.path] = src

    def pin_to_sources(self, pins: Sequence[SourcePin]) -> int:
        found = 0
        for p in pins:
            if p.id not in self.s.beliefs or p.source not in self.s.sources:
                continue
            b = self.s.beliefs[p.id]
            self.s.beliefs[p.id] = dataclasses.replace(
                b, source=p.source, source_hash=p.source_hash, metadata=dict(p.metadata),
                updated_at=p.at)
            self.s.from_edges[p.id] = (p.source, (p.lines[0], p.lines[1]))
            found += 1
        return found

    def beliefs_from_sources(self, paths: Iterable[str]) -> list[Belief]:
        wanted = set(paths)
        return [self.s.beliefs[i] for i in sorted(self.s.from_edges)
                if self.s.from_edges[i][0] in wanted and i in self.s.beliefs]

    def unpinned_sourced_ids(self) -> list[str]:
        return sorted(i for i, b in self.s.beliefs.items()
                      if b.source and not b.source_hash and i not in self.s.from_edges)

    def hashed_unpinned_ids(self) -> list[str]:
        return sorted(i for i, b in self.s.beliefs.items()
                      if b.source and b.source_hash and i not in self.s.from_edges)

    def set_source_hashes(self, hashes: Mapping[str, str], at: str) -> int:
        found = [i for i in hashes if i in self.s.beliefs]
        for i in found:
            self.s.beliefs[i] = dataclasses.replace(self.s.beliefs[i], source_hash=hashes[i],
                                                    updated_at=at)
        return len(found)

    def project_root(self) -> str:
        return str(self.s.extra.get("project_root", ""))

    def save_project_root(self, root: str) -> None:
        self.s.extra["project_root"] = root

    def network_repos(self) -> dict[str, str]:
        _, repos = self.s.extra.get("network_info", ({}, {}))
        return {str(k): str(v) for k, v in repos.items()}

    # --- dedup and contradictions ----------------------------------------------------
    def in_belief_texts(self) -> list[tuple[str, str]]:
        return [(b.id, b.text) for _, b in sorted(self.s.beliefs.items()) if b.truth == Truth.IN]

    def nearest_beliefs(self, ids: Sequence[str], k: int, min_cosine: float
                        ) -> list[tuple[str, str, float]]:
        out = []
        for i in ids:
            if i not in self.s.embeddings:
                continue
            scored = [(j, c) for j, c in self.similar_beliefs(self.s.embeddings[i].vector, k + 1)
                      if j != i]
            out += [(i, j, c) for j, c in scored[:k]
                    if self.s.beliefs[j].truth == Truth.IN and c >= min_cosine - 1e-9]
        return out

    def sibling_groups(self, max_group: int) -> list[tuple[str, ...]]:
        named: dict[str, set[str]] = {}
        for b in self.s.beliefs.values():
            if b.truth == Truth.IN:
                for j in b.justifications:
                    for a in j.antecedents:
                        named.setdefault(a, set()).add(b.id)
        return [tuple(sorted(g)) for a, g in sorted(named.items())
                if a in self.s.beliefs and 2 <= len(g) <= max_group]

    def pair_verdicts(self, stage: str) -> list[PairVerdict]:
        return [v for (st, _, _), v in sorted(self.s.pair_verdicts.items()) if st == stage]

    def save_pair_verdicts(self, verdicts: Sequence[PairVerdict]) -> None:
        for v in verdicts:
            self.s.pair_verdicts[(v.stage, v.a, v.b)] = v

    def rewire_mentions(self, merged: str, kept: str) -> tuple[RewiredEdge, ...]:
        moved = []
        for bid, b in list(self.s.beliefs.items()):
            if bid == kept:
                continue
            js = []
            for seq, j in enumerate(b.justifications):
                for kind, refs in (("REQUIRES", j.antecedents), ("UNLESS", j.outlist)):
                    moved += [RewiredEdge(bid, seq, kind, pos) for pos, r in enumerate(refs)
                              if r == merged]
                js.append(dataclasses.replace(
                    j, antecedents=tuple(kept if r == merged else r for r in j.antecedents),
                    outlist=tuple(kept if r == merged else r for r in j.outlist)))
            self.s.beliefs[bid] = dataclasses.replace(b, justifications=tuple(js))
        return tuple(sorted(moved))

    def record_merge(self, record: MergeRecord) -> None:
        self.s.merges[record.merged] = record

    def merge_record(self, merged: str) -> MergeRecord | None:
        return self.s.merges.get(merged)

    def undo_merge(self, record: MergeRecord) -> None:
        for e in record.rewired:
            b = self.s.beliefs[e.belief]
            js = list(b.justifications)
            j = js[e.seq]
            refs = list(j.antecedents if e.kind == "REQUIRES" else j.outlist)
            if refs[e.pos] != record.kept:
                raise InvalidInput(f"cannot undo the merge of '{record.merged}'")
            refs[e.pos] = record.merged
            js[e.seq] = (dataclasses.replace(j, antecedents=tuple(refs)) if e.kind == "REQUIRES"
                         else dataclasses.replace(j, outlist=tuple(refs)))
            self.s.beliefs[e.belief] = dataclasses.replace(b, justifications=tuple(js))
        self.s.beliefs[record.merged] = dataclasses.replace(
            self.s.beliefs[record.merged], retracted=record.was_retracted,
            asserted=record.was_asserted, retracted_at=record.was_retracted_at,
            retract_reason=record.was_reason, updated_at=record.was_updated_at)
        del self.s.merges[record.merged]

    def mark_nogood_found(self, nogood_id: str, stage: str, run_id: str, round_n: int) -> None:
        self.s.found[nogood_id] = (stage, run_id, round_n)

    # --- the registry: blockers -----------------------------------------------------------
    def closed_gates(self) -> list[GatedConclusion]:
        truth = {i: b.truth for i, b in self.s.beliefs.items()}
        out = []
        for b in sorted(self.s.beliefs.values(), key=lambda b: b.id):
            if b.truth != Truth.OUT or b.retracted:
                continue
            superseder = self.s.supersedes[b.id].new if b.id in self.s.supersedes else None
            for n, j in enumerate(b.justifications, start=1):
                closers = tuple(o for o in j.outlist if truth.get(o) == Truth.IN)
                if closers and all(truth.get(a) == Truth.IN for a in j.antecedents) and not any(
                        truth.get(o) == Truth.UNDETERMINED for o in j.outlist) and not any(
                        self._marked(o, "Defeater") or o == superseder for o in closers):
                    out.append(GatedConclusion(b.id, b.text, n, closers))
        return out

    def retracted_premises(self, limit: int | None, visible_to: frozenset[str] | None = None
                           ) -> list[RetractedPremise]:
        def sees(bid: str) -> bool:
            return visible(self.s.beliefs[bid].effective_tags, visible_to)

        dependents: dict[str, set[str]] = {}
        for b in self.s.beliefs.values():
            for j in b.justifications:
                for a in j.antecedents:
                    dependents.setdefault(a, set()).add(b.id)
        rows = []
        for p in self.s.beliefs.values():
            if not (p.retracted and p.is_premise and sees(p.id)):
                continue
            seen: set[str] = set()
            stack = [p.id]
            while stack:
                for d in dependents.get(stack.pop(), ()):
                    if d not in seen and d != p.id:
                        seen.add(d)
                        stack.append(d)
            rows.append(RetractedPremise(p.id, p.text, p.retract_reason, p.retracted_at,
                                         sum(map(sees, seen))))
        rows.sort(key=lambda r: (-r.resting, r.id))
        return rows if limit is None else rows[:limit]


class FakeStore:
    """A Store whose transactions are all-or-nothing copies of in-memory state."""

    tx_type: type[FakeTx] = FakeTx

    def __init__(self) -> None:
        self.state = FakeState()
        self.writes = 0

    def init_schema(self) -> dict[str, int]:
        return {}

    def read(self, work: Callable[[FakeTx], T]) -> T:
        return work(self.tx_type(self.state.copy()))

    def write(self, work: Callable[[FakeTx], T], entry: ChangeEntry | None = None) -> T:
        draft = self.state.copy()
        seq = draft.seq + 1  # numbered as the write lock numbers them: no gaps, no repeats
        tx = self.tx_type(draft, change_seq=seq)
        result = work(tx)
        said = entry or ChangeEntry("write")
        draft.seq = seq
        draft.changes.append(LogEntry(
            seq=seq, at=f"{seq:06d}", actor=said.actor or tx.actor(), op=said.op,
            args=dict(said.args), reason=said.reason,
            went_in=tuple(sorted(tx.relabelled.went_in)),
            went_out=tuple(sorted(tx.relabelled.went_out)),
            retracted_by_nogood=tuple(tx.by_nogood)))
        self.state = draft  # only reached when work did not raise
        self.writes += 1
        return result

    def dry_run(self, work: Callable[[FakeTx], T]) -> T:
        return work(self.tx_type(self.state.copy()))

    def close(self) -> None:
        pass


class FakeGraphTx(TmsTx, ChangeLog, Editing, SearchTx, ReadingTx, RegistryTx, ProvenanceTx,
                  ArgumentsTx, ProblemsTx, GapsTx,
                  ReviewRecords, PremiseReviewTx, RepairTx, PairRecords, AskTx, NegativeTx,
                  VectorTx, SourceRecords, AgentTx, ProposalTx, HealthTx, Protocol):
    """engine.graph.GraphTx but for the query pack (PackTx: Cypher files users run, tested
    on Neo4j, tests/integration/test_query_pack.py) and history's before-images
    (HistoryRecords, tests/integration/test_history_property.py); tests/unit/
    test_store_protocol.py checks that no other part is left out."""


# mypy checks that the fake implements every part it claims (tests/fakes.py is in its files)
_TX: type[FakeGraphTx] = FakeTx
