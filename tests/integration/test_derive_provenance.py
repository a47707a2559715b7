"""Derive's Neo4j part on the real server: the derived-section read, provenance writes, the
one query that answers which round proposed a belief, and all-or-nothing rounds."""
from __future__ import annotations

import json

import pytest

from adapters.cypher_files import cypher
from engine.derive.apply import write_round
from engine.derive.proposals import Mode, Proposal, ProposalKind
from engine.derive.validate import ValidationRules
from engine.derive.view import shown_derived
from engine.errors import StoreError
from engine.model import Justification, Kind, Truth
from engine.store import DeriveRoundRecord, DeriveRunRecord
from tests.derive_fakes import derived, load, premise
from tests.fakes import FakeStore

pytestmark = pytest.mark.neo4j

RUN = DeriveRunRecord(id="run-it-1", model="scripted", started_at="2025-01-01T00:00:00+00:00",
                      params={"budget": 300, "topic": None, "exhaust": True})
RECORD = DeriveRoundRecord(run_id="run-it-1", round=2, strategy="intra-cluster", cluster=1,
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
    return store.write(lambda tx: write_round(tx, proposals, ValidationRules(), RUN, record,
                                              at="2025-01-01T00:00:05+00:00"))


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
    assert w.applied == [("all-ab", Truth.IN), ("any-ab", Truth.IN), ("gate-ab", Truth.OUT)]
    beliefs = abc.read(lambda tx: tx.get_beliefs(["all-ab", "any-ab", "gate-ab"]))
    assert beliefs["any-ab"].justifications == (Justification(("a",), (), Kind.SL, "either"),
                                                Justification(("b",), (), Kind.SL, "either"))
    assert beliefs["gate-ab"].justifications[0].outlist == ("bug",)
    assert beliefs["all-ab"].metadata["source_type"] == "derived"
    (p,) = abc.read(lambda tx: tx.derive_provenance("gate-ab"))
    assert p.run == RUN
    assert p.round == DeriveRoundRecord(
        run_id="run-it-1", round=2, strategy="intra-cluster", cluster=1,
        prompt_sha256="ab" * 32, tokens_in=1234, tokens_out=56, seconds=3.25,
        proposed=(("gate-ab", "GATE", "ALL", "gated"),))


def test_one_cypher_query_answers_which_round_proposed_a_belief(abc, driver, neo4j_settings):
    apply(abc, [ALL])
    later = DeriveRoundRecord(run_id="run-it-1", round=3, strategy="intra-cluster", cluster=2,
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
            "MATCH (:DeriveRun {id: $id})-[:HAS_ROUND]->(d:DeriveRound) "
            "RETURN d.n AS n ORDER BY n", {"id": "run-it-1"}).value()
    assert rounds == [2, 3]  # the run node was created once


def test_a_dry_round_is_recorded_without_proposed_edges(abc, driver, neo4j_settings):
    apply(abc, [])
    with driver.session(database=neo4j_settings.database) as session:
        n = session.run("MATCH (d:DeriveRound) OPTIONAL MATCH (d)-[p:PROPOSED]->() "
                        "RETURN count(DISTINCT d) AS rounds, count(p) AS edges").single()
    assert (n["rounds"], n["edges"]) == (1, 0)


def test_recording_a_round_needs_its_run_and_its_beliefs(abc):
    with pytest.raises(StoreError, match="no derive run"):
        abc.write(lambda tx: tx.record_derive_round(RECORD))
    bad = DeriveRoundRecord(**{**RECORD.__dict__, "proposed": (("nobody", "DERIVE", "ALL", ""),)})

    def work(tx):
        tx.create_derive_run(RUN)
        tx.record_derive_round(bad)

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


@pytest.mark.parametrize("step", ["create_beliefs", "relabel", "record_derive_round"])
def test_a_failure_in_the_middle_of_a_round_leaves_nothing(abc, driver, neo4j_settings, step):
    with pytest.raises(StoreError, match="injected"):
        abc.write(lambda tx: write_round(FailingAt(tx, step), [ALL, ANY, GATE],
                                         ValidationRules(), RUN, RECORD, at="t"))
    with driver.session(database=neo4j_settings.database) as session:
        counts = session.run(
            "MATCH (n) RETURN count(CASE WHEN n:Belief THEN 1 END) AS beliefs, "
            "count(CASE WHEN n:Justification THEN 1 END) AS justifications, "
            "count(CASE WHEN n:DeriveRun OR n:DeriveRound THEN 1 END) AS provenance").single()
    assert (counts["beliefs"], counts["justifications"], counts["provenance"]) == (3, 0, 0)
    labels = abc.read(lambda tx: tx.get_beliefs(["a", "b", "bug"]))
    assert all(b.truth == Truth.IN for b in labels.values())
