"""What is due: IN derived beliefs without a current review, shallowest first, each only once
every derived belief it rests on has a current review; stale when a text it was shown
changes; --ids, --min-depth, --all, --no-wait; what each held-back belief waits on, and what
a belief the run gave up on releases."""
from __future__ import annotations

import dataclasses

from engine import tms
from engine.model import Justification
from engine.review.due import DueOptions, holds, read_due
from engine.review.records import ReviewCandidate
from tests.derive_fakes import derived, load, premise
from tests.fakes import FakeStore
from tests.review_fakes import loaded, reply, review_round, stage, verdict


def due(store, **options):
    return store.read(lambda tx: read_due(tx, DueOptions(**options))).due


def all_valid(shown):
    return reply(*(verdict(b, n) for b, ns in shown.context.expected.items() for n in ns))


def test_first_the_beliefs_that_rest_only_on_premises_then_what_rests_on_them():
    store = loaded(FakeStore())
    assert due(store) == ("either", "mixed", "solo")
    s = stage()
    shown, _, _ = review_round(store, s, all_valid(s.read_round(store, 1)))
    assert shown.shown == ("either", "mixed", "solo")
    assert due(store) == ("chain", "top")
    review_round(store, s, all_valid(s.read_round(store, 2)), n=2)
    assert due(store) == ()
    assert s.read_round(store, 3).empty


def test_shallowest_first_and_the_budget_takes_the_first():
    store = FakeStore()
    load(store, [premise("p"), premise("q"), derived("z1", ("p", "q")),
                 derived("a2", ("z1", "p")), derived("b1", ("q", "p"))])
    # a2 waits for z1; among the due, depth then id
    assert due(store) == ("b1", "z1")
    assert stage(budget=1).read_round(store, 1).shown == ("b1",)


def test_a_stale_review_comes_due_again_when_an_antecedent_text_changes():
    store = loaded(FakeStore())
    s = stage()
    review_round(store, s, all_valid(s.read_round(store, 1)))
    review_round(store, s, all_valid(s.read_round(store, 2)), n=2)
    assert due(store) == ()
    b = store.state.beliefs["p3"]
    store.state.beliefs["p3"] = dataclasses.replace(b, text="The load test was misread.")
    # mixed showed p3's text; top rests on solo and p3 too; chain waits for mixed again
    assert due(store) == ("mixed", "top")
    b = store.state.beliefs["mixed"]
    store.state.beliefs["mixed"] = dataclasses.replace(b, text="Auth is slow.")
    assert due(store) == ("mixed", "top")  # its own claim changed too; chain still waits


def test_a_new_justification_makes_a_review_stale():
    store = loaded(FakeStore())
    s = stage()
    review_round(store, s, all_valid(s.read_round(store, 1)))
    store.write(lambda tx: tx.add_justifications("solo", [Justification(("p4",))]))
    assert "solo" in due(store)


def test_out_beliefs_are_never_due():
    store = loaded(FakeStore())
    tms.retract(store, "p1", "gone")  # solo and mixed#1 fail; mixed holds by p3
    assert due(store) == ("either", "mixed")


def test_ids_take_exactly_those_beliefs_and_none_waits():
    store = loaded(FakeStore())
    assert due(store, ids=("top", "chain", "p1", "nope")) == ("chain", "top")


def test_min_depth_leaves_the_shallow_out_and_they_hold_nothing_back():
    store = loaded(FakeStore())
    assert due(store, min_depth=2) == ("chain", "top")


def test_all_reviews_again_what_was_reviewed_before_the_run():
    store = loaded(FakeStore())
    s = stage()
    review_round(store, s, all_valid(s.read_round(store, 1)))
    stamp = store.state.reviews["solo"].at
    assert "solo" not in due(store)
    later = "9999-01-01T00:00:00+00:00"
    assert "solo" in due(store, review_all=True, since=later)
    assert "solo" not in due(store, review_all=True, since=stamp)


def test_a_loop_of_support_is_taken_together():
    cands = [ReviewCandidate("a", 1, rests_on=("b",)), ReviewCandidate("b", 1, rests_on=("a",)),
             ReviewCandidate("c", 2, rests_on=("a",))]
    assert holds(cands, set(), independent=False).state == {"a": "due", "b": "due",
                                                             "c": "waiting"}
    assert holds(cands, {"a", "b"}, independent=False).state["c"] == "due"


def test_a_current_belief_over_a_due_one_holds_back_what_rests_on_it():
    cands = [ReviewCandidate("a", 1), ReviewCandidate("b", 2, rests_on=("a",)),
             ReviewCandidate("c", 3, rests_on=("b",))]
    assert holds(cands, {"b"}, independent=False).state == {"a": "due", "b": "waiting",
                                                             "c": "waiting"}


CHAIN = [ReviewCandidate("a", 1), ReviewCandidate("s", 1), ReviewCandidate("b", 2, rests_on=("a",)),
         ReviewCandidate("c", 3, rests_on=("b", "s")), ReviewCandidate("d", 2, rests_on=("s",))]


def test_each_held_back_belief_names_the_unreviewed_beliefs_it_rests_on():
    found = holds(CHAIN, set(), independent=False)
    assert found.waiting_on == {"b": ("a",), "c": ("b", "s"), "d": ("s",)}
    assert found.released == frozenset()
    # b reviewed: c still waits on s, and only on s
    assert holds(CHAIN, {"a", "b"}, independent=False).waiting_on == {"c": ("s",), "d": ("s",)}


def test_a_belief_given_up_holds_nothing_back_and_what_waited_only_on_it_is_released():
    found = holds(CHAIN, {"a", "b"}, independent=False, given_up=frozenset({"s"}))
    assert found.state == {"a": "ok", "b": "ok", "s": "due", "c": "due", "d": "due"}
    assert found.released == {"c", "d"} and found.waiting_on == {}
    # while b is not reviewed, c still waits on b (not released); d is released
    found = holds(CHAIN, set(), independent=False, given_up=frozenset({"s"}))
    assert found.waiting_on == {"b": ("a",), "c": ("b",)} and found.released == {"d"}


def test_no_wait_makes_every_belief_without_a_current_review_due():
    store = loaded(FakeStore())
    assert due(store, wait=False) == ("either", "mixed", "solo", "chain", "top")
    listed = store.read(lambda tx: read_due(tx, DueOptions()))
    assert listed.waiting_on == {"chain": ("mixed",), "top": ("solo",)}
