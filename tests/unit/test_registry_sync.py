"""What `import --sync` plans from a file and the graph (engine/registry_sync.plan_sync),
without a store."""
from __future__ import annotations

import dataclasses

import pytest

from engine.errors import InvalidInput
from engine.model import Belief, Justification, Nogood, Truth
from engine.registry_sync import plan_sync
from engine.tms.records import Network


def _graph() -> Network:
    return Network({"p": Belief("p", "premise"), "q": Belief("q", "other"),
                    "d": Belief("d", "from p", (Justification(("p",)),)),
                    "x": Belief("x", "lonely")})


def test_an_unchanged_file_plans_nothing():
    g = _graph()
    plan, _ = plan_sync(g, g, {b: Truth.IN for b in g.beliefs})
    assert plan.is_empty()


def test_each_kind_of_edit_is_planned_as_its_own_write():
    g = _graph()
    f = Network({**g.beliefs,
                 "d": dataclasses.replace(g.beliefs["d"], text="from p, reworded",
                                          justifications=(Justification(("p", "q")),)),
                 "n": Belief("n", "new")}, [Nogood("ng", ("n", "p"))])
    del f.beliefs["x"]
    stored = {b: Truth.IN for b in f.beliefs} | {"q": Truth.OUT}
    plan, wanted = plan_sync(g, f, stored)
    assert (plan.added, plan.reworded, plan.justifications, plan.retracted, plan.removed,
            plan.nogoods_added) == (["n"], {"d": "from p"}, ["d"], ["q"], ["x"], ["ng"])
    assert wanted["q"].retracted


def test_a_removed_belief_that_something_names_refuses_the_sync():
    g = _graph()
    f = Network({k: v for k, v in g.beliefs.items() if k != "p"})
    with pytest.raises(InvalidInput, match="'p' is gone from the file but 'd' rests on it"):
        plan_sync(g, f, {b: Truth.IN for b in f.beliefs})


def test_nogoods_gone_from_the_file_are_removed_and_changed_ones_recreated():
    g = _graph()
    g.nogoods.extend([Nogood("ng-gone", ("p", "x")), Nogood("ng-moved", ("p", "q"))])
    f = Network({k: v for k, v in g.beliefs.items() if k != "x"},
                [Nogood("ng-moved", ("q", "d"))])
    plan, _ = plan_sync(g, f, {b: Truth.IN for b in f.beliefs})
    # x was held only by a nogood the file drops: it goes with it
    assert (plan.nogoods_removed, plan.nogoods_changed, plan.nogoods_added,
            plan.removed) == (["ng-gone"], ["ng-moved"], [], ["x"])
    assert not plan.is_empty()


def test_a_removed_belief_a_nogood_of_the_file_holds_refuses_the_sync():
    g = _graph()
    f = Network({k: v for k, v in g.beliefs.items() if k != "x"}, [Nogood("ng", ("p", "x"))])
    with pytest.raises(InvalidInput, match="nogood 'ng' holds it"):
        plan_sync(g, f, {b: Truth.IN for b in f.beliefs})
