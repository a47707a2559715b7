"""The store contract: the same expectations, run against the in-memory FakeStore the unit
tests use and against the real Neo4jStore, so a stage tested on the fake behaves the same on
Neo4j. Each area is one test: pair verdicts, merge and undo, sources and pins, review stamps,
embeddings, provenance (tests/unit/test_store_protocol.py checks that every verb is on both)."""
from __future__ import annotations

import math

import pytest

from engine import tms
from engine.embedding.records import StoredEmbedding
from engine.memory.supersede import supersede
from engine.model import Truth
from engine.pairs.records import MergeRecord, PairVerdict
from engine.review.records import ReviewStamp
from engine.sources.records import SourcePin, SourceRecord
from engine.stages.provenance import RoundRecord, RunRecord
from engine.tms.records import JustificationNow

J = tms.make_justifications
DIMENSIONS = 384  # the belief_embedding vector index's


def small_network(store) -> None:
    tms.add(store, "a", "the cache is warm")
    tms.add(store, "b", "the cache holds hot keys")
    tms.add(store, "c", "reads are fast", J(["a"]))
    tms.add(store, "d", "reads stay fast under load", J(["c", "b"]))


def unit_vector(*weights: float) -> list[float]:
    v = list(weights) + [0.0] * (DIMENSIONS - len(weights))
    norm = math.sqrt(sum(x * x for x in v))
    return [x / norm for x in v]


def test_pair_verdicts_are_kept_per_stage_and_replaced_per_pair(either):
    small_network(either)
    first = PairVerdict("dedup", "a", "b", "sha-a", "sha-b", "SAME", "run-1", 1, "same cache")
    other = PairVerdict("contradictions", "a", "b", "sha-a", "sha-b", "COMPATIBLE", "run-2", 1)
    either.write(lambda tx: tx.save_pair_verdicts([first, other]))
    assert either.read(lambda tx: tx.pair_verdicts("dedup")) == [first]
    again = PairVerdict("dedup", "a", "b", "sha-a2", "sha-b", "DIFFERENT", "run-3", 2, "")
    either.write(lambda tx: tx.save_pair_verdicts([again]))
    assert either.read(lambda tx: tx.pair_verdicts("dedup")) == [again]
    assert either.read(lambda tx: tx.pair_verdicts("contradictions")) == [other]


def test_a_merge_moves_the_mentions_and_undo_puts_them_back(either):
    small_network(either)
    tms.add(either, "a2", "the cache is hot")

    def merge(tx):
        rewired = tx.rewire_mentions("a", "a2")
        record = MergeRecord("a", "a2", rewired, False, False, "", "", "", "run-1", 1,
                             "2026-01-01T00:00:00Z")
        tx.record_merge(record)
        return record

    record = either.write(merge)
    assert [(e.belief, e.kind, e.pos) for e in record.rewired] == [("c", "REQUIRES", 0)]
    c = either.read(lambda tx: tx.get_beliefs(["c"]))["c"]
    assert c.justifications[0].antecedents == ("a2",)
    assert either.read(lambda tx: tx.merge_record("a")) == record
    either.write(lambda tx: tx.undo_merge(record))
    c = either.read(lambda tx: tx.get_beliefs(["c"]))["c"]
    assert c.justifications[0].antecedents == ("a",)
    assert either.read(lambda tx: tx.merge_record("a")) is None


def test_sources_and_pins(either):
    small_network(either)
    tms.add(either, "e", "the port is 8080", source="conf/app.ini")  # named, never pinned
    source = SourceRecord("src/cache.py", "f" * 64, 120, "2026-01-01T00:00:00Z", ("c1",))
    either.write(lambda tx: tx.save_sources([source]))
    assert either.read(lambda tx: tx.sources()) == [source]
    pin = SourcePin("a", "src/cache.py", "f" * 64, (3, 4),
                    {"quote": "cache = warm()", "lines": [3, 4]}, "2026-01-01T00:00:01Z")
    missing = SourcePin("nope", "src/cache.py", "f" * 64, (1, 1), {})
    assert either.write(lambda tx: tx.pin_to_sources([pin, missing])) == 1
    (a,) = either.read(lambda tx: tx.beliefs_from_sources(["src/cache.py"]))
    assert (a.id, a.source, a.source_hash) == ("a", "src/cache.py", "f" * 64)
    assert a.metadata["quote"] == "cache = warm()"
    assert either.read(lambda tx: tx.beliefs_from_sources(["elsewhere.py"])) == []
    assert either.read(lambda tx: tx.unpinned_sourced_ids()) == ["e"]


def test_review_stamps(either):
    small_network(either)
    due = {c.id: c for c in either.read(lambda tx: tx.review_candidates())}
    assert sorted(due) == ["c", "d"]  # IN by their justifications: not premises
    assert due["c"].review_sha256 == "" and due["d"].rests_on == ("c",)
    stamp = ReviewStamp("c", "2026-01-01T00:00:00Z", "9" * 64, "run-1")
    either.write(lambda tx: tx.stamp_reviews([stamp]))
    due = {c.id: c for c in either.read(lambda tx: tx.review_candidates())}
    assert (due["c"].review_sha256, due["c"].reviewed_at) == ("9" * 64, stamp.at)
    tms.retract(either, "a", "cold start")
    assert [c.id for c in either.read(lambda tx: tx.review_candidates())] == []


def test_embeddings_answer_cosine(either):
    small_network(either)
    rows = [StoredEmbedding("a", "sha-a", "mini", unit_vector(1, 0)),
            StoredEmbedding("b", "sha-b", "mini", unit_vector(1, 1)),
            StoredEmbedding("c", "sha-c", "mini", unit_vector(0, 1)),
            StoredEmbedding("nope", "sha", "mini", unit_vector(1))]
    assert either.write(lambda tx: tx.save_embeddings(rows)) == 3
    assert either.read(lambda tx: tx.embedding_keys(["a", "b", "d"])) == {
        "a": ("sha-a", "mini"), "b": ("sha-b", "mini")}
    stored = either.read(lambda tx: tx.embeddings(["b"]))["b"]
    assert stored.sha256 == "sha-b" and stored.vector == pytest.approx(unit_vector(1, 1))
    similar = either.read(lambda tx: tx.similar_beliefs(unit_vector(1, 0), 3))
    # Neo4j's vector index answers in float32 and approximately: a few parts in a thousand.
    assert [i for i, _ in similar] == ["a", "b", "c"]
    assert [s for _, s in similar] == pytest.approx([1.0, math.sqrt(0.5), 0.0], abs=2e-3)
    near = either.read(lambda tx: tx.nearest_beliefs(["a"], 2, 0.5))
    assert [(x, y) for x, y, _ in near] == [("a", "b")]
    assert near[0][2] == pytest.approx(math.sqrt(0.5), abs=2e-3)


def test_provenance_of_runs_rounds_and_proposals(either):
    small_network(either)
    run = RunRecord("run-7", "fake:scripted", "2026-01-01T00:00:00Z", {"budget": 400},
                    stage="derive")
    record = RoundRecord("run-7", 1, "p" * 64, tokens_in=10, tokens_out=5, seconds=1.5,
                         strategy="alphabetical", at="2026-01-01T00:00:02Z")

    def write(tx):
        tx.create_run(run)
        tx.create_run(run)  # a second time changes nothing
        tx.record_round(record)
        tx.link_proposed("run-7", 1, [{"id": "d", "kind": "DERIVE", "mode": "ALL",
                                       "label": ""}])

    either.write(write)
    (proposed,) = either.read(lambda tx: tx.derive_provenance("d"))
    assert proposed.run == run and (proposed.kind, proposed.mode) == ("DERIVE", "ALL")
    assert (proposed.round.round, proposed.round.prompt_sha256) == (1, "p" * 64)
    assert either.read(lambda tx: tx.derive_provenance("c")) == []
    assert either.read(lambda tx: tx.recent_stage_runs(5)) == [run]
    assert [b.id for b in either.read(lambda tx: tx.derived_citing(["c"]))] == ["d"]
    assert tms.show(either, "d")[0].truth == Truth.IN


def test_list_beliefs_by_a_justification_label(either):
    from engine.tms.records import BeliefFilter

    small_network(either)
    tms.add_justification(either, "d", J(["a"], label="Seen under LOAD"))
    tms.add(either, "e", "writes are slow", J(["b"], label="load test"))

    def listed(label: str) -> list[str]:
        return [b.id for b in either.read(lambda tx: tx.list_beliefs(BeliefFilter(label=label)))]

    assert listed("load") == ["d", "e"]
    assert listed("Seen") == ["d"]
    assert listed("absent") == []


def test_neighbours_within_steps_up_and_down(either):
    small_network(either)
    tms.add(either, "e", "reads fail unless the cache is warm", J([], unless=["a"]))

    def near(ids: list[str], depth: int) -> dict[str, int]:
        return either.read(lambda tx: tx.neighbours(ids, depth))

    assert near(["c"], 1) == {"a": 1, "d": 1}
    assert near(["c"], 2) == {"a": 1, "d": 1, "b": 2, "e": 2}
    assert near(["a", "b"], 1) == {"c": 1, "d": 1, "e": 1}
    assert near(["c"], 0) == {}


def test_justifications_now_name_what_each_rests_on_and_whether_it_is_in(either):
    small_network(either)
    tms.add(either, "e", "either way", J(["d", "later"], unless=["b"]) + J(["a"]))
    tms.retract(either, "c")
    assert either.read(lambda tx: tx.justifications_now(["a", "c", "d", "e", "nobody"])) == {
        "d": (JustificationNow(False, (("c", False), ("b", True)), ()),),
        "e": (JustificationNow(False, (("d", False), ("later", False)), (("b", True),)),
              JustificationNow(False, (("a", True),), ())),
    }  # a premise has none; c is retracted; 'later' names no belief yet
    tms.add(either, "a-new", "the cache is hot")
    supersede(either, "a", "a-new")
    assert [j.gate for j in either.read(lambda tx: tx.justifications_now(["a"]))["a"]] == [True]


def test_the_dependents_of_an_id_not_added_yet_are_those_naming_it(either):
    """show --as-of a belief gone since (a rollback took it away) lists what named it then
    from today's graph, where it is only named: both stores answer the same (issue 45: the
    Neo4j store found no dependents of an id with no belief)."""
    tms.add(either, "c", "needs m", J(["m"]))
    tms.add(either, "d", "unless m", J([], unless=["m"]))
    assert either.read(lambda tx: tx.direct_dependents("m")) == {"c", "d"}
    assert either.read(lambda tx: tx.direct_dependents("c")) == set()
