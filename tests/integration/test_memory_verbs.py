"""The daily verbs against the real Neo4j: supersede and reword (and their exact undo),
challenge and defend, editing, metadata; and the change log each write appends."""
from __future__ import annotations

import json

import pytest

from adapters.formats import parse_network

from engine import interchange, tms
from engine.change_records import LogQuery
from engine.errors import InvalidInput, NotFound
from engine.memory import changelog, dialectic, editing, supersede
from engine.model import Belief, Truth
from engine.tms.records import BeliefFilter

pytestmark = pytest.mark.neo4j

J = tms.make_justifications


def exported(store) -> str:
    from adapters.formats import dump_network

    return dump_network(interchange.export_network(store))


def truth(store, *ids):
    found = tms.show_many(store, ids)
    return tuple(found[i].truth if i in found else None for i in ids)


def chain(store):
    tms.add(store, "a", "A premise.")
    tms.add(store, "b", "B from a.", J(["a"]))
    tms.add(store, "c", "C from b.", J(["b"]))


def test_reword_moves_dependents_and_undo_restores_the_exact_graph(store):
    chain(store)
    before = exported(store)
    done = supersede.supersede(store, "a", text="A, reworded.", reason="clearer")
    assert (done.new, done.created, done.rewired) == ("a-v2", True, 1)
    assert truth(store, "a", "a-v2", "b", "c") == (Truth.OUT, Truth.IN, Truth.IN, Truth.IN)
    old = tms.show(store, "a")[0]
    assert old.is_premise and old.depth == 0  # a gated premise stays a premise
    assert "a" in {b.id for b in tms.list_beliefs(store, BeliefFilter(premises=True))}
    assert tms.show(store, "b")[0].justifications[0].antecedents == ("a-v2",)
    assert tms.supersede_links(store, "a") == (["a-v2"], [])
    assert tms.supersede_links(store, "a-v2") == ([], ["a"])
    assert tms.verify(store) == []
    supersede.undo_supersede(store, "a")
    assert exported(store) == before
    assert tms.verify(store) == []


def test_undo_keeps_an_outlist_member_the_belief_had_before_it_was_superseded(store):
    """OLD already held unless NEW: the supersede gate adds nothing there, so undo must not
    take that member away (found by the daily-verbs property test)."""
    tms.add(store, "n", "The newer view.")
    tms.add(store, "o", "Holds unless the newer view.", J([], unless=["n"]))
    tms.add(store, "p", "Another reason for o.")
    tms.add_justification(store, "o", J(["p"]))
    before = exported(store)
    supersede.supersede(store, "o", "n", rewire=False)
    assert truth(store, "o") == (Truth.OUT,)
    supersede.undo_supersede(store, "o")
    assert exported(store) == before
    assert tms.verify(store) == []


def test_undo_keeps_the_mention_when_every_justification_named_the_new_belief_already(store):
    """OLD's one justification held unless NEW already, so the gate appended nothing and
    marked no edge: undo must leave that mention, and so must an undo after the graph went
    out to a file and came back (issue 45: the Neo4j store took it away)."""
    tms.add(store, "p", "A premise.")
    tms.add(store, "n", "The newer view.")
    tms.add(store, "o", "From p unless the newer view.", J(["p"], unless=["n"]))
    before = exported(store)
    supersede.supersede(store, "o", "n")
    supersede.undo_supersede(store, "o")
    assert exported(store) == before
    supersede.supersede(store, "o", "n")
    network, stored = parse_network(json.loads(exported(store)))
    tms.reset(store)
    interchange.import_network(store, network, stored)
    supersede.undo_supersede(store, "o")
    assert tms.show(store, "o")[0].justifications == J(["p"], unless=["n"])
    assert tms.verify(store) == []


def test_supersede_by_an_existing_belief_without_rewire(store):
    chain(store)
    tms.add(store, "n", "The newer view.")
    change = supersede.supersede(store, "b", "n").change
    assert change.went_out == ["b", "c"]
    tms.retract(store, "n")
    assert truth(store, "b", "c") == (Truth.IN, Truth.IN)  # retracting NEW brings OLD back
    with pytest.raises(InvalidInput, match="already superseded"):
        supersede.supersede(store, "b", "a")
    assert tms.verify(store) == []


def test_supersede_refuses_a_successor_resting_on_the_old_belief(store):
    chain(store)
    before = exported(store)
    with pytest.raises(InvalidInput, match="rests on"):
        supersede.supersede(store, "a", "c")
    with pytest.raises(NotFound):
        supersede.supersede(store, "a", "nope")
    assert exported(store) == before


def test_what_if_supersede_writes_nothing(store):
    chain(store)
    before = exported(store)
    entries = len(changelog.log(store, LogQuery()))
    done = supersede.what_if_supersede(store, "a", text="A again.", rewire=False)
    assert sorted(done.change.went_out) == ["a", "b", "c"]
    assert exported(store) == before
    assert len(changelog.log(store, LogQuery())) == entries


def test_challenge_then_defend_then_reopen(store):
    chain(store)
    tms.add_justification(store, "b", J(["c"]))  # a second (circular) justification
    argued = dialectic.challenge(store, "b", "doubtful", justification=None)
    assert argued.id == "challenge:b"
    assert truth(store, "b", "c") == (Truth.OUT, Truth.OUT)
    assert [b.id for b in tms.list_beliefs(store, BeliefFilter(challenged=True))] == ["b"]
    defence = dialectic.defend(store, "challenge:b", "answered")
    assert truth(store, "challenge:b", "b", "c") == (Truth.OUT, Truth.IN, Truth.IN)
    tms.retract(store, defence.id)
    assert truth(store, "challenge:b", "b") == (Truth.IN, Truth.OUT)
    with pytest.raises(InvalidInput, match="not a challenge"):
        dialectic.defend(store, "a", "not a challenge")
    assert tms.verify(store) == []


def test_a_challenged_premise_stays_a_premise(store):
    chain(store)
    dialectic.challenge(store, "a", "is it?")
    a = tms.show(store, "a")[0]
    assert (a.truth, a.depth, a.is_premise) == (Truth.OUT, 0, True)
    from engine.tms import explain

    lines = explain.render_explanation(explain.explain(store, "a"))
    assert lines[0] == "a is OUT (depth 0): a premise, gated:"
    assert any(line.strip() == "unless challenge:a is IN (depth 0): a premise" for line in lines)
    assert dialectic.challenge(store, "a", "again").id == "challenge:a:2"
    with pytest.raises(InvalidInput, match="premise"):
        dialectic.challenge(store, "a", "one justification", justification=1)
    assert tms.verify(store) == []


def test_remove_justification_and_convert_to_premise(store):
    chain(store)
    tms.add_justification(store, "c", J(["a"]))
    with pytest.raises(InvalidInput, match="last one"):
        editing.remove_justification(store, "b", 1)
    editing.remove_justification(store, "c", 1)
    assert tms.show(store, "c")[0].justifications[0].antecedents == ("a",)
    tms.retract(store, "a")
    assert truth(store, "c") == (Truth.OUT,)
    editing.convert_to_premise(store, "c")
    c = tms.show(store, "c")[0]
    assert (c.truth, c.depth, c.is_premise) == (Truth.IN, 0, True)
    entry = changelog.log(store, LogQuery(op="convert-to-premise"))[0]
    assert entry.args["removed"] == [{"kind": "SL", "antecedents": ["a"], "outlist": []}]
    assert tms.verify(store) == []


def test_beliefs_type_re_resolves_a_nogood(store):
    tms.add(store, "x", "X.")
    tms.add(store, "y", "Y.")
    first = tms.add_nogood(store, ["x", "y"], "ng").retracted_by_nogood
    assert first == ["x"]  # the tie goes to the smaller id
    change = editing.set_metadata(store, "x", "beliefs_type", "axiom")
    assert truth(store, "x", "y") == (Truth.IN, Truth.OUT)
    assert change.retracted_by_nogood == ["y"]
    assert editing.get_metadata(store, "x", "beliefs_type") == "axiom"
    editing.unset_metadata(store, "x", "beliefs_type")
    with pytest.raises(InvalidInput):
        editing.get_metadata(store, "x", "beliefs_type")


def test_every_write_has_one_entry_with_actor_reason_and_cascade(store):
    start = changelog.log(store, LogQuery(limit=1))[0].seq
    chain(store)
    tms.retract(store, "a", reason="wrong")
    with pytest.raises(InvalidInput):
        editing.remove_justification(store, "b", 1)  # refused: rolled back, no entry
    entries = changelog.changes_since(store, start)
    assert [e.op for e in entries] == ["add", "add", "add", "retract"]
    assert [e.seq for e in entries] == list(range(start + 1, start + 5))
    last = entries[-1]
    assert (last.reason, last.went_out, last.args) == ("wrong", ("a", "b", "c"), {"id": "a"})
    history = changelog.history(store, "b")
    assert [(e.op, t.did) for e, t in history] == [("add", ("created", "went_in")),
                                                   ("retract", ("went_out",))]
    assert [e.op for e in changelog.log(store, LogQuery(belief_id="c"))] == ["retract", "add"]


def test_diff_since_a_seq_sees_labels_and_definitions(store):
    chain(store)
    mark = changelog.log(store, LogQuery(limit=1))[0].seq
    tms.retract(store, "a")
    tms.assert_belief(store, "a")  # back as it was: no difference
    tms.add_justification(store, "c", J(["a"]))
    tms.add(store, "d", "D.")
    tms.retract(store, "b")
    rows = {r.id: r for r in changelog.diff(store, str(mark))}
    assert set(rows) == {"b", "c", "d"}
    assert (rows["b"].then, rows["b"].now, rows["b"].definition) == (Truth.IN, Truth.OUT, "")
    assert rows["c"].definition == "changed" and rows["c"].now == Truth.IN
    assert rows["d"].definition == "added"


def test_prune_drops_old_entries_in_one_write(store):
    chain(store)
    pruned = changelog.prune(store, "2999-01-01")
    assert pruned >= 3
    assert [e.op for e in changelog.log(store, LogQuery())] == ["log-prune"]
    with pytest.raises(InvalidInput):
        changelog.prune(store, "yesterday")


def test_the_log_is_outside_the_network(store):
    chain(store)
    before = exported(store)
    changelog.prune(store, "2999-01-01")
    assert exported(store) == before and tms.verify(store) == []


def test_a_rewired_dependent_is_due_for_review_again(store):
    from engine.review.due import read_due
    from engine.stages.arguments import read_under_review
    from engine.review.records import ReviewStamp

    chain(store)
    material = store.read(lambda tx: read_under_review(tx, ["b", "c"]))
    store.write(lambda tx: tx.stamp_reviews([ReviewStamp(i, "2026-01-01T00:00:00+00:00",
                                                         m.sha256, "run-x")
                                             for i, m in material.items()]))
    assert store.read(lambda tx: read_due(tx)).due == ()
    supersede.supersede(store, "a", text="A, reworded.")
    assert store.read(lambda tx: read_due(tx)).due == ("b",)  # c waits on b


def test_a_bulk_write_keeps_its_touches_in_its_lists(store, monkeypatch):
    from adapters.neo4j import change_tx

    monkeypatch.setattr(change_tx, "TOUCH_LIMIT", 2)  # as a 200k import is, past the limit
    mark = changelog.log(store, LogQuery(limit=1))[0].seq
    chain(store)
    store.write(lambda tx: tms.add_beliefs_in(tx, [
        Belief(f"bulk-{i}", f"Bulk {i}.") for i in range(3)]),
        changelog.ChangeEntry("import"))
    rows = {r.id: r.definition for r in changelog.diff(store, str(mark))}
    assert rows == {"a": "added", "b": "added", "c": "added", "bulk-0": "added",
                    "bulk-1": "added", "bulk-2": "added"}
    assert [e.op for e in changelog.log(store, LogQuery(belief_id="bulk-1"))] == ["import"]


def test_a_gated_premise_survives_a_network_json_round_trip(store):
    import json

    from adapters.formats import parse_network

    chain(store)
    dialectic.challenge(store, "a", "the source was a draft")
    supersede.supersede(store, "c", text="C, reworded.")
    text = exported(store)
    network, stored = parse_network(json.loads(text))
    tms.reset(store)
    interchange.import_network(store, network, stored)
    assert exported(store) == text
    a = tms.show(store, "a")[0]
    assert a.is_premise and a.depth == 0 and a.truth == Truth.OUT  # still a premise, gated
    assert [p.id for p in tms.list_beliefs(store, BeliefFilter(premises=True))
            if p.id == "a"] == ["a"]
