"""engine.tms.repair on the in-memory fake: it writes exactly the from-scratch labels where
the stored ones differ, and reports what went IN and OUT."""
from __future__ import annotations

import dataclasses

from engine import tms
from engine.model import Truth
from tests.fakes import FakeStore

J = tms.make_justifications


def corrupt(store: FakeStore, bid: str, **fields) -> None:
    store.state.beliefs[bid] = dataclasses.replace(store.state.beliefs[bid], **fields)


def test_repair_writes_the_from_scratch_labels_where_they_differ():
    store = FakeStore()
    tms.add(store, "p", "a premise")
    tms.add(store, "a", "from p", J(["p"]))
    tms.add(store, "g", "unless p", J([], unless=["p"]))
    corrupt(store, "a", truth=Truth.OUT)
    corrupt(store, "g", truth=Truth.IN, depth=4)
    assert {m.id for m in tms.verify(store)} == {"a", "g"}
    writes = store.writes
    result = tms.repair(store)
    assert store.writes == writes + 1  # one transaction
    assert [(m.id, m.stored, m.computed) for m in result.repaired] == [
        ("a", "OUT", "IN"), ("g", "IN", "OUT")]
    assert (result.change.went_in, result.change.went_out) == (["a"], ["g"])
    assert tms.verify(store) == []


def test_repair_of_a_clean_graph_changes_nothing():
    store = FakeStore()
    tms.add(store, "p", "a premise")
    before = dict(store.state.beliefs)
    assert tms.repair(store).repaired == []
    assert store.state.beliefs == before
