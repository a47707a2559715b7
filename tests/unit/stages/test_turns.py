"""Turns (engine/stages/turns.py): what a model passes over goes behind the rest, at most k
showings, `once` items one showing, `end` makes every pass over the last; first showings
counted; a round's report fields."""
from __future__ import annotations

from engine.stages.turns import PASSED_OVER, UNANSWERED, Turns


def test_what_is_passed_over_goes_behind_every_item_passed_over_fewer_times():
    t = Turns(showings=2)
    assert t.order(["a", "b", "c", "d"], str) == ["a", "b", "c", "d"]
    assert t.show(["a", "b"]) == 2
    t.closed(["a", "b"], judged={"b"})  # a passed over once; b judged
    # a behind c and d (never passed over), which keep the stage's order among themselves
    assert t.order(["a", "c", "d"], str) == ["c", "d", "a"]
    assert t.show(["c", "d"]) == 2 and t.show(["a"]) == 0  # a was shown before
    t.closed(["c"], judged=set())
    assert t.order(["a", "c", "d"], str) == ["d", "a", "c"]  # a passed over first: due first


def test_an_item_due_later_comes_after_those_due_before_it_when_passed_over_as_often():
    t = Turns()
    assert t.order(["m", "z"], str) == ["m", "z"]
    # a comes due in the second read: by the stage's order it is first, but m and z waited
    assert t.order(["a", "m", "z"], str) == ["m", "z", "a"]


def test_after_k_passes_an_item_is_given_up_and_reported_unanswered():
    t = Turns(showings=2)
    t.order(["a", "b"], str)
    for _ in range(2):
        t.closed(["a"], judged=set())
    assert t.given_up() == {"a"}
    assert t.order(["a", "b"], str) == ["b"]
    assert t.unanswered() == {"a": 2}
    assert t.details(["a", "b"]) == {PASSED_OVER: {"a": 2}, UNANSWERED: ["a"]}


def test_a_judged_item_is_no_longer_passed_over():
    t = Turns()
    t.order(["a"], str)
    t.closed(["a"], judged=set())
    t.closed(["a"], judged={"a"})
    assert t.unanswered() == {} and t.given_up() == frozenset()


def test_once_items_and_the_end_give_up_after_one_pass():
    t = Turns(showings=3)
    assert t.order(["a", "r"], str, once={"r"}) == ["a", "r"]
    t.closed(["a", "r"], judged=set())
    assert t.given_up() == {"r"} and t.order(["a", "r"], str) == ["a"]
    t.end()
    assert t.given_up() == {"a", "r"} and t.order(["a", "r", "n"], str) == ["n"]


def test_clear_starts_a_new_run():
    t = Turns()
    t.order(["a"], str)
    t.show(["a"])
    t.closed(["a"], judged=set())
    t.end()
    t.clear()
    assert t.show(["a"]) == 1 and t.unanswered() == {} and t.order(["a"], str) == ["a"]
