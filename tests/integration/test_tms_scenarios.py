"""Truth-maintenance scenarios through the real Neo4j store, via engine.tms.

Each step asserts exactly what went IN and OUT, the stored labels and depths, and that the
graph agrees with the from-scratch computation (tms.verify).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import engine.tms.nogoods
from adapters.formats import dump_network, read_network_file
from adapters.neo4j.store import Neo4jTx
from engine import interchange, tms
from engine.errors import InvalidInput
from engine.model import Kind, Truth
from engine.tms import explain as explaining

pytestmark = pytest.mark.neo4j

J = tms.make_justifications
IN, OUT, UND = Truth.IN, Truth.OUT, Truth.UNDETERMINED


# --- helpers -------------------------------------------------------------------------
def step(store, change, went_in=(), went_out=()):
    """Check one operation's reported change and that the graph verifies clean."""
    assert (change.went_in, change.went_out) == (sorted(went_in), sorted(went_out))
    assert tms.verify(store) == []
    return change


def labels(store) -> dict[str, tuple[Truth, int | None]]:
    return {b.id: (b.truth, b.depth) for b in tms.list_beliefs(store)}


def pins(store) -> dict[str, tuple[bool, bool]]:
    return {b.id: (b.retracted, b.asserted) for b in tms.list_beliefs(store)}


def raw_labels(driver, database) -> dict[str, set[str]]:
    records, _, _ = driver.execute_query(
        "MATCH (b:Belief) RETURN b.id AS id, labels(b) AS labels", database_=database
    )
    return {r["id"]: set(r["labels"]) for r in records}


def exported(store) -> str:
    return dump_network(interchange.export_network(store))


def import_file(store, path: Path) -> interchange.ImportReport:
    network, stored = read_network_file(path)
    return interchange.import_network(store, network, stored)


def write_json(tmp_path: Path, data, name="network.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def node(text=None, truth="IN", justifications=(), **fields):
    out = {"text": text or "a belief", "truth_value": truth,
           "justifications": [
               {"type": "SL", "antecedents": list(a), "outlist": list(o), "label": ""}
               for a, o in justifications
           ]}
    out.update(fields)
    return out


def assert_label_invariants(driver, database):
    for bid, names in raw_labels(driver, database).items():
        assert len(names & {"In", "Out"}) == 1, (bid, names)
        if "Undetermined" in names:
            assert "Out" in names, (bid, names)


# --- chains, diamonds, OR, AND -------------------------------------------------------
def test_chain_adds_in_and_retracting_its_root_takes_it_out(store):
    step(store, tms.add(store, "p", "root premise"), went_in=["p"])
    step(store, tms.add(store, "a", "from p", J(["p"])), went_in=["a"])
    step(store, tms.add(store, "b", "from a", J(["a"])), went_in=["b"])
    step(store, tms.add(store, "c", "from b", J(["b"])), went_in=["c"])
    assert labels(store) == {"p": (IN, 0), "a": (IN, 1), "b": (IN, 2), "c": (IN, 3)}

    step(store, tms.retract(store, "p"), went_out=["a", "b", "c", "p"])
    assert labels(store) == {"p": (OUT, 0), "a": (OUT, 1), "b": (OUT, 2), "c": (OUT, 3)}
    step(store, tms.assert_belief(store, "p"), went_in=["a", "b", "c", "p"])
    assert labels(store) == {"p": (IN, 0), "a": (IN, 1), "b": (IN, 2), "c": (IN, 3)}
    assert pins(store)["p"] == (False, False)


def test_diamond(store):
    tms.add(store, "p", "top")
    tms.add(store, "left", "left side", J(["p"]))
    tms.add(store, "right", "right side", J(["p"]))
    step(store, tms.add(store, "bottom", "both sides", J(["left", "right"])), went_in=["bottom"])
    assert labels(store)["bottom"] == (IN, 2)

    step(store, tms.retract(store, "left"), went_out=["bottom", "left"])
    assert labels(store) == {"p": (IN, 0), "left": (OUT, 1), "right": (IN, 1),
                             "bottom": (OUT, 2)}
    step(store, tms.retract(store, "p"), went_out=["p", "right"])
    # p is still retracted: left has no valid support, so it is held as a user-asserted fact
    step(store, tms.assert_belief(store, "left"), went_in=["left"])
    assert labels(store)["left"] == (IN, 0)
    step(store, tms.assert_belief(store, "p"), went_in=["bottom", "p", "right"])
    assert labels(store)["bottom"] == (IN, 2)


def test_or_of_two_justifications(store):
    tms.add(store, "a", "first reason")
    tms.add(store, "b", "second reason")
    step(store, tms.add(store, "c", "either reason", J(["a", "b"], any_mode=True)), went_in=["c"])
    assert len(tms.show(store, "c")[0].justifications) == 2

    step(store, tms.retract(store, "a"), went_out=["a"])
    assert labels(store)["c"] == (IN, 1)
    step(store, tms.retract(store, "b"), went_out=["b", "c"])
    step(store, tms.assert_belief(store, "a"), went_in=["a", "c"])


def test_or_keeps_the_depth_of_the_shallowest_valid_justification(store):
    tms.add(store, "p", "premise")
    tms.add(store, "q", "premise")
    tms.add(store, "a", "1", J(["q"]))
    tms.add(store, "b", "2", J(["a"]))
    tms.add(store, "c", "3", J(["b"]))
    tms.add(store, "d", "4", J(["c"]))
    assert labels(store)["d"] == (IN, 4)
    step(store, tms.add_justification(store, "d", J(["p"])))
    assert labels(store)["d"] == (IN, 1)
    step(store, tms.retract(store, "p"), went_out=["p"])
    assert labels(store)["d"] == (IN, 4)
    step(store, tms.retract(store, "q"), went_out=["a", "b", "c", "d", "q"])
    assert labels(store)["d"] == (OUT, 1)  # OUT: over its shallowest justification


def test_and_of_three(store):
    for p in ("a", "b", "c"):
        tms.add(store, p, f"premise {p}")
    step(store, tms.add(store, "d", "all three", J(["a", "b", "c"])), went_in=["d"])
    for p in ("a", "b", "c"):
        step(store, tms.retract(store, p), went_out=[p, "d"])
        step(store, tms.assert_belief(store, p), went_in=[p, "d"])
    step(store, tms.retract(store, "a"), went_out=["a", "d"])
    step(store, tms.retract(store, "b"), went_out=["b"])
    step(store, tms.assert_belief(store, "a"), went_in=["a"])
    step(store, tms.assert_belief(store, "b"), went_in=["b", "d"])


def test_cp_justification_is_kept_as_cp_and_evaluated_like_sl(store):
    tms.add(store, "p", "premise")
    step(store, tms.add(store, "c", "conditional proof", J(["p"], kind=Kind.CP)), went_in=["c"])
    assert tms.show(store, "c")[0].justifications[0].kind == Kind.CP
    step(store, tms.retract(store, "p"), went_out=["c", "p"])


# --- outlists ------------------------------------------------------------------------
def test_outlist_gate_in_both_directions(store):
    tms.add(store, "p", "premise")
    tms.add(store, "x", "the exception")
    step(store, tms.add(store, "g", "p unless x", J(["p"], unless=["x"])))
    step(store, tms.add(store, "h", "follows g", J(["g"])))
    step(store, tms.add(store, "k", "unless g", J([], unless=["g"])), went_in=["k"])
    assert labels(store) == {"p": (IN, 0), "x": (IN, 0), "g": (OUT, 1), "h": (OUT, 2),
                             "k": (IN, 1)}
    # the outlist member goes OUT: the gate opens
    step(store, tms.retract(store, "x"), went_in=["g", "h"], went_out=["k", "x"])
    # the outlist member comes IN: the gate closes
    step(store, tms.assert_belief(store, "x"), went_in=["k", "x"], went_out=["g", "h"])
    # the gate's antecedent goes OUT while its outlist member is OUT
    step(store, tms.retract(store, "x"), went_in=["g", "h"], went_out=["k", "x"])
    step(store, tms.retract(store, "p"), went_in=["k"], went_out=["g", "h", "p"])


def test_gate_whose_antecedent_goes_out_in_the_same_cascade_stays_out(store):
    # Retracting p takes x OUT (which alone would open the gate) and, two steps later,
    # the gate's own antecedent a2: the gate must stay OUT.
    tms.add(store, "p", "premise")
    tms.add(store, "a1", "from p", J(["p"]))
    tms.add(store, "a2", "from a1", J(["a1"]))
    tms.add(store, "x", "from p", J(["p"]))
    step(store, tms.add(store, "g", "a2 unless x", J(["a2"], unless=["x"])))
    assert labels(store)["g"] == (OUT, 3)
    step(store, tms.retract(store, "p"), went_out=["a1", "a2", "p", "x"])
    assert labels(store)["g"] == (OUT, 3)
    step(store, tms.assert_belief(store, "p"), went_in=["a1", "a2", "p", "x"])
    assert labels(store)["g"] == (OUT, 3)


def test_gate_whose_outlist_member_goes_out_late_in_the_cascade(store):
    tms.add(store, "p", "premise")
    tms.add(store, "a", "from p", J(["p"]))
    tms.add(store, "x1", "from p", J(["p"]))
    tms.add(store, "x2", "from x1", J(["x1"]))
    tms.add(store, "x", "from x2", J(["x2"]))
    step(store, tms.add(store, "g", "a unless x", J(["a"], unless=["x"])))
    step(store, tms.retract(store, "p"), went_out=["a", "p", "x", "x1", "x2"])
    assert labels(store)["g"] == (OUT, 2)


# --- pins ----------------------------------------------------------------------------
def test_retract_then_assert_restores_exactly_the_previous_labels(store, driver, neo4j_settings):
    tms.add(store, "p", "premise")
    tms.add(store, "q", "another premise")
    tms.add(store, "a", "from p", J(["p"]))
    tms.add(store, "b", "from a or q", J(["a", "q"], any_mode=True))
    tms.add(store, "c", "a and q", J(["a", "q"]))
    tms.add(store, "g", "q unless a", J(["q"], unless=["a"]))
    tms.add(store, "x", "unless y", J([], unless=["y"]))
    tms.add(store, "y", "unless x", J([], unless=["x"]))
    tms.add(store, "z", "p and x", J(["p", "x"]))
    before, raw_before = labels(store), raw_labels(driver, neo4j_settings.database)
    assert before["z"] == (UND, 2)

    out = step(store, tms.retract(store, "p"), went_in=["g"], went_out=["a", "c", "p"])
    assert labels(store)["z"] == (OUT, 2)  # no longer undetermined: p is OUT for sure
    step(store, tms.assert_belief(store, "p"), went_in=out.went_out, went_out=out.went_in)
    assert labels(store) == before
    assert raw_labels(driver, neo4j_settings.database) == raw_before
    assert all(pins(store)[b] == (False, False) for b in before)


def test_sticky_retraction_of_a_derived_belief(store):
    tms.add(store, "p", "premise")
    tms.add(store, "c", "from p", J(["p"]))
    tms.add(store, "d", "from c", J(["c"]))
    step(store, tms.retract(store, "c", reason="checked by hand"), went_out=["c", "d"])
    belief, _ = tms.show(store, "c")
    assert (belief.truth, belief.retracted, belief.retract_reason) == (OUT, True, "checked by hand")

    step(store, tms.retract(store, "p"), went_out=["p"])
    step(store, tms.assert_belief(store, "p"), went_in=["p"])  # c stays retracted
    assert labels(store) == {"p": (IN, 0), "c": (OUT, 1), "d": (OUT, 2)}

    step(store, tms.assert_belief(store, "c"), went_in=["c", "d"])
    belief, _ = tms.show(store, "c")
    assert (belief.retracted, belief.asserted, belief.depth) == (False, False, 1)
    # c holds by its support again, not as a fact
    step(store, tms.retract(store, "p"), went_out=["c", "d", "p"])


def test_assert_on_a_derived_belief_without_support_holds_it_as_a_fact(store):
    tms.add(store, "p", "premise")
    tms.add(store, "c", "from p", J(["p"]))
    tms.add(store, "d", "from c", J(["c"]))
    step(store, tms.retract(store, "p"), went_out=["c", "d", "p"])

    step(store, tms.assert_belief(store, "c"), went_in=["c", "d"])
    belief, _ = tms.show(store, "c")
    assert (belief.truth, belief.asserted, belief.depth) == (IN, True, 0)
    assert labels(store)["d"] == (IN, 1)

    step(store, tms.assert_belief(store, "p"), went_in=["p"])
    assert labels(store)["c"] == (IN, 0)  # still held as a fact: depth 0 whatever its support

    step(store, tms.retract(store, "c"), went_out=["c", "d"])
    step(store, tms.assert_belief(store, "c"), went_in=["c", "d"])
    assert pins(store)["c"] == (False, False)  # supported again: no need to hold it as a fact


def test_assert_on_a_belief_that_is_in_changes_nothing(store):
    tms.add(store, "p", "premise")
    tms.add(store, "c", "from p", J(["p"]))
    step(store, tms.assert_belief(store, "p"))
    step(store, tms.assert_belief(store, "c"))
    assert pins(store) == {"p": (False, False), "c": (False, False)}


# --- forward references --------------------------------------------------------------
def test_forward_references_are_reevaluated_when_the_belief_is_added(store, driver, neo4j_settings):
    step(store, tms.add(store, "c", "needs m", J(["m"])))
    step(store, tms.add(store, "g", "unless m", J([], unless=["m"])), went_in=["g"])
    step(store, tms.add(store, "d", "needs c", J(["c"])))
    assert labels(store) == {"c": (OUT, 1), "d": (OUT, 2), "g": (IN, 1)}
    assert tms.show(store, "c")[0].justifications[0].antecedents == ("m",)

    step(store, tms.add(store, "m", "now here"), went_in=["c", "d", "m"], went_out=["g"])
    assert labels(store) == {"c": (IN, 1), "d": (IN, 2), "g": (OUT, 1), "m": (IN, 0)}
    assert tms.show(store, "m")[1] == ["c", "g"]
    records, _, _ = driver.execute_query("MATCH (m:Missing) RETURN m.id AS id",
                                         database_=neo4j_settings.database)
    assert records == []


def test_forward_reference_resolved_by_a_derived_belief(store):
    tms.add(store, "p", "premise")
    step(store, tms.add(store, "c", "needs m", J(["m"])))
    step(store, tms.add(store, "m", "from p", J(["p"])), went_in=["c", "m"])
    step(store, tms.retract(store, "p"), went_out=["c", "m", "p"])


def test_forward_reference_in_add_justification(store):
    tms.add(store, "p", "premise, soon derived")
    step(store, tms.add_justification(store, "p", J(["later"])), went_out=["p"])
    assert labels(store)["p"] == (OUT, 1)
    step(store, tms.add(store, "later", "arrives"), went_in=["later", "p"])


def test_a_forward_reference_added_with_no_finite_depth_takes_its_dependents_depth(store):
    # m was a placeholder (depth 0) to c; added, it rests on a cycle with no finite
    # derivation, so c has none either (found by the property test of propagation on the
    # fake store: c kept its depth 1)
    step(store, tms.add(store, "a", "needs b", J(["b"])))
    step(store, tms.add(store, "c", "needs m", J(["m"])))
    step(store, tms.add(store, "b", "needs a", J(["a"])))
    assert labels(store) == {"a": (OUT, None), "b": (OUT, None), "c": (OUT, 1)}
    step(store, tms.add(store, "m", "needs a", J(["a"])))
    assert labels(store) == {"a": (OUT, None), "b": (OUT, None), "c": (OUT, None),
                             "m": (OUT, None)}


def test_export_gives_back_forward_reference_ids_as_written(store):
    tms.add(store, "c", "needs two", J(["not-yet.1", "not-yet:2"], unless=["gone_3"]))
    node = json.loads(exported(store))["nodes"]["c"]
    assert node["justifications"][0]["antecedents"] == ["not-yet.1", "not-yet:2"]
    assert node["justifications"][0]["outlist"] == ["gone_3"]
    assert set(json.loads(exported(store))["nodes"]) == {"c"}


# --- circular support ----------------------------------------------------------------
def test_positive_cycle_without_outside_support_is_out(store):
    step(store, tms.add(store, "a", "needs b", J(["b"])))
    step(store, tms.add(store, "b", "needs a", J(["a"])))
    assert labels(store) == {"a": (OUT, None), "b": (OUT, None)}
    tms.add(store, "p", "outside support")
    step(store, tms.add_justification(store, "a", J(["p"])), went_in=["a", "b"])
    assert labels(store) == {"a": (IN, 1), "b": (IN, 2), "p": (IN, 0)}
    step(store, tms.retract(store, "p"), went_out=["a", "b", "p"])
    assert labels(store) == {"a": (OUT, 1), "b": (OUT, 2), "p": (OUT, 0)}


def test_self_support_from_a_file_is_out(store, tmp_path):
    report = import_file(store, write_json(tmp_path, {"nodes": {
        "s": node("holds itself up", justifications=[(["s"], [])]),
        "t": node("rests on s", justifications=[(["s"], [])]),
        "p": node("a premise"),
        "u": node("s or p", justifications=[(["s"], []), (["p"], [])]),
    }}))
    assert report.self_listed == ["s"]
    assert labels(store) == {"s": (OUT, None), "t": (OUT, None), "p": (IN, 0), "u": (IN, 1)}
    assert tms.verify(store) == []


# --- loops through outlists ----------------------------------------------------------
EVEN = {"x": J([], unless=["y"]), "y": J([], unless=["x"]), "z": J(["x"]),
        "w": J([], unless=["z"])}
ODD = {"a": J([], unless=["c"]), "b": J(["a"]), "c": J(["b"])}


def _build(store, spec, order):
    return [tms.add(store, bid, f"belief {bid}", spec[bid]) for bid in order]


def _state(store, driver, database):
    return labels(store), raw_labels(driver, database), tms.status(store)


def test_even_loop_is_undetermined_whatever_the_insertion_order(store, driver, neo4j_settings):
    db = neo4j_settings.database
    changes = _build(store, EVEN, ["x", "y", "z", "w"])
    assert [(c.went_in, c.went_out) for c in changes] == [
        (["x"], []), ([], ["x"]), ([], []), ([], [])]
    assert tms.verify(store) == []
    first = _state(store, driver, db)
    assert first[0] == {"x": (UND, 1), "y": (UND, 1), "z": (UND, 2), "w": (UND, 1)}
    assert first[2].undetermined_ids == ("w", "x", "y", "z")
    assert first[2].undetermined == 4
    assert all(names == {"Belief", "Out", "Undetermined"} for names in first[1].values())

    for order in (["w", "z", "y", "x"], ["z", "x", "w", "y"]):
        tms.reset(store)
        _build(store, EVEN, order)
        assert tms.verify(store) == []
        assert _state(store, driver, db) == first, order


def test_even_loop_reported_changes_in_reverse_order(store):
    changes = _build(store, EVEN, ["w", "z", "y", "x"])
    assert [(c.went_in, c.went_out) for c in changes] == [
        (["w"], []), ([], []), (["y"], []), ([], ["w", "y"])]


def test_odd_loop_is_undetermined_whatever_the_insertion_order(store, driver, neo4j_settings):
    db = neo4j_settings.database
    changes = _build(store, ODD, ["a", "b", "c"])
    assert [(c.went_in, c.went_out) for c in changes] == [
        (["a"], []), (["b"], []), ([], ["a", "b"])]
    assert tms.verify(store) == []
    first = _state(store, driver, db)
    assert first[0] == {"a": (UND, 1), "b": (UND, 2), "c": (UND, 3)}
    assert first[2].undetermined_ids == ("a", "b", "c")

    for order in (["c", "b", "a"], ["b", "a", "c"]):
        tms.reset(store)
        _build(store, ODD, order)
        assert tms.verify(store) == []
        assert _state(store, driver, db) == first, order


def test_odd_loop_of_one_from_a_file_is_undetermined(store, tmp_path):
    import_file(store, write_json(tmp_path, {"nodes": {
        "a": node("unless itself", justifications=[([], ["a"])]),
        "b": node("rests on a", justifications=[(["a"], [])]),
    }}))
    assert labels(store) == {"a": (UND, 1), "b": (UND, 2)}
    assert tms.status(store).undetermined_ids == ("a", "b")
    assert tms.verify(store) == []


def test_loops_are_settled_by_retraction_and_assert_then_holds_the_belief(store, driver,
                                                                         neo4j_settings):
    _build(store, EVEN, ["x", "y", "z", "w"])
    step(store, tms.retract(store, "y"), went_in=["x", "z"])
    assert labels(store) == {"x": (IN, 1), "y": (OUT, 1), "z": (IN, 2), "w": (OUT, 1)}
    assert tms.status(store).undetermined_ids == ()
    # un-retracted, y would be undetermined again (no valid support): assert holds it as
    # a user-asserted fact, which settles the loop the other way
    step(store, tms.assert_belief(store, "y"), went_in=["w", "y"], went_out=["x", "z"])
    assert labels(store) == {"x": (OUT, 1), "y": (IN, 0), "z": (OUT, 2), "w": (IN, 1)}
    assert pins(store)["y"] == (False, True)
    assert tms.status(store).undetermined_ids == ()
    assert_label_invariants(driver, neo4j_settings.database)

    tms.reset(store)
    _build(store, ODD, ["a", "b", "c"])
    step(store, tms.retract(store, "c"), went_in=["a", "b"])
    assert labels(store) == {"a": (IN, 1), "b": (IN, 2), "c": (OUT, 3)}
    step(store, tms.assert_belief(store, "c"), went_in=["c"], went_out=["a", "b"])
    assert labels(store) == {"a": (OUT, 1), "b": (OUT, 2), "c": (IN, 0)}
    step(store, tms.retract(store, "c"), went_in=["a", "b"], went_out=["c"])
    assert pins(store)["c"] == (True, False)


def test_undetermined_beliefs_carry_out_and_undetermined_and_every_belief_one_truth_label(
        store, driver, neo4j_settings):
    tms.add(store, "p", "premise")
    tms.add(store, "q", "to be retracted")
    tms.add(store, "a", "from p", J(["p"]))
    tms.add(store, "b", "from q", J(["q"]))
    tms.add(store, "m", "forward", J(["missing-one"]))
    _build(store, EVEN, ["x", "y", "z", "w"])
    tms.retract(store, "q")
    names = raw_labels(driver, neo4j_settings.database)
    assert names == {
        "p": {"Belief", "In"}, "q": {"Belief", "Out"}, "a": {"Belief", "In"},
        "b": {"Belief", "Out"}, "m": {"Belief", "Out"},
        "x": {"Belief", "Out", "Undetermined"}, "y": {"Belief", "Out", "Undetermined"},
        "z": {"Belief", "Out", "Undetermined"}, "w": {"Belief", "Out", "Undetermined"},
    }
    tms.retract(store, "y")
    tms.assert_belief(store, "q")
    assert_label_invariants(driver, neo4j_settings.database)
    assert tms.verify(store) == []


# --- nogoods -------------------------------------------------------------------------
def test_nogood_resolution_needs_two_retractions(store):
    # m1 rests on either of two plain premises; m2 on a premise with a source (more
    # entrenched). Retracting p1 leaves m1 IN through p2, so p2 must go too.
    tms.add(store, "p1", "first reason for m1")
    tms.add(store, "p2", "second reason for m1")
    tms.add(store, "q", "observed", source="lab-notebook.md")
    tms.add(store, "m1", "member one", J(["p1", "p2"], any_mode=True))
    tms.add(store, "m2", "member two", J(["q"]))

    change = step(store, tms.add_nogood(store, ["m1", "m2"], "ng-m"),
                  went_out=["m1", "p1", "p2"])
    assert change.retracted_by_nogood == ["p1", "p2"]
    for p in ("p1", "p2"):
        belief, _ = tms.show(store, p)
        assert (belief.truth, belief.retracted, belief.retract_reason) == (OUT, True, "nogood ng-m")
    assert labels(store)["m2"] == (IN, 1)
    assert tms.status(store).nogoods == 1

    # a later change that makes every member IN again triggers it again
    step(store, tms.add(store, "r", "a third reason"), went_in=["r"])
    change = step(store, tms.add_justification(store, "m1", J(["r"])), went_out=["r"])
    assert change.retracted_by_nogood == ["r"]
    assert labels(store)["m1"][0] == OUT

    change = step(store, tms.assert_belief(store, "p2"))
    assert change.retracted_by_nogood == ["p2"]
    assert pins(store)["p2"] == (True, False)
    assert labels(store)["m1"][0] == OUT


def test_nogood_that_does_not_hold_retracts_nothing(store):
    tms.add(store, "a", "premise")
    tms.add(store, "b", "premise")
    tms.retract(store, "b")
    change = step(store, tms.add_nogood(store, ["a", "b"]))
    assert change.retracted_by_nogood == []
    # asserting b makes it hold: b is the less entrenched? a and b tie; the id decides: a
    change = step(store, tms.assert_belief(store, "b"), went_in=["b"], went_out=["a"])
    assert change.retracted_by_nogood == ["a"]
    assert labels(store) == {"a": (OUT, 0), "b": (IN, 0)}


def test_nogood_on_a_forward_reference_is_enforced_when_the_belief_arrives(store, tmp_path):
    import_file(store, write_json(tmp_path, {
        "nodes": {"a": node("observed earlier")},
        "nogoods": [{"id": "ng-later", "nodes": ["a", "later"]}],
    }))
    change = step(store, tms.add(store, "later", "arrives"), went_in=["later"], went_out=["a"])
    assert change.retracted_by_nogood == ["a"]  # a tie on entrenchment: the smaller id


def test_nogood_with_no_assumption_to_retract_is_recorded_unresolved(store):
    tms.add(store, "g1", "unless x", J([], unless=["x"]))
    tms.add(store, "g2", "unless y", J([], unless=["y"]))
    change = step(store, tms.add_nogood(store, ["g1", "g2"], "ng-gates"))
    assert change.retracted_by_nogood == []
    nogood = json.loads(exported(store))["nogoods"][0]
    assert nogood["id"] == "ng-gates"
    assert nogood["resolution"].startswith("unresolved")


def test_an_unresolved_nogood_is_resolved_once_an_assumption_comes_under_it(store):
    """A write that moves no member's label can still put an assumption under the members
    (here a justification from a premise): the nogood is then resolved, not left holding
    (found by the property test, issue 45: enforcement looked only at members gone IN)."""
    tms.add(store, "g1", "unless x", J([], unless=["x"]))
    tms.add(store, "g2", "unless y", J([], unless=["y"]))
    tms.add_nogood(store, ["g1", "g2"], "ng-gates")
    tms.add(store, "p", "a premise")
    change = step(store, tms.add_justification(store, "g1", J(["p"])), went_out=["p"])
    assert change.retracted_by_nogood == ["p"]
    # g1 holds unless x still, with no assumption under it: unresolved again
    nogood = json.loads(exported(store))["nogoods"][0]
    assert nogood["resolution"].startswith("unresolved")
    assert tms.show(store, "p")[0].retract_reason == "nogood ng-gates"


def _victim(store, first: tuple[str, dict], second: tuple[str, dict]) -> list[str]:
    for bid, fields in (first, second):
        tms.add(store, bid, f"premise {bid}", **fields)
    return tms.add_nogood(store, [first[0], second[0]]).retracted_by_nogood


@pytest.mark.parametrize("kept, victim", [
    (("a-obs", {"metadata": {"beliefs_type": "observation"}}), ("z-plain", {})),
    (("a-plain", {}), ("z-hypo", {"metadata": {"beliefs_type": "hypothesis"}})),
    (("a-axiom", {"metadata": {"beliefs_type": "axiom"}}),
     ("z-fact", {"metadata": {"beliefs_type": "fact"}})),
    (("a-def", {"metadata": {"beliefs_type": "definition"}}),
     ("z-assume", {"metadata": {"beliefs_type": "assumption"}})),
    (("a-obs", {"metadata": {"beliefs_type": " Observation "}}), ("z-plain", {})),
    (("a-src", {"source": "notes/design.md"}), ("z-nosrc", {})),
    (("a-url", {"source_url": "https://example.org/spec"}), ("z-nourl", {})),
    # the first difference decides: beliefs_type before source
    (("a-plain", {}), ("z-sourced-guess", {"source": "chat.log",
                                           "metadata": {"beliefs_type": "speculation"}})),
], ids=["observation>default", "default>hypothesis", "axiom>fact", "definition>assumption",
        "type-case-and-spaces",
        "source", "source_url", "type-before-source"])
def test_entrenchment_order_of_metadata_and_source(store, kept, victim):
    # each pair is given so that the larger id is the victim: the id alone would pick the other
    assert _victim(store, kept, victim) == [victim[0]]
    assert labels(store)[kept[0]] == (IN, 0)
    assert tms.verify(store) == []


@pytest.mark.parametrize("order", [("a-hash", "z-nohash"), ("z-nohash", "a-hash")])
def test_entrenchment_source_hash(store, tmp_path, order):
    nodes = {"a-hash": node("hashed", source_hash="sha256:0123abcd"),
             "z-nohash": node("not hashed")}
    import_file(store, write_json(tmp_path, {"nodes": {k: nodes[k] for k in order}}))
    assert tms.add_nogood(store, ["a-hash", "z-nohash"]).retracted_by_nogood == ["z-nohash"]


def test_entrenchment_source_hash_before_source(store, tmp_path):
    import_file(store, write_json(tmp_path, {"nodes": {
        "a-hash": node("hashed", source_hash="sha256:0123abcd"),
        "z-src": node("sourced", source="notes.md"),
    }}))
    assert tms.add_nogood(store, ["a-hash", "z-src"]).retracted_by_nogood == ["z-src"]


def test_entrenchment_dependents(store):
    tms.add(store, "a-many", "held up by two")
    tms.add(store, "z-few", "held up by one")
    tms.add(store, "d1", "on a-many", J(["a-many"]))
    tms.add(store, "d2", "on a-many", J(["a-many"]))
    tms.add(store, "d3", "on z-few", J(["z-few"]))
    change = step(store, tms.add_nogood(store, ["a-many", "z-few"]), went_out=["d3", "z-few"])
    assert change.retracted_by_nogood == ["z-few"]


def test_entrenchment_user_asserted_is_below_a_premise(store):
    tms.add(store, "gone", "retracted premise")
    tms.add(store, "z-asserted", "held as a fact", J(["gone"]))
    tms.retract(store, "gone")
    tms.assert_belief(store, "z-asserted")
    tms.add(store, "a-premise", "an observed premise")
    change = step(store, tms.add_nogood(store, ["a-premise", "z-asserted"]),
                  went_out=["z-asserted"])
    assert change.retracted_by_nogood == ["z-asserted"]


@pytest.mark.parametrize("order", [("b-second", "a-first"), ("a-first", "b-second")])
def test_entrenchment_ties_go_to_the_smallest_id(store, order):
    for bid in order:
        tms.add(store, bid, "identical")
    assert tms.add_nogood(store, list(order)).retracted_by_nogood == ["a-first"]


def test_nogood_retracts_the_least_entrenched_assumption_under_derived_members(store):
    tms.add(store, "obs", "an observation", metadata={"beliefs_type": "observation"})
    tms.add(store, "guess", "a guess", metadata={"beliefs_type": "assumption"})
    tms.add(store, "m1", "from obs", J(["obs"]))
    tms.add(store, "m2", "from obs and guess", J(["obs", "guess"]))
    change = step(store, tms.add_nogood(store, ["m1", "m2"]), went_out=["guess", "m2"])
    assert change.retracted_by_nogood == ["guess"]


# --- explain, trace, what-if ---------------------------------------------------------
def _walk(step_):
    yield step_
    for j in step_.justifications:
        for s in j.antecedents + j.outlist:
            yield from _walk(s)


def _explained_ids(step_):
    return [s.id for s in _walk(step_) if s.why not in ("see-above", "cycle")]


def test_explain_in_belief_down_to_premises_each_belief_once(store):
    tms.add(store, "p1", "premise one")
    tms.add(store, "p2", "premise two")
    tms.add(store, "a", "from p1", J(["p1"]))
    tms.add(store, "b", "from a and p2", J(["a", "p2"]))
    tms.add(store, "c", "from a and b", J(["a", "b"]))
    tms.add(store, "deep", "a long way round", J(["nothing-here"]))
    tms.add_justification(store, "c", J(["deep"]))

    root = explaining.explain(store, "c")
    assert (root.id, root.truth, root.why, root.depth) == ("c", "IN", "justified", 3)
    assert len(root.justifications) == 1  # the supporting justification only
    assert root.justifications[0].valid
    ids = _explained_ids(root)
    assert sorted(ids) == ["a", "b", "c", "p1", "p2"]
    assert len(ids) == len(set(ids))
    leaves = [s for s in _walk(root) if not s.justifications]
    assert {(s.id, s.why) for s in leaves} == {("p1", "premise"), ("p2", "premise"),
                                               ("a", "see-above")}

    lines = explaining.render_explanation(root)
    assert lines[0] == "c is IN (depth 3): because"
    assert sum(line.strip().startswith("a is IN (depth 1)") for line in lines) == 1
    assert sum(line.strip() == "a is IN: explained above" for line in lines) == 1
    assert sum("p1 is IN (depth 0): a premise" in line for line in lines) == 1
    assert not any("deep" in line for line in lines)


def test_explain_deep_diamond_stays_small(store):
    # ftl-reasons emits a step per path; here each belief appears once.
    tms.add(store, "l0", "bottom")
    for k in range(1, 11):
        tms.add(store, f"l{k}a", "left", J([f"l{k - 1}"]))
        tms.add(store, f"l{k}b", "right", J([f"l{k - 1}"]))
        tms.add(store, f"l{k}", "join", J([f"l{k}a", f"l{k}b"]))
    root = explaining.explain(store, "l10")
    ids = _explained_ids(root)
    assert len(ids) == len(set(ids)) == 31
    assert len(explaining.render_explanation(root)) < 100


def test_explain_out_belief_shows_what_fails_each_justification(store):
    tms.add(store, "p", "premise")
    tms.add(store, "a", "from p", J(["p"]))
    tms.add(store, "x", "the exception")
    tms.add(store, "r", "a premise later withdrawn")
    tms.add(store, "g", "a and m unless x", J(["a", "m"], unless=["x"], label="gate"))
    tms.add_justification(store, "g", J(["r"]))
    tms.retract(store, "r", reason="no longer true")

    root = explaining.explain(store, "g")
    assert (root.truth, root.why) == ("OUT", "unjustified")
    first, second = root.justifications
    assert not first.valid and first.label == "gate"
    # only the failing parts: a is IN and is not listed
    assert [(s.id, s.truth, s.why) for s in first.antecedents] == [("m", "MISSING", "missing")]
    assert [(s.id, s.truth, s.why) for s in first.outlist] == [("x", "IN", "premise")]
    assert [(s.id, s.why, s.detail) for s in second.antecedents] == [
        ("r", "retracted", "retracted: no longer true")]

    text = "\n".join(explaining.render_explanation(root))
    assert "g is OUT (depth 1): no valid justification:" in text
    assert "SL justification 'gate' fails on" in text
    assert "m is MISSING: no belief has this id" in text
    assert "unless x is IN (depth 0): a premise" in text
    assert "r is OUT (depth 0): retracted: no longer true" in text
    assert "a is IN" not in text


def test_explain_retracted_belief_gives_the_reason(store):
    tms.add(store, "p", "premise")
    tms.add(store, "c", "from p", J(["p"]))
    tms.retract(store, "c", reason="disproved by the benchmark")
    root = explaining.explain(store, "c")
    assert (root.truth, root.why, root.detail) == ("OUT", "retracted",
                                                   "retracted: disproved by the benchmark")
    assert explaining.render_explanation(root) == [
        "c is OUT (depth 1): retracted: disproved by the benchmark"]


def test_explain_asserted_belief(store):
    tms.add(store, "p", "premise")
    tms.add(store, "c", "from p", J(["p"]))
    tms.retract(store, "p")
    tms.assert_belief(store, "c")
    root = explaining.explain(store, "c")
    assert (root.truth, root.why, root.depth) == ("IN", "asserted", 0)


def test_explain_shows_a_cycle_as_a_cycle(store):
    tms.add(store, "a", "needs b", J(["b"]))
    tms.add(store, "b", "needs a", J(["a"]))
    root = explaining.explain(store, "a")
    assert (root.truth, root.why) == ("OUT", "unjustified")
    b = root.justifications[0].antecedents[0]
    assert (b.id, b.why) == ("b", "unjustified")
    again = b.justifications[0].antecedents[0]
    assert (again.id, again.why, again.justifications) == ("a", "cycle", [])
    lines = explaining.render_explanation(root)
    assert lines[-1].strip() == "a is OUT: cycle: support runs back to this belief"


def test_explain_undetermined_belief(store):
    _build(store, EVEN, ["x", "y", "z", "w"])
    root = explaining.explain(store, "z")
    assert (root.truth, root.why) == ("UNDETERMINED", "undetermined")
    assert [s.id for s in _walk(root)] == ["z", "x", "y", "x"]
    assert list(_walk(root))[-1].why == "cycle"


def test_trace_lists_the_premises_a_belief_rests_on(store):
    tms.add(store, "p1", "premise one")
    tms.add(store, "p2", "premise two")
    tms.add(store, "p3", "unused premise")
    tms.add(store, "a", "from p1", J(["p1"]))
    tms.add(store, "b", "from a and p2", J(["a", "p2"]))
    tms.add(store, "c", "from b, or p3 and a missing id", J(["b"]))
    tms.add_justification(store, "c", J(["p3", "not-here"]))

    entries = explaining.trace(store, "c")
    assert [(e.id, e.truth, e.kind) for e in entries] == [("p1", "IN", "premise"),
                                                          ("p2", "IN", "premise")]
    tms.retract(store, "p2")
    # OUT: through every justification
    assert [(e.id, e.truth, e.kind) for e in explaining.trace(store, "c")] == [
        ("not-here", "MISSING", "missing"), ("p1", "IN", "premise"),
        ("p2", "OUT", "premise"), ("p3", "IN", "premise")]
    assert [(e.id, e.kind) for e in explaining.trace(store, "p1")] == [("p1", "premise")]


def test_trace_stops_at_a_user_asserted_belief(store):
    tms.add(store, "p", "premise")
    tms.add(store, "c", "from p", J(["p"]))
    tms.add(store, "d", "from c", J(["c"]))
    tms.retract(store, "p")
    tms.assert_belief(store, "c")
    assert [(e.id, e.truth, e.kind) for e in explaining.trace(store, "d")] == [
        ("c", "IN", "asserted")]


def test_what_if_writes_nothing(store):
    tms.add(store, "p", "premise")
    tms.add(store, "q", "retracted premise")
    tms.add(store, "a", "from p", J(["p"]))
    tms.add(store, "b", "from a", J(["a"]))
    tms.add(store, "g", "unless a", J([], unless=["a"]))
    tms.add(store, "h", "from q", J(["q"]))
    tms.retract(store, "q")
    before = (labels(store), pins(store), tms.status(store), exported(store))

    change = tms.what_if(store, "retract", "p")
    assert (change.went_in, change.went_out) == (["g"], ["a", "b", "p"])
    assert (labels(store), pins(store), tms.status(store), exported(store)) == before

    change = tms.what_if(store, "assert", "q")
    assert (change.went_in, change.went_out) == (["h", "q"], [])
    assert (labels(store), pins(store), tms.status(store), exported(store)) == before
    assert tms.verify(store) == []

    # the real operation reports the same change
    assert tms.retract(store, "p").went_out == ["a", "b", "p"]


def test_what_if_includes_nogood_resolution_and_writes_nothing(store):
    tms.add(store, "a", "premise")
    tms.add(store, "b", "premise")
    tms.retract(store, "b")
    tms.add_nogood(store, ["a", "b"], "ng-ab")
    before = (labels(store), pins(store), exported(store))
    change = tms.what_if(store, "assert", "b")
    assert (change.went_in, change.went_out, change.retracted_by_nogood) == (["b"], ["a"], ["a"])
    assert (labels(store), pins(store), exported(store)) == before


# --- depth in the graph --------------------------------------------------------------
def _deep(driver, database) -> list[str]:
    records, _, _ = driver.execute_query(
        "MATCH (b:Belief) WHERE b.depth >= 3 RETURN b.id AS id ORDER BY id", database_=database)
    return [r["id"] for r in records]


def test_depth_is_kept_up_to_date_for_cypher_queries(store, driver, neo4j_settings):
    db = neo4j_settings.database
    tms.add(store, "p", "premise")
    tms.add(store, "q", "premise")
    tms.add(store, "a", "1", J(["p"]))
    tms.add(store, "b", "2", J(["a"]))
    tms.add(store, "c", "3", J(["b"]))
    tms.add(store, "d", "4", J(["c"]))
    tms.add(store, "e", "2", J(["a", "q"]))
    assert _deep(driver, db) == ["c", "d"]
    tms.add_justification(store, "d", J(["q"]))  # a shortcut
    assert _deep(driver, db) == ["c"]
    tms.retract(store, "q")  # the shortcut fails: d is back at depth 4
    assert _deep(driver, db) == ["c", "d"]
    tms.add(store, "f", "5", J(["d", "e"]))
    assert _deep(driver, db) == ["c", "d", "f"]
    tms.add_justification(store, "c", J(["p"]))  # c drops to 1, d to 2, f to 3
    assert _deep(driver, db) == ["f"]
    assert tms.status(store).max_depth == 3
    assert tms.verify(store) == []


def test_depth_absent_when_no_finite_derivation(store, driver, neo4j_settings):
    tms.add(store, "a", "needs b", J(["b"]))
    tms.add(store, "b", "needs a", J(["a"]))
    records, _, _ = driver.execute_query(
        "MATCH (b:Belief) WHERE b.depth IS NULL RETURN b.id AS id ORDER BY id",
        database_=neo4j_settings.database)
    assert [r["id"] for r in records] == ["a", "b"]


# --- texts ---------------------------------------------------------------------------
NASTY_TEXTS = [
    'it\'s "quoted" and \'single\'',
    "back`tick` and ``double``",
    "line one\nline two\r\nline three\ttabbed",
    "'}) MATCH (n) DETACH DELETE n //",
    "$param {placeholder} ${x} {{double}}",
    "\\ backslash \\n not a newline",
    "unicode: naïve café — 日本語 🙂",
    "  leading and trailing spaces  ",
    "MERGE (b:Belief {id: 'x'}) SET b.text = \"evil\" RETURN b; // name: evil",
]


def test_texts_are_stored_verbatim(store, tmp_path):
    for k, text in enumerate(NASTY_TEXTS):
        tms.add(store, f"t{k}", text, source=text)
    tms.add(store, "j", "labelled", J(["t0"], label=NASTY_TEXTS[3]))
    tms.retract(store, "t1", reason=NASTY_TEXTS[1])
    for k, text in enumerate(NASTY_TEXTS):
        belief, _ = tms.show(store, f"t{k}")
        assert (belief.text, belief.source) == (text, text)
    assert tms.show(store, "j")[0].justifications[0].label == NASTY_TEXTS[3]
    assert tms.show(store, "t1")[0].retract_reason == NASTY_TEXTS[1]
    assert {b.id: b.text for b in tms.list_beliefs(store) if b.id != "j"} == {
        f"t{k}": t for k, t in enumerate(NASTY_TEXTS)}

    text = exported(store)
    nodes = json.loads(text)["nodes"]
    assert [nodes[f"t{k}"]["text"] for k in range(len(NASTY_TEXTS))] == NASTY_TEXTS
    path = tmp_path / "nasty.json"
    path.write_text(text, encoding="utf-8")
    tms.reset(store)
    import_file(store, path)
    assert exported(store) == text
    assert tms.status(store).beliefs == len(NASTY_TEXTS) + 1


# --- import / export -----------------------------------------------------------------
SMALL = {
    "meta": {"project": "small", "version": 3},
    "nodes": {
        "p": node("a premise", source="a.md", created_at="2024-01-01T00:00:00Z",
                  reviewed_at="2024-02-01"),
        "q": node("retracted by its user", truth="OUT", retracted_at="2024-03-01T00:00:00Z"),
        "r": node("stored OUT, support valid", truth="OUT", justifications=[(["p"], [])],
                  metadata={"beliefs_type": "hypothesis"}),
        "s": node("holds itself up", justifications=[(["s"], [])]),
        "t": node("rests on s", justifications=[(["s"], [])]),
        "u": node("stale: rests on q", justifications=[(["q"], [])]),
        "v": node("unless w", justifications=[([], ["w"])]),
        "w": node("unless v", truth="OUT", justifications=[([], ["v"])]),
        "x": node("forward reference", truth="OUT", justifications=[(["not-here"], [])]),
        "y": node("rests on r", truth="OUT", justifications=[(["r"], [])]),
    },
    "nogoods": [],
    "repos": {"main": {"url": "https://example.org/repo.git"}},
}


def test_import_keeps_retractions_and_reports_differences(store, tmp_path):
    report = import_file(store, write_json(tmp_path, SMALL))
    assert report.beliefs == 10
    assert report.justifications == 8
    assert report.retractions_kept == ["q", "r"]
    assert report.circular_support == ["s", "t"]
    assert report.stale == ["u"]
    assert report.undetermined == ["v", "w"]
    assert report.self_listed == ["s"]
    assert (report.labels_in, report.labels_out) == (1, 9)
    assert report.as_dict()["differences"] == {"retractions_kept": 2, "circular_support": 2,
                                              "stale": 1, "undetermined": 2}
    assert labels(store) == {
        "p": (IN, 0), "q": (OUT, 0), "r": (OUT, 1), "s": (OUT, None), "t": (OUT, None),
        "u": (OUT, 1), "v": (UND, 1), "w": (UND, 1), "x": (OUT, 1), "y": (OUT, 2),
    }
    assert pins(store)["r"] == (True, False)
    assert tms.verify(store) == []
    # the kept retraction is a real pin: r does not come back while p holds
    step(store, tms.retract(store, "p"), went_out=["p"])
    step(store, tms.assert_belief(store, "p"), went_in=["p"])
    assert labels(store)["r"] == (OUT, 1)


def test_import_export_import_gives_the_same_graph(store, tmp_path, driver, neo4j_settings):
    data = dict(SMALL, nogoods=[{"id": "ng-1", "nodes": ["p", "x"], "discovered": "2024-01-02",
                                 "resolution": ""}])
    import_file(store, write_json(tmp_path, data))
    first_text = exported(store)
    first = (labels(store), pins(store), raw_labels(driver, neo4j_settings.database),
             tms.status(store))
    exported_data = json.loads(first_text)
    assert exported_data["meta"]["project"] == "small"
    assert exported_data["repos"] == SMALL["repos"]
    assert exported_data["nodes"]["p"]["reviewed_at"] == "2024-02-01"
    assert exported_data["nodes"]["w"]["truth_value"] == "OUT"  # undetermined exports as OUT

    tms.reset(store)
    import_file(store, write_json(tmp_path, exported_data, "exported.json"))
    assert exported(store) == first_text
    assert (labels(store), pins(store), raw_labels(driver, neo4j_settings.database),
            tms.status(store)) == first


def test_export_after_operations_keeps_pins_through_a_round_trip(store, tmp_path):
    tms.add(store, "p", "premise")
    tms.add(store, "c", "from p", J(["p"]))
    tms.add(store, "d", "from p too", J(["p"]))
    tms.add(store, "e", "from d", J(["d"]))
    tms.retract(store, "c", reason="wrong")
    tms.retract(store, "p")
    tms.assert_belief(store, "d")  # held as a fact while p is OUT
    first_text = exported(store)
    first = (labels(store), pins(store))

    tms.reset(store)
    import_file(store, write_json(tmp_path, json.loads(first_text)))
    assert (labels(store), pins(store)) == first
    assert exported(store) == first_text
    # the pins act the same: asserting p brings p IN but not the retracted c
    step(store, tms.assert_belief(store, "p"), went_in=["p"])
    assert labels(store)["c"] == (OUT, 1)


def test_import_of_a_kept_retraction_survives_export_after_its_support_fails(store, tmp_path):
    import_file(store, write_json(tmp_path, {"nodes": {
        "p": node("premise"),
        "r": node("stored OUT, support valid", truth="OUT", justifications=[(["p"], [])]),
    }}))
    tms.retract(store, "p")
    text = exported(store)
    tms.reset(store)
    import_file(store, write_json(tmp_path, json.loads(text), "again.json"))
    tms.assert_belief(store, "p")
    assert labels(store)["r"] == (OUT, 1)  # still the user's retraction
    assert pins(store)["r"] == (True, False)


def test_import_resolves_nogoods_that_hold(store, tmp_path):
    report = import_file(store, write_json(tmp_path, {
        "nodes": {"a-kept": node("observed", source="x.md"), "b-guess": node("a guess")},
        "nogoods": [{"id": "ng-ab", "nodes": ["a-kept", "b-guess"]}],
    }))
    assert report.retracted_by_nogood == ["b-guess"]
    assert labels(store) == {"a-kept": (IN, 0), "b-guess": (OUT, 0)}
    assert tms.verify(store) == []


# --- all or nothing ------------------------------------------------------------------
def _node_count(driver, database) -> int:
    records, _, _ = driver.execute_query("MATCH (n) RETURN count(n) AS n", database_=database)
    return records[0]["n"]


def test_failure_after_create_beliefs_leaves_nothing_written(store, monkeypatch, driver,
                                                             neo4j_settings):
    tms.add(store, "p", "premise")
    before = (exported(store), tms.status(store), _node_count(driver, neo4j_settings.database))
    seen = []

    def failing_relabel(self, seeds):
        seen.append(sorted(self.existing_ids(["x", "p"])))  # create_beliefs ran in this tx
        raise RuntimeError("injected failure")

    monkeypatch.setattr(Neo4jTx, "relabel", failing_relabel)
    with pytest.raises(RuntimeError, match="injected failure"):
        tms.add(store, "x", "never committed", J(["p", "later"]))
    assert seen == [["p", "x"]]
    monkeypatch.undo()
    assert store.read(lambda tx: tx.existing_ids(["x"])) == set()
    assert (exported(store), tms.status(store),
            _node_count(driver, neo4j_settings.database)) == before
    assert tms.verify(store) == []


def test_failure_after_propagation_rolls_back_labels_and_pins(store, monkeypatch):
    tms.add(store, "p", "premise")
    tms.add(store, "a", "from p", J(["p"]))
    before = (labels(store), pins(store), exported(store))
    real_relabel = Neo4jTx.relabel

    def relabel_then_fail(self, seeds):
        change = real_relabel(self, seeds)
        assert change.went_out == ["a", "p"]
        raise RuntimeError("injected after propagation")

    monkeypatch.setattr(Neo4jTx, "relabel", relabel_then_fail)
    with pytest.raises(RuntimeError):
        tms.retract(store, "p")
    monkeypatch.undo()
    assert (labels(store), pins(store), exported(store)) == before
    assert tms.verify(store) == []


def test_failure_during_nogood_resolution_leaves_nothing_written(store, monkeypatch):
    tms.add(store, "a", "premise")
    tms.add(store, "b", "premise")
    before = (labels(store), pins(store), exported(store))

    def failing(self, nogood_id, resolution):
        raise RuntimeError("injected during resolution")

    monkeypatch.setattr(Neo4jTx, "set_nogood_resolution", failing)
    with pytest.raises(RuntimeError):
        tms.add_nogood(store, ["a", "b"])
    monkeypatch.undo()
    assert (labels(store), pins(store), exported(store)) == before
    assert tms.status(store).nogoods == 0


def test_failure_in_import_leaves_nothing_written(store, tmp_path, monkeypatch):
    tms.add(store, "p", "premise")
    before = exported(store)

    def failing(tx, holding, change, *, at):
        raise RuntimeError("injected in import")

    monkeypatch.setattr(engine.tms.nogoods, "resolve", failing)
    with pytest.raises(RuntimeError):
        import_file(store, write_json(tmp_path, {
            "nodes": {"a": node("a"), "b": node("b")},
            "nogoods": [{"id": "ng", "nodes": ["a", "b"]}]}))
    monkeypatch.undo()
    assert exported(store) == before


def test_import_into_a_graph_that_has_the_ids_is_refused(store, tmp_path):
    tms.add(store, "p", "already here")
    before = exported(store)
    with pytest.raises(InvalidInput, match="already exist"):
        import_file(store, write_json(tmp_path, {"nodes": {"p": node("again"), "n": node("new")}}))
    assert exported(store) == before


# --- a tangle of cycles, gates and loops ---------------------------------------------
def checked(store, operation):
    """Run one operation; its change must be exactly the beliefs whose label crossed IN/OUT,
    and the graph must verify clean."""
    before = labels(store)
    change = operation()
    after = labels(store)
    crossed_in = sorted(b for b, (t, _) in after.items()
                        if t == IN and before.get(b, (None, None))[0] != IN)
    crossed_out = sorted(b for b, (t, _) in after.items()
                         if t != IN and before.get(b, (None, None))[0] == IN)
    assert (change.went_in, change.went_out) == (crossed_in, crossed_out)
    assert tms.verify(store) == []
    return change


def test_tangle_of_cycles_gates_and_loops(store, driver, neo4j_settings):
    ops = [
        lambda: tms.add(store, "p", "premise"),
        lambda: tms.add(store, "q", "premise"),
        # a positive cycle held up from outside by p
        lambda: tms.add(store, "a", "b or p", J(["b", "p"], any_mode=True)),
        lambda: tms.add(store, "b", "needs a", J(["a"])),
        # an even loop hanging off the cycle
        lambda: tms.add(store, "c", "a unless d", J(["a"], unless=["d"])),
        lambda: tms.add(store, "d", "b unless c", J(["b"], unless=["c"])),
        # a gate on the loop, and a belief on a forward reference closing a second cycle
        lambda: tms.add(store, "e", "q unless c", J(["q"], unless=["c"])),
        lambda: tms.add(store, "f", "e and later", J(["e", "later"])),
        lambda: tms.add(store, "later", "f or q", J(["f"])),
        lambda: tms.retract(store, "p"),
        lambda: tms.assert_belief(store, "p"),
        lambda: tms.retract(store, "d"),
        lambda: tms.add_justification(store, "later", J(["q"])),
        lambda: tms.retract(store, "q"),
        lambda: tms.assert_belief(store, "d"),
        lambda: tms.assert_belief(store, "q"),
        lambda: tms.retract(store, "a"),
        lambda: tms.assert_belief(store, "a"),
        lambda: tms.add_nogood(store, ["e", "later"], "ng-el"),
        lambda: tms.assert_belief(store, "q"),
    ]
    for operation in ops:
        checked(store, operation)
        assert_label_invariants(driver, neo4j_settings.database)


def test_nogood_triggered_through_an_outlist(store):
    tms.add(store, "p", "premise")
    tms.add(store, "x", "the exception", source="observed.md")
    tms.add(store, "g", "p unless x", J(["p"], unless=["x"]))
    tms.add(store, "h", "a premise of its own", source="observed.md")
    step(store, tms.add_nogood(store, ["g", "h"], "ng-gh"))  # g is OUT: does not hold
    # retracting x opens the gate: the nogood holds, and p (no source) is retracted
    change = step(store, tms.retract(store, "x"), went_out=["p", "x"])
    assert change.retracted_by_nogood == ["p"]
    assert labels(store)["g"] == (OUT, 1)
