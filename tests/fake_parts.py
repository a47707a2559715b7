"""The parts of the in-memory transaction (tests/fakes.FakeTx) that the stages and the
reading room declared as protocols of their own: reading (compact, ask, impact), repair,
ask's answers, premise review, other agents' namespaces and proposals. Each part reads and
writes the transaction's draft `self.s` (tests/fake_state.FakeState) and answers what its
Neo4j part answers (adapters/neo4j/*_tx.py); tests/contract/test_store_contract.py runs
the same expectations on both.
"""
from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Collection, Iterable, Sequence
from types import MappingProxyType
from typing import Any

from engine.agents.namespace import prefix
from engine.agents.records import AgentTx, Digest, NamespaceRecord
from engine.ask.records import AskTx, CitedBelief, StaleCitation
from engine.errors import StoreError
from engine.model import Belief, Truth
from engine.proposals.records import Decision, Proposal, ProposalTx, Status
from engine.reading.records import (
    NetworkCounts,
    ReadingTx,
    Row,
    Section,
    SectionRows,
    SummaryCover,
    VisibleNetwork,
)
from engine.repair.records import DefeatedRow, Finding, Gap, RepairEdge, RepairTx
from engine.review_premises.records import (
    PremiseCandidate,
    PremisePin,
    PremiseReviewTx,
    PremiseStamp,
    PremiseVerdictEdge,
    lines_of,
)
from engine.sources.records import SourceRecord
from engine.tms.access import visible
from tests.fake_state import FakeState

CHANGE_LOG_WINDOW = 1000  # the entries compact's CHANGES section looks back over


class FakePart:
    """What every part of FakeTx shares: the draft, and how a belief reads in Cypher's
    terms (its truth label, its marker labels)."""

    s: FakeState
    change_seq: int = 0  # the seq this write's entry will have (0 outside a write)

    def _truth(self, belief_id: str) -> str:
        """'IN', 'OUT' or 'UNDETERMINED', as the queries' CASE over the labels says it."""
        truth = self.s.beliefs[belief_id].truth
        return (truth or Truth.OUT).value

    def _is_in(self, belief_id: str) -> bool:
        return belief_id in self.s.beliefs and self.s.beliefs[belief_id].truth == Truth.IN

    def _marked(self, belief_id: str, label: str) -> bool:
        return label in self.s.marks.get(belief_id, frozenset())

    def _mark(self, belief_id: str, labels: Iterable[str]) -> None:
        self.s.marks[belief_id] = self.s.marks.get(belief_id, frozenset()) | frozenset(labels)

    def _round_exists(self, run_id: str, round_n: int) -> bool:
        return any(r.run_id == run_id and r.round == round_n for r in self.s.rounds)

    def _dependents(self, belief_id: str) -> set[str]:
        """The beliefs with a justification naming `belief_id` as an antecedent."""
        return {b.id for b in self.s.beliefs.values()
                if any(belief_id in j.antecedents for j in b.justifications)}


def by_words(beliefs: Iterable[Belief], words: Sequence[str], include_out: bool
             ) -> list[Belief]:
    """Beliefs whose id or text has a word starting with one of `words`, the most words
    first, then by id: the fake's stand-in for the full-text index."""
    wanted = [w.lower() for w in words if w.strip()]
    scored = []
    for b in beliefs:
        if not include_out and b.truth != Truth.IN:
            continue
        tokens = re.findall(r"[a-z0-9]+", f"{b.id} {b.text}".lower())
        score = sum(any(t.startswith(w) for t in tokens) for w in wanted)
        if score:
            scored.append((-score, b.id, b))
    return [b for _, _, b in sorted(scored, key=lambda s: (s[0], s[1]))]


def _deepest_first(b: Belief) -> tuple[int, str]:
    return (-(b.depth if b.depth is not None else -1), b.id)


def _first(rows: list[Row], limit: int, source: str = "") -> SectionRows:
    return SectionRows(len(rows), tuple(rows[:limit]), source=source)


class FakeReading(FakePart):
    """engine/reading/records.ReadingTx (adapters/neo4j/reading_tx.py)."""

    def section_rows(self, section: Section, scope: Sequence[str] | None, limit: int
                     ) -> SectionRows:
        wanted = None if scope is None else set(scope)
        beliefs = [b for i, b in sorted(self.s.beliefs.items()) if wanted is None or i in wanted]
        if section is Section.NOGOODS:
            return _first(self._nogood_rows(wanted), limit)
        if section is Section.CHANGES:
            if self.s.changes:
                return _first(self._went_out_rows(wanted), limit, "change log")
            retracted = sorted((b for b in beliefs if b.retracted and b.truth != Truth.IN),
                               key=lambda b: b.id)
            retracted.sort(key=lambda b: b.retracted_at, reverse=True)
            return _first([Row(b.id, b.text, "OUT", b.depth, (
                f"retracted {b.retracted_at[:10]}"
                f"{': ' + b.retract_reason if b.retract_reason else ''}").strip())
                for b in retracted], limit, "retractions")
        if section is Section.GATED:
            return _first(self._gated_rows(beliefs), limit)
        if section is Section.PREMISES:
            premises = [b for b in beliefs if b.truth == Truth.IN and b.is_premise
                        and not self._marked(b.id, "Defeater")]
            direct = {b.id: sum(j.antecedents.count(b.id) for c in self.s.beliefs.values()
                                for j in c.justifications) for b in premises}
            premises.sort(key=lambda b: (-direct[b.id], b.id))
            return _first([Row(b.id, b.text, "IN", b.depth, "") for b in premises], limit)
        if section is Section.DEEPEST:
            deep = sorted((b for b in beliefs if b.truth == Truth.IN
                           and b.depth is not None and b.depth >= 1), key=_deepest_first)
            return _first([Row(b.id, b.text, "IN", b.depth, "") for b in deep], limit)
        return _first(self._defeated_rows(beliefs), limit)

    def _nogood_rows(self, wanted: set[str] | None) -> list[Row]:
        found = []
        for n in self.s.nogoods:
            if wanted is not None and not wanted & set(n.members):
                continue
            holds = all(self._is_in(m) for m in n.members)
            state = "holds" if holds else "resolved" if n.resolution else "open"
            found_by = self.s.found.get(n.id, ("",))[0]
            note = ", ".join(p for p in (f"found by {found_by}" if found_by else "",
                                         n.resolution) if p)
            found.append((not holds, n.discovered, n.id,
                          Row(n.id, ", ".join(n.members), state, None, note)))
        found.sort(key=lambda f: f[2])
        found.sort(key=lambda f: f[1], reverse=True)
        found.sort(key=lambda f: f[0])
        return [f[3] for f in found]

    def _went_out_rows(self, wanted: set[str] | None) -> list[Row]:
        entries = sorted((e for e in self.s.changes if e.went_out),
                         key=lambda e: e.seq, reverse=True)[:CHANGE_LOG_WINDOW]
        latest: dict[str, Any] = {}
        for e in entries:  # newest first: the first entry naming a belief is its latest
            for bid in e.went_out:
                latest.setdefault(bid, e)
        rows = []
        for bid, e in latest.items():
            b = self.s.beliefs.get(bid)
            if b is None or b.truth == Truth.IN or (wanted is not None and bid not in wanted):
                continue
            why = (f"{e.op or 'change'} {e.at[:10]}" f"{' by ' + e.actor if e.actor else ''}"
                   f"{': ' + e.reason if e.reason else ''}").strip()
            rows.append((-e.seq, bid, Row(bid, b.text, "OUT", b.depth, why)))
        return [r for _, _, r in sorted(rows, key=lambda r: (r[0], r[1]))]

    def _gated_rows(self, beliefs: Sequence[Belief]) -> list[Row]:
        rows = []
        for b in beliefs:
            if b.truth == Truth.IN or b.retracted:
                continue
            gates = sorted({g for j in b.justifications
                            if all(self._is_in(a) for a in j.antecedents)
                            for g in j.outlist
                            if self._is_in(g) and not self._marked(g, "Defeater")})
            if gates:
                rows.append((b, Row(b.id, b.text, "OUT", b.depth,
                                    "closed by " + ", ".join(gates))))
        return [r for b, r in sorted(rows, key=lambda r: _deepest_first(r[0]))]

    def _defeated_rows(self, beliefs: Sequence[Belief]) -> list[Row]:
        rows = []
        for b in beliefs:
            defeaters = [d for j in b.justifications for d in j.outlist
                         if self._is_in(d) and self._marked(d, "Defeater")]
            if not defeaters:
                continue
            d = min(defeaters)
            why = ("challenged: " if self._marked(d, "Challenge") else
                   "answered by a defence: " if self._marked(d, "Defence") else
                   "defeated by review: ")
            rows.append(((b.truth == Truth.IN, *_deepest_first(b)),
                         Row(b.id, b.text, self._truth(b.id), b.depth,
                             why + self.s.beliefs[d].text)))
        return [r for _, r in sorted(rows, key=lambda r: r[0])]

    def summary_covers(self, scope: Sequence[str] | None) -> list[SummaryCover]:
        wanted = None if scope is None else set(scope)
        out = []
        for sid, s in sorted(self.s.beliefs.items()):
            if s.truth != Truth.IN or not self._marked(sid, "Summary"):
                continue
            covered = sorted({a for j in s.justifications for a in j.antecedents
                              if a in self.s.beliefs})
            if covered and (wanted is None or sid in wanted or wanted & set(covered)):
                out.append(SummaryCover(sid, s.text, s.depth, tuple(covered)))
        return out

    def impacts(self, ids: Iterable[str], visible_to: frozenset[str] | None = None
                ) -> dict[str, int]:
        out = {}
        for bid in sorted(set(ids)):
            if bid not in self.s.beliefs:
                continue
            seen, stack = {bid}, [bid]
            while stack:
                for d in self._dependents(stack.pop()):
                    if d not in seen:
                        seen.add(d)
                        stack.append(d)
            seen.discard(bid)
            out[bid] = sum(visible(self.s.beliefs[d].effective_tags, visible_to) for d in seen)
        return out

    def topic_ids(self, words: Sequence[str], limit: int) -> list[str]:
        return [b.id for b in by_words(self.s.beliefs.values(), words, include_out=True)[:limit]]

    def around_ids(self, belief_id: str, steps: int) -> list[str] | None:
        if belief_id not in self.s.beliefs:
            return None
        up = {b.id: {m for j in b.justifications for m in j.mentions() if m in self.s.beliefs}
              for b in self.s.beliefs.values()}
        down: dict[str, set[str]] = {}
        for b, named in up.items():
            for m in named:
                down.setdefault(m, set()).add(b)
        found = {belief_id}
        for step in (up, down):
            frontier = {belief_id}
            for _ in range(steps):
                frontier = {n for f in frontier for n in step.get(f, ())} - found
                found |= frontier
        return sorted(found)

    def network_counts(self) -> NetworkCounts:
        in_count = sum(b.truth == Truth.IN for b in self.s.beliefs.values())
        return NetworkCounts(len(self.s.beliefs), in_count, len(self.s.beliefs) - in_count,
                             len(self.s.nogoods))

    def visible_network(self, visible_to: frozenset[str]) -> VisibleNetwork:
        ids = frozenset(i for i, b in self.s.beliefs.items()
                        if visible(b.effective_tags, visible_to))
        nogoods = sum(all(visible(self.s.beliefs[m].effective_tags, visible_to)
                          for m in n.members if m in self.s.beliefs) for n in self.s.nogoods)
        return VisibleNetwork(ids, sum(self._is_in(i) for i in ids), nogoods)

    def mark_summary(self, belief_id: str) -> bool:
        if belief_id not in self.s.beliefs:
            return False
        self._mark(belief_id, ["Summary"])
        return True


def _listed(value: object) -> list[object]:
    return list(value) if isinstance(value, (list, tuple)) else []


def _json_list(text: Any) -> list[Any]:
    try:
        value = json.loads(text) if text else []
    except (TypeError, ValueError):
        return []
    return value if isinstance(value, list) else []


class FakeRepair(FakePart):
    """engine/repair/records.RepairTx (adapters/neo4j/repair_tx.py)."""

    def defeated_rows(self) -> list[DefeatedRow]:
        rows = []
        for b in sorted(self.s.beliefs.values(), key=lambda b: b.id):
            if b.retracted:
                continue
            for position, j in enumerate(b.justifications, start=1):
                for d in ([] if j.gate else j.outlist):
                    if (self._is_in(d) and self._marked(d, "Defeater")
                            and not self._marked(d, "Defence")):
                        defeater = self.s.beliefs[d]
                        rows.append(DefeatedRow(b.id, position, d, defeater.text,
                                                dict(defeater.metadata),
                                                self._marked(d, "Challenge"),
                                                len(self._dependents(b.id))))
        return rows

    def repaired_defeaters(self) -> set[str]:
        return {str(d) for _, _, e in self.s.repairs
                for d in _listed(e.fields.get("defeaters"))}

    def review_findings(self, keys: Sequence[tuple[str, int]]) -> dict[tuple[str, int], Finding]:
        out = {}
        for belief, position in keys:
            b = self.s.beliefs.get(belief)
            if b is None or len(b.justifications) < position:
                continue
            edges = [v.fields for _, _, v in self.s.verdicts
                     if v.belief_id == belief and v.position == position
                     and v.fields.get("valid") is False]
            if not edges:
                out[(belief, position)] = Finding()
                continue
            e = max(edges, key=lambda f: str(f.get("at") or ""))
            out[(belief, position)] = Finding(
                str(e.get("reason_type") or ""), str(e.get("missing_property") or ""),
                str(e.get("comment") or ""),
                tuple(f for f in _json_list(e.get("antecedent_findings")) if isinstance(f, dict)))
        return out

    def record_repairs(self, run_id: str, round_n: int, edges: Sequence[RepairEdge]) -> None:
        for on_justification in (True, False):
            rows = [e for e in edges if (e.position is not None) == on_justification]
            if not rows:
                continue
            if not self._round_exists(run_id, round_n):
                raise StoreError(f"no round {round_n} of run '{run_id}' to record repairs in")
            found = [e for e in rows if e.belief in self.s.beliefs and (
                e.position is None or len(self.s.beliefs[e.belief].justifications) >= e.position)]
            if len(found) != len(rows):
                raise StoreError(f"round {round_n} of run '{run_id}' repaired what does not "
                                 f"exist ({len(found)} of {len(rows)} found)")
            self.s.repairs.extend((run_id, round_n, e) for e in rows)

    def add_gaps(self, run_id: str, round_n: int, gaps: Sequence[Gap], at: str) -> None:
        self.s.gaps.extend((Gap(g.text, g.for_belief, g.justification, at, run_id), round_n)
                           for g in gaps)

    def gaps(self, limit: int) -> tuple[list[Gap], int]:
        gaps = sorted((g for g, _ in self.s.gaps), key=lambda g: g.for_belief)
        gaps.sort(key=lambda g: g.at, reverse=True)
        return [dataclasses.replace(g, truth=self._truth(g.for_belief)
                                    if g.for_belief in self.s.beliefs else "MISSING")
                for g in gaps[:limit]], len(gaps)


class FakeAsk(FakePart):
    """engine/ask/records.AskTx (adapters/neo4j/ask_tx.py)."""

    def record_answer(self, run_id: str, round_n: int, *, question: str, status: str,
                      answer: str, citations: Sequence[CitedBelief], at: str) -> int:
        if not self._round_exists(run_id, round_n):
            raise StoreError(f"no ask round {run_id} #{round_n} to record the answer on")
        self.s.answers[(run_id, round_n)] = (question, status, answer)
        cited = [c for c in citations if c.id in self.s.beliefs]
        self.s.citations.extend((run_id, round_n, c, at) for c in cited)
        return len(cited)

    def stale_citations(self) -> list[StaleCitation]:
        rows = []
        for run_id, round_n, c, _ in self.s.citations:
            run = self.s.runs.get(run_id)
            b = self.s.beliefs.get(c.id)
            if run is None or run.stage != "ask" or b is None:
                continue
            now = self._truth(c.id)
            if now != c.truth or b.text != c.text:
                question = self.s.answers.get((run_id, round_n), ("",))[0]
                rows.append(StaleCitation(run_id, run.started_at, question, c.id, c.role,
                                          c.truth, now, b.text != c.text))
        rows.sort(key=lambda r: (r.run_id, r.id))
        rows.sort(key=lambda r: r.started_at, reverse=True)
        return rows


class FakePremiseReview(FakePart):
    """engine/review_premises/records.PremiseReviewTx (adapters/neo4j/premise_review_tx.py)."""

    def premise_review_candidates(self, ids: Sequence[str] | None = None
                                  ) -> list[PremiseCandidate]:
        wanted = None if ids is None else set(ids)
        out = []
        for bid, b in sorted(self.s.beliefs.items()):
            if (wanted is not None and bid not in wanted) or b.truth != Truth.IN \
                    or not b.is_premise or self._marked(bid, "Defeater"):
                continue
            path, lines = self.s.from_edges.get(bid, (b.source, None))
            if not path:
                continue
            stamp = self.s.premise_stamps.get(bid)
            out.append(PremiseCandidate(
                bid, b.text, path, b.source_hash,
                lines_of(lines) or lines_of(b.metadata.get("lines")), dict(b.metadata),
                stamp.sha256 if stamp else "", stamp.at if stamp else ""))
        return out

    def repin_premises(self, pins: Sequence[PremisePin]) -> int:
        found = [p for p in pins if p.id in self.s.beliefs]
        for p in found:
            self.s.sources.setdefault(p.source, SourceRecord(p.source, p.source_hash, p.size, ""))
            self.s.from_edges[p.id] = (p.source, p.lines)
            self.s.beliefs[p.id] = dataclasses.replace(
                self.s.beliefs[p.id], source=p.source, source_hash=p.source_hash,
                metadata=MappingProxyType(dict(p.metadata)), updated_at=p.at)
        return len(found)

    def stamp_premise_reviews(self, stamps: Sequence[PremiseStamp]) -> int:
        found = [s for s in stamps if s.id in self.s.beliefs]
        if len(found) != len(stamps):
            raise StoreError(f"premise review stamps name beliefs that do not exist "
                             f"({len(found)} of {len(stamps)} found)")
        for s in found:
            self.s.premise_stamps[s.id] = s
        return len(found)

    def record_premise_verdicts(self, run_id: str, round_n: int,
                                verdicts: Sequence[PremiseVerdictEdge]) -> int:
        if not verdicts:
            return 0
        if not self._round_exists(run_id, round_n):
            raise StoreError(f"no round {round_n} of run '{run_id}' to record verdicts in")
        found = [v for v in verdicts if v.belief_id in self.s.beliefs]
        if len(found) != len(verdicts):
            raise StoreError(f"round {round_n} of run '{run_id}' judged premises that do not "
                             f"exist ({len(found)} of {len(verdicts)} found)")
        self.s.premise_verdicts.extend((run_id, round_n, v) for v in found)
        return len(found)


class FakeAgents(FakePart):
    """engine/agents/records.AgentTx (adapters/neo4j/agent_tx.py)."""

    def namespace_records(self) -> list[NamespaceRecord]:
        out = []
        for name, record in sorted(self.s.namespaces.items()):
            ids = [i for i in self.s.beliefs if i.startswith(prefix(name))]
            out.append(dataclasses.replace(
                record, beliefs=len(ids), in_count=sum(self._is_in(i) for i in ids),
                active=self._is_in(f"{name}:active")))
        return out

    def save_namespace(self, record: NamespaceRecord) -> None:
        # kept as the graph keeps it: meta and repos as JSON objects ({} for none)
        self.s.namespaces[record.name] = NamespaceRecord(
            record.name, record.file, record.imported_at, record.synced_at,
            dict(record.meta or {}), dict(record.repos or {}))

    def namespace_digests(self, name: str) -> dict[str, Digest]:
        return {i: Digest(i, str(b.metadata.get("agent_sha256", "")), b.retracted,
                          b.retract_reason, bool(b.metadata.get("agent_retracted")))
                for i, b in self.s.beliefs.items() if i.startswith(prefix(name))}

    def namespace_ids(self, name: str) -> list[str]:
        return sorted(i for i in self.s.beliefs if i.startswith(prefix(name)))

    def delete_nogoods(self, ids: Sequence[str]) -> None:
        gone = set(ids)
        self.s.nogoods = [n for n in self.s.nogoods if n.id not in gone]

    def redefine_beliefs(self, beliefs: Sequence[Belief],
                         same_support: Collection[str] = ()) -> None:
        keep = set(same_support)
        for new in beliefs:
            b = self.s.beliefs.get(new.id)
            if b is None:
                continue
            self.s.beliefs[new.id] = dataclasses.replace(
                b, text=new.text, source=new.source, source_url=new.source_url,
                source_hash=new.source_hash, date=new.date, metadata=new.metadata,
                extra=new.extra, updated_at=new.updated_at,
                justifications=b.justifications if new.id in keep else new.justifications)


class FakeProposals(FakePart):
    """engine/proposals/records.ProposalTx (adapters/neo4j/proposal_tx.py)."""

    def next_proposal_number(self) -> int:
        return max((p.n for p in self.s.proposals.values()), default=0) + 1

    def save_proposal(self, proposal: Proposal) -> None:
        if proposal.id in self.s.proposals:
            raise StoreError(f"proposal '{proposal.id}' exists")
        self.s.proposals[proposal.id] = proposal

    def proposals(self, status: Status | None) -> list[Proposal]:
        return sorted((p for p in self.s.proposals.values()
                       if status is None or p.status == status), key=lambda p: p.n)

    def proposal(self, proposal_id: str) -> Proposal | None:
        return self.s.proposals.get(proposal_id)

    def supersede_pending(self, target: str, newer: str, at: str) -> list[str]:
        older = [p for p in self.proposals(Status.PENDING) if p.target == target and p.id != newer]
        for p in older:
            self.s.proposals[p.id] = dataclasses.replace(
                p, status=Status.SUPERSEDED, superseded_by=newer, decided_at=at)
        return [p.id for p in older]

    def decide_proposal(self, proposal_id: str, decision: Decision) -> None:
        p = self.s.proposals.get(proposal_id)
        if p is None:
            return
        accepted = decision.status == Status.ACCEPTED
        self.s.proposals[proposal_id] = dataclasses.replace(
            p, status=decision.status, decided_by=decision.by, decided_at=decision.at,
            decision_reason=decision.reason, forced=decision.forced,
            drift=tuple(decision.drift), change_seq=self.this_change_seq() if accepted else None)

    def this_change_seq(self) -> int:
        return self.change_seq


# The protocol each part implements, checked by mypy (as the Neo4j parts' are).
_READING: type[ReadingTx] = FakeReading
_REPAIR: type[RepairTx] = FakeRepair
_ASK: type[AskTx] = FakeAsk
_PREMISE_REVIEW: type[PremiseReviewTx] = FakePremiseReview
_AGENTS: type[AgentTx] = FakeAgents
_PROPOSALS: type[ProposalTx] = FakeProposals
