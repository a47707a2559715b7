"""Propagation (engine/tms/propagate.py) without Neo4j: the fake store answers its
RegionReader as the Neo4j queries do, so the rules that decide most labels in production
(unchanged parents, a simple belief gone OUT at its old depth, antecedent classes) are tested
here. After any sequence of edits of any memory the labels, depths and access tags equal the
model computed from scratch, and each edit reports exactly what crossed IN/OUT
(PROPAGATE_EXAMPLES sets how many examples, 300 by default)."""
from __future__ import annotations

import os
from collections.abc import Sequence

from hypothesis import currently_in_test_context, event, given, settings
from hypothesis import strategies as st

from engine import tms
from engine.model import Justification, Truth
from engine.tms.values import IN, OUT
from tests.fakes import FakeRegionReader, FakeStore, FakeTx
from tests.tms_edits import run_edits


def note(what: str) -> None:
    if currently_in_test_context():  # the property test's statistics; the examples assert
        event(what)


class WatchedReader(FakeRegionReader):
    """Notes what one propagation reads in full and what it decides from antecedent
    classes; `propagations` keeps every one since `watched()`."""

    propagations: list[WatchedReader] = []

    def __init__(self, state):
        super().__init__(state)
        self.read_in_full: list[str] = []
        self.by_classes: list[str] = []
        WatchedReader.propagations.append(self)

    def structure(self, keys: Sequence[str]):
        self.read_in_full.extend(keys)
        return super().structure(keys)

    def antecedent_classes(self, keys: Sequence[str]):
        self.by_classes.extend(keys)
        note("a simple belief decided from its antecedent classes")
        return super().antecedent_classes(keys)

    def write_labels(self, rank: int, keys: Sequence[str]):
        if rank == OUT and set(keys) - set(self.read_in_full) - set(self.by_classes):
            note("a simple belief taken OUT at its old depth, unread")
        if rank == IN and set(keys) & set(self.by_classes):
            note("a simple belief brought IN by its antecedent classes")
        return super().write_labels(rank, keys)


class WatchedTx(FakeTx):
    reader_type = WatchedReader


class WatchedStore(FakeStore):
    tx_type = WatchedTx


def watched() -> WatchedStore:
    WatchedReader.propagations = []
    return WatchedStore()


def reads() -> tuple[list[str], list[str]]:
    """What the propagations since the last call read in full, and decided by classes."""
    done, WatchedReader.propagations = WatchedReader.propagations, []
    return ([k for r in done for k in r.read_in_full], [k for r in done for k in r.by_classes])


@settings(max_examples=int(os.environ.get("PROPAGATE_EXAMPLES", "300")), deadline=None)
@given(data=st.data())
def test_any_edits_keep_the_well_founded_model(data):
    run_edits(watched(), data)


# --- the rules, seen at work ---------------------------------------------------------------
def chain(store: FakeStore, n: int) -> None:
    """p, then c1 <- p, c2 <- c1, ...: every derived belief simple."""
    tms.add(store, "p", "premise")
    tms.add(store, "q", "another premise")
    for i in range(1, n + 1):
        tms.add(store, f"c{i}", f"step {i}", (Justification((f"c{i - 1}" if i > 1 else "p",
                                                             "q")),))


def test_a_retraction_reads_only_its_seed_in_full():
    store = watched()
    chain(store, 5)
    reads()
    change = tms.retract(store, "p")
    assert change.went_out == ["c1", "c2", "c3", "c4", "c5", "p"]
    assert reads() == (["p"], [])
    assert [store.state.beliefs[f"c{i}"].depth for i in range(1, 6)] == [1, 2, 3, 4, 5]


def test_a_reassertion_decides_simple_beliefs_from_their_antecedent_classes():
    store = watched()
    chain(store, 3)
    tms.retract(store, "p")
    tms.retract(store, "q")
    reads()
    assert tms.assert_belief(store, "p").went_in == ["p"]  # q still holds c1 OUT
    assert reads() == (["p"], ["c1"])
    assert tms.assert_belief(store, "q").went_in == ["c1", "c2", "c3", "q"]


def test_a_belief_whose_parents_keep_their_labels_is_not_read():
    store = watched()
    chain(store, 3)
    tms.add(store, "r", "a second way to c1", ())
    tms.add_justification(store, "c1", (Justification(("r",)),))  # c1 no longer simple
    reads()
    assert tms.retract(store, "p").went_out == ["p"]  # c1 holds through r
    assert reads() == (["p", "c1"], [])


def test_a_depth_change_is_read_in_full_and_passed_down():
    store = watched()
    tms.add(store, "p", "premise")
    tms.add(store, "q", "premise")
    tms.add(store, "s1", "s1", (Justification(("q",)),))
    tms.add(store, "s2", "s2", (Justification(("s1",)),))
    tms.add(store, "c1", "c1", (Justification(("p",)), Justification(("s2",))))
    tms.add(store, "c2", "c2", (Justification(("c1",)),))
    tms.add(store, "c3", "c3", (Justification(("c2",)),))
    assert [store.state.beliefs[b].depth for b in ("c1", "c2", "c3")] == [1, 2, 3]
    reads()
    assert tms.retract(store, "p").went_out == ["p"]  # c1 holds through s2, deeper
    assert [store.state.beliefs[b].depth for b in ("c1", "c2", "c3")] == [3, 4, 5]
    assert reads() == (["p", "c1", "c2", "c3"], [])  # a parent's depth changed: read in full


def test_a_placeholder_added_deeper_than_depth_0_passes_its_depth_down():
    # c saw m as a placeholder (OUT, depth 0); m added on a cycle with no finite derivation
    # is OUT with no depth: c's parent kept its value but not its depth, so c is read
    store = watched()
    tms.add(store, "a", "needs b", (Justification(("b",)),))
    tms.add(store, "c", "needs m", (Justification(("m",)),))
    tms.add(store, "b", "needs a", (Justification(("a",)),))
    assert store.state.beliefs["c"].depth == 1
    reads()
    tms.add(store, "m", "needs a", (Justification(("a",)),))
    assert [store.state.beliefs[b].depth for b in ("m", "c")] == [None, None]
    assert reads() == (["m", "c"], [])


def test_a_simple_belief_on_an_undetermined_one_comes_back_undetermined_by_its_classes():
    store = watched()
    tms.add(store, "u", "unless v", tms.make_justifications((), unless=["v"]))
    tms.add(store, "v", "unless u", tms.make_justifications((), unless=["u"]))  # a loop
    tms.add(store, "p", "premise")
    tms.add(store, "c", "needs u and p", (Justification(("u", "p")),))
    tms.retract(store, "p")
    assert store.state.beliefs["c"].truth == Truth.OUT
    reads()
    tms.assert_belief(store, "p")  # u, outside the region, is UNDETERMINED: so is c
    assert store.state.beliefs["c"].truth == Truth.UNDETERMINED
    assert reads() == (["p"], ["c"])
