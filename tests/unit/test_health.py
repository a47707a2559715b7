"""`health` on the in-memory store (engine/reading/health.py, engine/service/health.py):
each number on a small network built for it, the commands named under the program's name,
circular support found as the greatest set closed under it, the thresholds."""
from __future__ import annotations

import dataclasses

import pytest

from engine import tms
from engine.errors import InvalidInput
from engine.reading.health import circular
from engine.service import health, keeping, network, proposals
from engine.service.context import Context
from engine.service.network import justifications
from tests.fakes import FakeStore


def scene() -> Context:
    ctx = Context(FakeStore(), "tester", prog="eem")
    tms.add(ctx.store, "p", "A premise")
    tms.add(ctx.store, "q", "Another premise")
    tms.add(ctx.store, "loner", "Nothing rests on it")
    tms.add(ctx.store, "a", "From p", justifications(["p"]))
    tms.add(ctx.store, "b", "From a and q", justifications(["a", "q"]))
    # a loop of support with no way in: x and y rest on each other only
    tms.add(ctx.store, "x", "Rests on y", justifications(["y"]))
    tms.add(ctx.store, "y", "Rests on x", justifications(["x"]))
    tms.add(ctx.store, "z", "Rests on the loop", justifications(["x", "p"]))
    return ctx


def facts(ctx: Context):
    return health.health(ctx, health.HealthOptions(duplicates=False))


def test_the_numbers_of_a_small_network_each_with_its_command():
    ctx = scene()
    proposals.propose_retract(ctx, "p", "maybe")
    keeping.challenge(ctx, "b", "doubt")
    h = facts(ctx)
    assert h.figure("beliefs").numbers == {"total": 9, "in": 5, "out": 4, "undetermined": 0,
                                           "premises": 4, "derived": 5}
    assert h.figure("beliefs").command == "eem list --out"
    assert h.figure("review").numbers == {"derived": 1, "current": 0, "never": 1,
                                          "outdated": 0, "reviewed_pct": 0.0}
    assert h.figure("review").top == (("a", "never", 1),)  # b rests on it
    assert h.figure("review").command == "eem list --never-reviewed --sort impact"
    assert h.figure("review").note == "`eem review --model SPEC` reviews them"
    assert h.figure("circular").numbers == {"out": 3} and h.figure("circular").top == (
        "x", "y", "z")
    assert h.figure("loose").top == ("loner",)
    assert h.figure("open").numbers == {"proposals": 1, "challenges": 1}
    assert h.figure("duplicates").numbers == {"pairs": None}
    assert h.breaches == ()


def test_circular_support_is_the_greatest_set_closed_under_it():
    support = {"x": (("y",),), "y": (("x",),), "z": (("x", "gone"),), "w": (("x",), ("q",)),
               "v": ((),)}
    assert circular(support) == ["v", "w", "x", "y"]
    assert circular({"a": (("b",),), "b": (("c",),)}) == []  # c is not on the loop


def test_a_review_is_current_until_what_its_belief_rests_on_changes():
    ctx = scene()
    store = ctx.store
    stamp = "2999-01-01T00:00:00+00:00"  # after every write of this test
    b = tms.show(store, "b")[0]
    store.state.beliefs["b"] = dataclasses.replace(b, extra={"reviewed_at": stamp})
    numbers = facts(ctx).figure("review").numbers
    assert (numbers["current"], numbers["never"], numbers["outdated"]) == (1, 1, 0)
    a = tms.show(store, "a")[0]
    store.state.beliefs["a"] = dataclasses.replace(a, updated_at="3000-01-01T00:00:00+00:00")
    numbers = facts(ctx).figure("review").numbers
    assert (numbers["current"], numbers["never"], numbers["outdated"]) == (0, 1, 1)


def test_the_thresholds_are_crossed_or_not():
    ctx = scene()
    h = health.health(ctx, health.HealthOptions(duplicates=False, min_reviewed=50))
    assert h.breaches == ("0.0% of derived beliefs reviewed, fewer than --min-reviewed 50%",)
    assert health.health(ctx, health.HealthOptions(duplicates=False, min_reviewed=0)
                         ).breaches == ()
    with pytest.raises(InvalidInput):
        health.health(ctx, health.HealthOptions(min_reviewed=101))
    with pytest.raises(InvalidInput):
        health.health(ctx, health.HealthOptions(max_stale=-1))


def test_contradictions_count_the_nogoods_and_what_they_took_out():
    ctx = scene()
    network.nogood(ctx, ["p", "q"])
    c = facts(ctx).figure("contradictions")
    assert c.numbers == {"nogoods": 1, "holding": 0, "out_through_one": 1}
    assert c.command == "eem query nogoods"
