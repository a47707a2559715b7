"""Dedup and contradictions against the real Neo4j: neighbour search through the vector index,
merges that rewire antecedents and outlists and keep the well-founded labels, undo, and
contradictions that become nogoods and backtrack."""
from __future__ import annotations

import dataclasses

import pytest

from engine import tms
from engine.contradictions.pairs import PairAnswer
from engine.contradictions.stage import ContradictionOptions, ContradictionsStage, PairSource
from engine.dedup.merge import undo
from engine.dedup.stage import find_clusters
from engine.embedding.cache import text_sha256
from engine.errors import InvalidInput, NotFound
from engine.model import Truth
from tests.dedup_fakes import (
    RECORD,
    RUN,
    FixedEmbedder,
    at_angle,
    dedup_stage,
    store_vectors,
    verdict,
)
from tests.derive_fakes import derived, load, premise

pytestmark = pytest.mark.neo4j


def truths(store, *ids):
    found = store.read(lambda tx: tx.get_beliefs(ids))
    return {i: found[i].truth for i in ids}


def apply(store, stage, items):
    return store.write(lambda tx: stage.apply(tx, items, None, RUN, RECORD))


def snapshot(store):
    network = store.read(lambda tx: tx.read_network())
    return network.beliefs, sorted(network.nogoods, key=lambda n: n.id)


# --- candidates ------------------------------------------------------------------------------
CHAIN = {"a": at_angle(0), "b": at_angle(25), "c": at_angle(50), "x": at_angle(0, plane=1),
         "y": at_angle(10, plane=1), "z": at_angle(18, plane=1)}


def chain_network(store):
    beliefs = [premise(i, f"Claim {i}.") for i in CHAIN]
    load(store, beliefs)
    store_vectors(store, {b.id: b.text for b in beliefs}, CHAIN)


def test_neighbours_come_from_the_vector_index_and_clusters_are_complete_link(store):
    chain_network(store)
    embedder = FixedEmbedder({})  # every embedding is stored and current: nothing computed
    clusters, _ = find_clusters(store, dedup_stage(embedder, threshold=0.85).source)
    assert embedder.embedded == []
    # a~b (cos 0.91), b~c (0.91), a not~c (0.64): no 3-cluster; x, y, z all within 18 degrees
    assert [c.members for c in clusters] == [("x", "y", "z"), ("a", "b")] or \
        [c.members for c in clusters] == [("x", "y", "z"), ("b", "c")]
    assert clusters[0].score == pytest.approx(0.951, abs=1e-3)


def test_beliefs_without_a_current_embedding_get_one_first(store):
    load(store, [premise("p", "P text."), premise("q", "Q text.")])
    embedder = FixedEmbedder({"P text.": at_angle(0), "Q text.": at_angle(5)})
    clusters, _ = find_clusters(store, dedup_stage(embedder, threshold=0.9).source)
    assert sorted(embedder.embedded) == ["P text.", "Q text."]
    assert [c.members for c in clusters] == [("p", "q")]


def test_judged_pairs_are_not_asked_again_and_out_beliefs_are_not_candidates(store):
    chain_network(store)
    stage = dedup_stage(FixedEmbedder({}), threshold=0.85)
    apply(store, stage, [verdict(store, 1, "DIFFERENT", ("x", "y", "z"))])
    tms.retract(store, "a")
    clusters, _ = find_clusters(store, dedup_stage(FixedEmbedder({}), threshold=0.85).source)
    assert [c.members for c in clusters] == [("b", "c")]


def test_by_id_needs_no_embeddings(store):
    load(store, [premise("cache-is-fast"), premise("cache-is-quick-fast"), premise("auth-jwt")])
    clusters, _ = find_clusters(store, dedup_stage(None, by_id=True, threshold=0.6).source)
    assert [c.members for c in clusters] == [("cache-is-fast", "cache-is-quick-fast")]


# --- merges ---------------------------------------------------------------------------------
def merge_network(store):
    load(store, [
        premise("p1", "Caches serve stale reads."),
        premise("p2", "The queue is durable."),
        premise("dup", "Cached reads can be stale."),
        derived("uses", ["dup", "p2"], text="Both hold."),
        derived("gated", ["p2"], unless=["dup"], text="Durable unless stale."),
        derived("other", ["p1"], text="From p1."),
        derived("deep", ["uses"], text="From uses."),
    ])


def test_a_merge_rewires_antecedents_and_outlists_and_keeps_the_well_founded_model(store):
    merge_network(store)
    before = snapshot(store)
    stage = dedup_stage()
    result = apply(store, stage, [verdict(store, 1, "SAME", ("dup", "p1"), keep="p1",
                                          same=("dup", "p1"))])
    assert [e["id"] for e in result.entries] == ["dup"] and result.entries[0]["kept"] == "p1"
    beliefs = store.read(lambda tx: tx.get_beliefs(["uses", "gated", "dup"]))
    assert beliefs["uses"].justifications[0].antecedents == ("p1", "p2")
    assert beliefs["gated"].justifications[0].outlist == ("p1",)
    assert beliefs["dup"].retracted and beliefs["dup"].retract_reason == "duplicate of p1"
    assert truths(store, "dup", "uses", "gated", "deep") == {
        "dup": Truth.OUT, "uses": Truth.IN, "gated": Truth.OUT, "deep": Truth.IN}
    assert tms.verify(store) == []
    rows = store.read(lambda tx: tx.run_pack_query("duplicates_of", {"id": "p1"})).rows
    assert [(r[0], r[1]) for r in rows] == [("merged here", "dup")]
    merged = store.read(lambda tx: tx.run_pack_query("merged", {})).rows
    assert [(r[0], r[1], r[2]) for r in merged] == [("dup", "p1", "duplicate of p1")]

    change = undo(store, "dup")
    assert "dup" in change.went_in
    assert snapshot(store) == before
    assert tms.verify(store) == []
    assert store.read(lambda tx: tx.run_pack_query("merged", {})).rows == ()
    with pytest.raises(NotFound):
        undo(store, "dup")


def test_the_kept_belief_is_the_one_with_most_dependents_when_the_model_names_none(store):
    merge_network(store)
    stage = dedup_stage()
    result = apply(store, stage, [verdict(store, 1, "SAME", ("dup", "p1"), same=("dup", "p1"))])
    assert result.entries[0]["kept"] == "dup"  # two dependents against one


def test_a_merge_that_would_leave_the_kept_belief_circular_is_skipped(store):
    merge_network(store)
    stage = dedup_stage()
    result = apply(store, stage, [verdict(store, 1, "SAME", ("deep", "uses"), keep="deep",
                                          same=("deep", "uses"))])
    assert result.entries == []
    assert "rests on `uses`" in result.checked.skipped[0].reason
    assert tms.verify(store) == []


def test_a_merge_of_a_belief_whose_text_changed_is_skipped(store):
    merge_network(store)
    item = verdict(store, 1, "SAME", ("dup", "p1"), keep="p1", same=("dup", "p1"))
    item = dataclasses.replace(item, shas=("0" * 64, item.shas[1]))
    result = apply(store, dedup_stage(), [item])
    assert "changed since it was judged" in result.checked.skipped[0].reason


def test_undo_refuses_when_a_later_merge_moved_the_edges_on(store):
    merge_network(store)
    stage = dedup_stage()
    apply(store, stage, [verdict(store, 1, "SAME", ("dup", "p1"), keep="p1", same=("dup", "p1"))])
    apply(store, stage, [verdict(store, 2, "SAME", ("p1", "p2"), keep="p2", same=("p1", "p2"))])
    with pytest.raises(InvalidInput, match="undo the later merge first"):
        undo(store, "dup")
    undo(store, "p1")
    undo(store, "dup")
    assert tms.verify(store) == []


# --- contradictions ---------------------------------------------------------------------------
def test_a_contradiction_becomes_a_nogood_and_backtracks(store):
    load(store, [premise("p", "Reads are always fresh."),
                 premise("q", "Cached reads are sometimes stale."),
                 derived("rests", ["p"], text="So no invalidation is needed.")])
    result = apply(store, dedup_stage(), [verdict(store, 1, "CONTRADICTION", ("p", "q"),
                                                  contradicts=[("p", "q")])])
    assert result.entries[0]["action"] == "nogood"
    t = truths(store, "p", "q", "rests")
    assert [t["p"], t["q"]].count(Truth.OUT) == 1  # one of them retracted
    assert (t["rests"] == Truth.OUT) == (t["p"] == Truth.OUT)  # what rests on it follows
    assert tms.verify(store) == []
    rows = store.read(lambda tx: tx.run_pack_query("contradictions", {})).rows
    assert [(r[0], r[2], r[3], r[5]) for r in rows] == [
        ("contradiction:p:q", "dedup", RUN.id, 1)]


def test_the_contradictions_stage_finds_siblings_and_records_nogoods(store):
    load(store, [premise("base", "The service has one region."),
                 premise("ops", "Ops owns it."),
                 derived("up", ["base"], text="Failover is instant.", ),
                 derived("down", ["base", "ops"], text="Failover takes an hour.")])
    stage = ContradictionsStage(ContradictionOptions(batch=5), PairSource(None, ContradictionOptions()))
    shown = stage.read_round(store, 1)
    assert [(p.a, p.b) for p in shown.context] == [("down", "up")]
    assert "## Pair 1" in shown.prompt.text and "`up`" in shown.prompt.text
    parsed = stage.parse('{"pairs": [{"pair": 1, "verdict": "CONTRADICTION"}]}', shown)
    result = store.write(lambda tx: stage.apply(tx, parsed.items, shown, RUN, RECORD))
    assert result.entries[0]["id"] == "contradiction:down:up"
    assert [truths(store, "up", "down")[i] for i in ("up", "down")].count(Truth.OUT) == 1
    assert tms.verify(store) == []
    assert stage.read_round(store, 2).empty  # judged: not asked again


def test_a_compatible_pair_is_recorded_and_not_asked_again(store):
    load(store, [premise("base"), derived("s1", ["base"]), derived("s2", ["base"])])
    source = PairSource(None, ContradictionOptions())
    stage = ContradictionsStage(ContradictionOptions(), source)
    shown = stage.read_round(store, 1)
    item = PairAnswer(1, "COMPATIBLE", "s1", "s2", shown.context[0].sha_a, shown.context[0].sha_b)
    store.write(lambda tx: stage.apply(tx, [item], shown, RUN, RECORD))
    fresh = ContradictionsStage(ContradictionOptions(), PairSource(None, ContradictionOptions()))
    assert fresh.read_round(store, 1).empty
    assert text_sha256("Derived s1.") == item.sha_a
