"""The store contract for the parts the stages and the reading room declared of their own
(ReadingTx, RepairTx, AskTx, PremiseReviewTx, AgentTx, ProposalTx): the same expectations on
the in-memory FakeStore and on the real Neo4jStore, so compact, repair, ask, premise review,
namespaces and proposals tested on the fake behave the same on Neo4j."""
from __future__ import annotations

import pytest

from engine import tms
from engine.agents.records import Digest, NamespaceRecord
from engine.ask.records import CitedBelief, StaleCitation
from engine.change_records import LogQuery
from engine.errors import StoreError
from engine.memory import dialectic
from engine.memory.summaries import summarize
from engine.model import Belief, Justification, Nogood
from engine.proposals.records import Decision, Impact, Proposal, Snapshot, Status
from engine.reading.ranking import rank_in
from engine.reading.records import Section
from engine.repair.records import DefeatedRow, Finding, Gap, RepairEdge
from engine.review.records import VerdictEdge
from engine.review_premises.records import PremisePin, PremiseStamp, PremiseVerdictEdge
from engine.sources.records import SourceRecord
from engine.stages.provenance import RoundRecord, RunRecord
J = tms.make_justifications
AT = "2026-01-01T00:00:00Z"


def reading_network(store) -> None:
    tms.add(store, "a", "the cache is warm")
    tms.add(store, "b", "the cache holds hot keys")
    tms.add(store, "h", "the cache is being flushed")
    tms.add(store, "c", "reads are fast", J(["a"]))
    tms.add(store, "d", "reads stay fast under load", J(["c", "b"]))
    tms.add(store, "g", "writes are fast", J(["a"], unless=["h"]))  # OUT: h closes its gate
    tms.retract(store, "b", "keys went cold")  # d goes OUT with it


def a_round(store, run_id: str, stage: str) -> None:
    def write(tx):
        tx.create_run(RunRecord(run_id, "fake:scripted", AT, stage=stage))
        tx.record_round(RoundRecord(run_id, 1, "p" * 64, stage=stage, at=AT))

    store.write(write)


def rows(store, section: Section, scope=None, limit: int = 10):
    found = store.read(lambda tx: tx.section_rows(section, scope, limit))
    return found.total, [(r.id, r.truth, r.note) for r in found.rows], found.source


def test_compact_sections_in_their_order(either):
    reading_network(either)
    either.write(lambda tx: [tx.create_nogood(n) for n in (
        Nogood("ng-open", ("a", "b"), "2026-01-02T00:00:00Z"),
        Nogood("ng-holds", ("a", "h"), "2026-01-01T00:00:00Z"))])
    assert rows(either, Section.NOGOODS) == (2, [("ng-holds", "holds", ""),
                                                 ("ng-open", "open", "")], "")
    assert rows(either, Section.NOGOODS, ["b"]) == (1, [("ng-open", "open", "")], "")
    # IN premises by how many justifications name them: a (c and g), then h
    assert rows(either, Section.PREMISES) == (2, [("a", "IN", ""), ("h", "IN", "")], "")
    assert rows(either, Section.PREMISES, limit=1) == (2, [("a", "IN", "")], "")
    assert rows(either, Section.DEEPEST) == (1, [("c", "IN", "")], "")
    assert rows(either, Section.GATED) == (1, [("g", "OUT", "closed by h")], "")
    total, changed, source = rows(either, Section.CHANGES)
    assert (total, [i for i, _, _ in changed], source) == (2, ["b", "d"], "change log")
    assert all(note.startswith("retract ") and note.endswith(": keys went cold")
               for _, _, note in changed)
    assert rows(either, Section.CHANGES, ["d"])[:2] == (1, [changed[1]])
    assert rows(either, Section.DEFEATED) == (0, [], "")


def test_defeated_beliefs_and_what_repair_reads_of_them(either):
    reading_network(either)
    tms.add(either, "e", "reads are cheap", J(["c"]))
    tms.add(either, "df", "review found the reads uncached")

    def defeat(tx):
        tx.add_defeater("c", 1, "df")
        tx.relabel(["c"])

    either.write(defeat)
    dialectic.challenge(either, "g", "writes queue behind flushes")
    assert rows(either, Section.DEFEATED) == (2, [
        ("c", "OUT", "defeated by review: review found the reads uncached"),
        ("g", "OUT", "challenged: writes queue behind flushes")], "")
    defeated = either.read(lambda tx: tx.defeated_rows())
    by_belief = {r.belief: r for r in defeated}
    assert by_belief["c"] == DefeatedRow("c", 1, "df", "review found the reads uncached", {},
                                         False, 2)  # d and e rest on c
    assert by_belief["g"].challenge and by_belief["g"].position == 1
    assert sorted(by_belief) == ["c", "g"]


def test_summaries_impact_scopes_and_counts(either):
    reading_network(either)
    assert either.read(lambda tx: tx.impacts(["a", "b", "zz"])) == {"a": 3, "b": 1}
    summarize(either, "sum-1", "the cache makes reads fast", ["a", "c"])
    (cover,) = either.read(lambda tx: tx.summary_covers(None))
    assert (cover.id, cover.covered) == ("sum-1", ("a", "c"))
    assert either.read(lambda tx: tx.summary_covers(["c"])) == [cover]
    assert either.read(lambda tx: tx.summary_covers(["h"])) == []
    assert either.read(lambda tx: tx.around_ids("c", 1)) == ["a", "c", "d", "sum-1"]
    assert either.read(lambda tx: tx.around_ids("g", 1)) == ["a", "g", "h"]
    assert either.read(lambda tx: tx.around_ids("zz", 1)) is None
    assert [r.id for r in either.read(lambda tx: rank_in(tx, ["flushed"], include_out=True)
                                      ).ranked] == ["h"]
    counts = either.read(lambda tx: tx.network_counts())
    assert (counts.beliefs, counts.in_, counts.out, counts.nogoods) == (7, 4, 3, 0)
    seen = either.read(lambda tx: tx.visible_network(frozenset()))
    assert (len(seen.ids), seen.in_count, seen.nogoods) == (7, 4, 0)
    assert either.write(lambda tx: tx.mark_summary("zz")) is False


def test_review_findings_repairs_and_gaps(either):
    reading_network(either)
    a_round(either, "run-r", "review")
    verdicts = [VerdictEdge("c", 1, {"valid": False, "at": "2026-01-01T00:00:01Z",
                                     "reason_type": "gap", "comment": "older"}),
                VerdictEdge("c", 1, {"valid": False, "at": "2026-01-01T00:00:02Z",
                                     "reason_type": "non_sequitur", "comment": "latest",
                                     "antecedent_findings":
                                         '[{"id": "a", "establishes": "warmth"}]'}),
                VerdictEdge("d", 1, {"valid": True, "at": "2026-01-01T00:00:03Z"})]
    either.write(lambda tx: tx.record_verdicts("run-r", 1, verdicts))
    assert either.read(lambda tx: tx.review_findings([("c", 1), ("d", 1), ("c", 2), ("zz", 1)])
                       ) == {("c", 1): Finding("non_sequitur", "", "latest",
                                               ({"id": "a", "establishes": "warmth"},)),
                             ("d", 1): Finding()}
    a_round(either, "run-p", "repair")
    edges = [RepairEdge("c", 1, {"action": "link", "defeaters": ["df"]}),
             RepairEdge("d", None, {"action": "soften"})]
    either.write(lambda tx: tx.record_repairs("run-p", 1, edges))
    assert either.read(lambda tx: tx.repaired_defeaters()) == {"df"}
    with pytest.raises(StoreError):
        either.write(lambda tx: tx.record_repairs("run-p", 1, [RepairEdge("c", 5)]))
    with pytest.raises(StoreError):
        either.write(lambda tx: tx.record_repairs("run-none", 1, edges))
    either.write(lambda tx: tx.add_gaps("run-p", 1, [Gap("the cache's size", "c", 1)],
                                        "2026-01-01T00:00:01Z"))
    either.write(lambda tx: tx.add_gaps("run-p", 1, [Gap("who flushes it", "zz", 1)],
                                        "2026-01-01T00:00:02Z"))
    newest, total = either.read(lambda tx: tx.gaps(1))
    assert total == 2 and newest == [Gap("who flushes it", "zz", 1, "2026-01-01T00:00:02Z",
                                         "run-p", "MISSING")]
    both, _ = either.read(lambda tx: tx.gaps(5))
    assert [(g.for_belief, g.truth) for g in both] == [("zz", "MISSING"), ("c", "IN")]


def test_ask_answers_go_stale_when_a_cited_belief_changes(either):
    reading_network(either)
    a_round(either, "run-a", "ask")
    cited = [CitedBelief("c", "support", "IN", "reads are fast"),
             CitedBelief("zz", "support", "IN", "not there")]
    assert either.write(lambda tx: tx.record_answer(
        "run-a", 1, question="are reads fast?", status="answered", answer="yes",
        citations=cited, at=AT)) == 1
    assert either.write(lambda tx: tx.record_answer(
        "run-a", 1, question="are reads fast?", status="unknown", answer="", citations=[],
        at=AT)) == 0  # an answer citing nothing is recorded too
    assert either.read(lambda tx: tx.stale_citations()) == []
    tms.retract(either, "a", "cold start")
    assert either.read(lambda tx: tx.stale_citations()) == [StaleCitation(
        "run-a", AT, "are reads fast?", "c", "support", "IN", "OUT", False)]
    with pytest.raises(StoreError):
        either.write(lambda tx: tx.record_answer("run-none", 1, question="q", status="s",
                                                 answer="", citations=[], at=AT))


def test_premise_review_candidates_pins_and_stamps(either):
    reading_network(either)
    tms.add(either, "p", "the cache holds 512 keys", source="src/cache.py")
    (p,) = [c for c in either.read(lambda tx: tx.premise_review_candidates())]
    assert (p.id, p.source, p.lines, p.review_sha256) == ("p", "src/cache.py", None, "")
    pin = PremisePin("p", "src/cache.py", "f" * 64, 300, (2, 3),
                     {"quote": "KEYS = 512", "lines": [2, 3]}, "2026-01-01T00:00:01Z")
    assert either.write(lambda tx: tx.repin_premises([pin])) == 1
    assert either.read(lambda tx: tx.sources()) == [
        SourceRecord("src/cache.py", "f" * 64, 300, "", ())]
    stamp = PremiseStamp("p", "2026-01-01T00:00:02Z", "s" * 64, "run-q", verified=True)
    assert either.write(lambda tx: tx.stamp_premise_reviews([stamp])) == 1
    (p,) = either.read(lambda tx: tx.premise_review_candidates(["p", "a"]))
    assert (p.source_hash, p.lines, p.metadata["quote"]) == ("f" * 64, (2, 3), "KEYS = 512")
    assert (p.review_sha256, p.reviewed_at) == ("s" * 64, "2026-01-01T00:00:02Z")
    with pytest.raises(StoreError):
        either.write(lambda tx: tx.stamp_premise_reviews([PremiseStamp("zz", AT, "", "")]))
    a_round(either, "run-q", "review")
    assert either.write(lambda tx: tx.record_premise_verdicts(
        "run-q", 1, [PremiseVerdictEdge("p", {"verdict": "confirmed"})])) == 1
    with pytest.raises(StoreError):
        either.write(lambda tx: tx.record_premise_verdicts(
            "run-q", 1, [PremiseVerdictEdge("zz", {})]))


def test_namespaces_their_digests_and_a_redefinition(either):
    tms.add(either, "peer:active", "peer's memory is on")
    tms.add(either, "peer:x", "peer says the cache is warm", J(["peer:active"]),
            metadata={"agent_sha256": "abc"})
    tms.add(either, "ours", "the cache is warm")
    either.write(lambda tx: tx.save_namespace(NamespaceRecord("peer", "peer.json", AT)))
    (record,) = either.read(lambda tx: tx.namespace_records())
    assert record == NamespaceRecord("peer", "peer.json", AT, "", {}, {}, 2, 2, True)
    assert either.read(lambda tx: tx.namespace_ids("peer")) == ["peer:active", "peer:x"]
    assert either.read(lambda tx: tx.namespace_digests("peer"))["peer:x"] == Digest(
        "peer:x", "abc", False, "", False)
    was = either.read(lambda tx: tx.get_beliefs(["peer:x"]))["peer:x"]
    new = Belief("peer:x", "peer says the cache is cold", (Justification(("ours",)),),
                 metadata={"agent_sha256": "def"}, updated_at="2026-01-02T00:00:00Z")
    either.write(lambda tx: tx.redefine_beliefs([new]))
    now = either.read(lambda tx: tx.get_beliefs(["peer:x"]))["peer:x"]
    assert (now.text, now.justifications[0].antecedents) == (new.text, ("ours",))
    assert now.truth == was.truth  # labels are the caller's to recompute
    either.write(lambda tx: tx.create_nogood(Nogood("peer:ng", ("peer:x", "ours"))))
    either.write(lambda tx: tx.delete_nogoods(["peer:ng"]))
    assert either.read(lambda tx: tx.nogoods()) == []


def proposal(n: int, target: str = "a") -> Proposal:
    return Proposal(f"prop-{n}", n, "retract", {"id": target}, target, "agent-1", "stale",
                    AT, Status.PENDING, Snapshot(target, True, "IN"), Impact(went_out=(target,)))


def test_proposals_numbered_superseded_and_decided(either):
    reading_network(either)
    assert either.read(lambda tx: tx.next_proposal_number()) == 1
    either.write(lambda tx: tx.save_proposal(proposal(1)))
    either.write(lambda tx: tx.save_proposal(proposal(2)))
    either.write(lambda tx: tx.save_proposal(proposal(3, "h")))
    assert either.read(lambda tx: tx.next_proposal_number()) == 4
    assert either.write(lambda tx: tx.supersede_pending("a", "prop-2", AT)) == ["prop-1"]
    assert [p.id for p in either.read(lambda tx: tx.proposals(Status.PENDING))] == [
        "prop-2", "prop-3"]
    assert either.read(lambda tx: tx.proposal("prop-1")).superseded_by == "prop-2"

    def accept(tx):
        tx.decide_proposal("prop-2", Decision(Status.ACCEPTED, "person", AT))
        return tx.this_change_seq()

    seq = either.write(accept)
    (entry,) = either.read(lambda tx: tx.change_entries(LogQuery(limit=1)))
    decided = either.read(lambda tx: tx.proposal("prop-2"))
    assert seq == entry.seq == decided.change_seq
    assert (decided.status, decided.decided_by) == (Status.ACCEPTED, "person")
    either.write(lambda tx: tx.decide_proposal("prop-3", Decision(Status.REJECTED, "person", AT,
                                                                  reason="no")))
    rejected = either.read(lambda tx: tx.proposal("prop-3"))
    assert (rejected.status, rejected.decision_reason, rejected.change_seq) == (
        Status.REJECTED, "no", None)
    assert either.read(lambda tx: tx.proposal("prop-9")) is None
    assert [p.status for p in either.read(lambda tx: tx.proposals(None))] == [
        Status.SUPERSEDED, Status.ACCEPTED, Status.REJECTED]
