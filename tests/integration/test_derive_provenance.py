"""Derive's Neo4j part on the real server: the derived-section read, provenance writes, the
one query that answers which round proposed a belief, and all-or-nothing rounds."""
from __future__ import annotations

import json

import pytest

from adapters.cypher_files import cypher
from engine.derive.proposals import Mode, Proposal, ProposalKind
from engine.derive.stage import DeriveStage
from engine.derive.view import shown_derived
from engine.errors import StoreError
from engine.model import Justification, Kind, Truth
from engine.stages.provenance import RoundRecord, RunRecord
from engine.stages.rounds import apply_round
from tests.derive_fakes import derived, load, premise
from tests.fakes import FakeStore

pytestmark = pytest.mark.neo4j

RUN = RunRecord(id="run-it-1", model="scripted", started_at="2025-01-01T00:00:00+00:00",
                params={"budget": 300, "topic": None, "exhaust": True})
RECORD = RoundRecord(run_id="run-it-1", round=2, strategy="intra-cluster", cluster=1,
                     prompt_sha256="ab" * 32, tokens_in=1234, tokens_out=56, seconds=3.25)
ALL = Proposal(ProposalKind.DERIVE, "all-ab", "Needs both.", ("a", "b"), (), Mode.ALL, "both")
ANY = Proposal(ProposalKind.DERIVE, "any-ab", "Either.", ("a", "b"), (), Mode.ANY, "either")
GATE = Proposal(ProposalKind.GATE, "gate-ab", "Unless the bug.", ("a", "b"), ("bug",),
                Mode.ALL, "gated")

NETWORK = [premise(i) for i in ("a1", "a2", "b1", "b2", "u")]
DERIVED = [
    derived("d1", ["a1", "a2"]),
    derived("d2", ["d1", "a1"]),
    derived("d3", ["a1", "b1"]),
    derived("d4", ["b1", "b2"], ["a2", "a1"], text="Two ways."),
    derived("d5", Justification((), ("a1",))),
    derived("d6", ["d3", "a1"]),
    derived("d7", ["a1", "a2"], unless=["u"]),
]


def apply(store, proposals, record=RECORD):
    return store.write(lambda tx: apply_round(tx, DeriveStage(None), proposals, None, RUN, record))


@pytest.fixture
def abc(store):
    load(store, [premise("a"), premise("b"), premise("bug", "A bug is open.")])
    return store


def test_derived_citing_reads_justifications_in_order(store):
    load(store, NETWORK)
    load(store, DERIVED)
    found = store.read(lambda tx: tx.derived_citing(["a2"]))
    assert [b.id for b in found] == ["d1", "d4", "d7"]
    d4 = found[1]
    assert d4.justifications == (Justification(("b1", "b2"), (), Kind.SL, ""),
                                 Justification(("a2", "a1"), (), Kind.SL, ""))
    assert (d4.truth, d4.depth, d4.text) == (Truth.IN, 1, "Two ways.")
    d7 = found[2]
    assert d7.truth == Truth.OUT and d7.justifications[0].outlist == ("u",)


@pytest.mark.parametrize("sample", [["a1", "a2"], ["a1", "a2", "b1"], ["b1", "b2"], ["u"]])
def test_the_derived_filter_agrees_with_the_fake(store, sample):
    load(store, NETWORK)
    load(store, DERIVED)
    fake = FakeStore()
    load(fake, NETWORK)
    load(fake, DERIVED)
    real = store.read(lambda tx: shown_derived(tx, sample))
    expected = fake.read(lambda tx: shown_derived(tx, sample))
    assert sorted(b.id for b in real) == sorted(b.id for b in expected)


def test_a_round_with_its_provenance(abc):
    w = apply(abc, [ALL, ANY, GATE])
    assert [(e["id"], e["truth_value"]) for e in w.entries] == [
        ("all-ab", Truth.IN), ("any-ab", Truth.IN), ("gate-ab", Truth.OUT)]
    beliefs = abc.read(lambda tx: tx.get_beliefs(["all-ab", "any-ab", "gate-ab"]))
    assert beliefs["any-ab"].justifications == (Justification(("a",), (), Kind.SL, "either"),
                                                Justification(("b",), (), Kind.SL, "either"))
    assert beliefs["gate-ab"].justifications[0].outlist == ("bug",)
    assert beliefs["all-ab"].metadata["source_type"] == "derived"
    (p,) = abc.read(lambda tx: tx.derive_provenance("gate-ab"))
    assert p.run == RUN
    assert p.round == RoundRecord(
        run_id="run-it-1", round=2, strategy="intra-cluster", cluster=1,
        prompt_sha256="ab" * 32, tokens_in=1234, tokens_out=56, seconds=3.25)
    assert (p.kind, p.mode, p.label) == ("GATE", "ALL", "gated")


def test_one_cypher_query_answers_which_round_proposed_a_belief(abc, driver, neo4j_settings):
    apply(abc, [ALL])
    later = RoundRecord(run_id="run-it-1", round=3, strategy="intra-cluster", cluster=2,
                        prompt_sha256="cd" * 32, tokens_in=1, tokens_out=2, seconds=0.5)
    apply(abc, [ANY], later)
    with driver.session(database=neo4j_settings.database) as session:
        rows = session.run(cypher("derive_provenance_of_belief"), {"id": "any-ab"}).data()
    assert len(rows) == 1
    row = rows[0]
    assert (row["run_id"], row["model"], row["n"], row["strategy"], row["cluster"]) == (
        "run-it-1", "scripted", 3, "intra-cluster", 2)
    assert (row["prompt_sha256"], row["kind"], row["mode"], row["label"]) == (
        "cd" * 32, "DERIVE", "ANY", "either")
    assert json.loads(row["params"]) == {"budget": 300, "topic": None, "exhaust": True}
    with driver.session(database=neo4j_settings.database) as session:
        rounds = session.run(
            "MATCH (:Run {id: $id})-[:HAS_ROUND]->(d:Round) "
            "RETURN d.n AS n ORDER BY n", {"id": "run-it-1"}).value()
    assert rounds == [2, 3]  # the run node was created once


def test_a_dry_round_is_recorded_without_proposed_edges(abc, driver, neo4j_settings):
    apply(abc, [])
    with driver.session(database=neo4j_settings.database) as session:
        n = session.run("MATCH (d:Round) OPTIONAL MATCH (d)-[p:PROPOSED]->() "
                        "RETURN count(DISTINCT d) AS rounds, count(p) AS edges").single()
    assert (n["rounds"], n["edges"]) == (1, 0)


def test_recording_a_round_needs_its_run_and_its_beliefs(abc):
    with pytest.raises(StoreError, match="no run"):
        abc.write(lambda tx: tx.record_round(RECORD))

    def work(tx):
        tx.create_run(RUN)
        tx.record_round(RECORD)
        tx.link_proposed(RUN.id, RECORD.round,
                         [{"id": "nobody", "kind": "DERIVE", "mode": "ALL", "label": ""}])

    with pytest.raises(StoreError, match="names beliefs that do not exist"):
        abc.write(work)
    assert abc.read(lambda tx: tx.derive_provenance("nobody")) == []


class FailingAt:
    """Delegates to the real transaction view; raises at one named step."""

    def __init__(self, tx, step):
        self._tx = tx
        self._step = step

    def __getattr__(self, name):
        attr = getattr(self._tx, name)
        if name != self._step:
            return attr

        def fail(*args, **kwargs):
            attr(*args, **kwargs)
            raise StoreError(f"injected failure after {name}")
        return fail


@pytest.mark.parametrize("step", ["record_round", "create_beliefs", "relabel", "link_proposed"])
def test_a_failure_in_the_middle_of_a_round_leaves_nothing(abc, driver, neo4j_settings, step):
    with pytest.raises(StoreError, match="injected"):
        abc.write(lambda tx: apply_round(FailingAt(tx, step), DeriveStage(None),
                                         [ALL, ANY, GATE], None, RUN, RECORD))
    with driver.session(database=neo4j_settings.database) as session:
        counts = session.run(
            "MATCH (n) RETURN count(CASE WHEN n:Belief THEN 1 END) AS beliefs, "
            "count(CASE WHEN n:Justification THEN 1 END) AS justifications, "
            "count(CASE WHEN n:Run OR n:Round THEN 1 END) AS provenance").single()
    assert (counts["beliefs"], counts["justifications"], counts["provenance"]) == (3, 0, 0)
    labels = abc.read(lambda tx: tx.get_beliefs(["a", "b", "bug"]))
    assert all(b.truth == Truth.IN for b in labels.values())


def test_init_upgrades_the_derive_provenance_older_versions_wrote(abc, driver, neo4j_settings):
    """A graph with DeriveRun / DeriveRound nodes (as before the shared stage machinery):
    `init` turns them into Run / Round nodes of stage derive, and the queries find them."""
    with driver.session(database=neo4j_settings.database) as session:
        session.run(
            "CREATE (r:DeriveRun {id: 'old-run', model: 'm', started_at: '2024-01-01', "
            "params: '{}'})-[:HAS_ROUND]->(d:DeriveRound {run_id: 'old-run', n: 1, "
            "strategy: 'alphabetical', prompt_sha256: 'ee', tokens_in: 1, tokens_out: 1, "
            "seconds: 1.0}) WITH d MATCH (b:Belief {id: 'a'}) CREATE (d)-[:PROPOSED "
            "{kind: 'DERIVE', mode: 'ALL', label: 'old'}]->(b)").consume()
    assert abc.init_schema() == {"migrate_derive_runs": 1, "migrate_derive_rounds": 1,
                                 "belief_text_stemming": 0}
    (p,) = abc.read(lambda tx: tx.derive_provenance("a"))
    assert (p.run.id, p.run.stage, p.round.round, p.label) == ("old-run", "derive", 1, "old")
    with driver.session(database=neo4j_settings.database) as session:
        left = session.run("MATCH (n) WHERE n:DeriveRun OR n:DeriveRound RETURN count(n)").value()
    assert left == [0]
    assert abc.init_schema() == {"migrate_derive_runs": 0, "migrate_derive_rounds": 0,
                                 "belief_text_stemming": 0}
