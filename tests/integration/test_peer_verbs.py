"""The verbs users of ftl-reasons and reasonsforge miss here (issue 38), against the real Neo4j:
what each writes, what it reports, and its change-log entry."""
from __future__ import annotations

import pytest

from engine import tms
from engine.change_records import LogQuery
from engine.memory import changelog
from engine.memory.summaries import summarize
from engine.model import Truth

pytestmark = pytest.mark.neo4j

J = tms.make_justifications


def last_entry(store):
    return changelog.log(store, LogQuery(limit=1))[0]


def truth(store, *ids):
    found = tms.show_many(store, ids)
    return tuple(found[i].truth if i in found else None for i in ids)


# --- summarize's change-log entry (the defect) ---------------------------------------------
def test_summarize_logs_its_op_and_what_it_summarized(store):
    tms.add(store, "a", "A premise.")
    tms.add(store, "b", "Another premise.")
    summarize(store, "ab", "A and B together.", ["b", "a"])
    entry = last_entry(store)
    assert (entry.op, dict(entry.args)) == ("summarize", {"id": "ab", "over": ["b", "a"]})
    assert entry.created == ("ab",)


# --- default nogood ids ------------------------------------------------------------------
def test_a_nogood_is_named_by_its_sorted_members_and_a_repeat_gets_a_number(store):
    for bid in ("zeta", "alpha", "mid"):
        tms.add(store, bid, f"The {bid} premise.")
    tms.add_nogood(store, ["zeta", "alpha"])
    tms.assert_belief(store, "alpha")
    tms.assert_belief(store, "zeta")
    tms.add_nogood(store, ["alpha", "zeta"])
    tms.add_nogood(store, ["mid", "alpha", "zeta"])
    ids = sorted(n.id for n in store.read(lambda tx: tx.nogoods()))
    assert ids == ["nogood-alpha-mid-zeta", "nogood-alpha-zeta", "nogood-alpha-zeta-2"]
    assert dict(last_entry(store).args) == {"id": "nogood-alpha-mid-zeta",
                                            "members": ["mid", "alpha", "zeta"]}


def test_a_long_default_nogood_id_is_cut_to_fit_an_id(store):
    long_ids = [f"{c * 60}" for c in "abcd"]
    for bid in long_ids:
        tms.add(store, bid, "A premise with a long id.")
    tms.add_nogood(store, long_ids)
    tms.add_nogood(store, long_ids)
    ids = sorted(n.id for n in store.read(lambda tx: tx.nogoods()))
    assert len(ids[0]) <= 190 and ids[1] == ids[0] + "-2"
    assert ids[0].startswith("nogood-" + "a" * 60 + "-" + "b" * 60)
    assert truth(store, *long_ids).count(Truth.OUT) >= 1


# --- retract says what would restore; add says how many one justification rests on ---------
def test_retract_reports_for_each_derived_belief_what_is_still_in(store):
    for bid in ("p", "q", "r", "x"):
        tms.add(store, bid, f"Premise {bid}.")
    tms.add(store, "a", "From p.", J(["p"]))
    tms.add(store, "b", "From a, q and r.", J(["a", "q", "r"]))
    tms.add_justification(store, "b", J(["p", "x"]))
    tms.add(store, "g", "Holds unless p.", J([], unless=["p"]))
    tms.add(store, "c", "From q unless g.", J(["q"], unless=["g"]))
    change, restorations = tms.retract_with_restorations(store, "p", "wrong")
    assert (change.went_in, change.went_out) == (["g"], ["a", "b", "c", "p"])
    shown = {r.id: [j.as_dict() for j in r.justifications] for r in restorations}
    assert shown == {
        "a": [{"justification": 1, "still_in": [], "not_in": ["p"], "unless_in": []}],
        "b": [{"justification": 1, "still_in": ["q", "r"], "not_in": ["a"], "unless_in": []},
              {"justification": 2, "still_in": ["x"], "not_in": ["p"], "unless_in": []}],
        "c": [{"justification": 1, "still_in": ["q"], "not_in": [], "unless_in": ["g"]}]}
    entry = last_entry(store)
    assert (entry.op, dict(entry.args), entry.reason) == ("retract", {"id": "p"}, "wrong")
    assert tms.verify(store) == []


def test_retract_leaves_out_pinned_and_premise_beliefs(store):
    tms.add(store, "p", "Premise p.")
    tms.add(store, "g", "Gated premise.", J([], unless=["p"]))
    tms.add(store, "a", "From p.", J(["p"]))
    tms.retract(store, "a")
    tms.add(store, "d", "From a or p.", J(["p"]))
    change, restorations = tms.retract_with_restorations(store, "p")
    assert "d" in change.went_out
    assert [r.id for r in restorations] == ["d"]  # a is pinned OUT; p is the one retracted
    again, none = tms.retract_with_restorations(store, "p")
    assert (again.went_out, none) == ([], [])

