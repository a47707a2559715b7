"""compute_labels, the definition of truth, on small hand-built networks.

Each test writes a network as Belief records and states every label and depth it must get.
"""
from __future__ import annotations

import dataclasses
import itertools

import pytest

from engine.model import Belief, Justification, Kind, Label, Truth
from engine.tms.semantics import compute_labels, is_valid

IN, OUT, UND = Truth.IN, Truth.OUT, Truth.UNDETERMINED


def premise(bid: str, **fields) -> Belief:
    return Belief(bid, f"text of {bid}", **fields)


def derived(bid: str, *justifications: Justification, **fields) -> Belief:
    return Belief(bid, f"text of {bid}", justifications=tuple(justifications), **fields)


def sl(*antecedents: str, unless: tuple[str, ...] = (), kind: Kind = Kind.SL) -> Justification:
    return Justification(tuple(antecedents), tuple(unless), kind)


def network(*beliefs: Belief) -> dict[str, Belief]:
    return {b.id: b for b in beliefs}


def labels(*beliefs: Belief) -> dict[str, tuple[Truth, int | None]]:
    computed = compute_labels(network(*beliefs))
    return {bid: (label.truth, label.depth) for bid, label in computed.items()}


def retracted(b: Belief) -> Belief:
    return dataclasses.replace(b, retracted=True)


# --- premises, chains, diamonds ------------------------------------------------------
def test_empty_network_has_no_labels():
    assert compute_labels({}) == {}


def test_premise_is_in_at_depth_zero_and_a_retracted_premise_is_out_at_depth_zero():
    assert labels(premise("p"), retracted(premise("q"))) == {"p": (IN, 0), "q": (OUT, 0)}


def test_compute_labels_returns_label_records():
    result = compute_labels(network(premise("p"), derived("a", sl("p"))))
    assert result == {"p": Label(IN, 0), "a": Label(IN, 1)}


def test_chain_is_in_with_increasing_depth():
    chain = [premise("p"), derived("a", sl("p")), derived("b", sl("a")), derived("c", sl("b"))]
    assert labels(*chain) == {"p": (IN, 0), "a": (IN, 1), "b": (IN, 2), "c": (IN, 3)}


def test_retracting_the_root_of_a_chain_takes_all_of_it_out_and_keeps_depths():
    chain = [retracted(premise("p")), derived("a", sl("p")), derived("b", sl("a")),
             derived("c", sl("b"))]
    assert labels(*chain) == {"p": (OUT, 0), "a": (OUT, 1), "b": (OUT, 2), "c": (OUT, 3)}


def test_diamond():
    beliefs = [premise("p"), derived("left", sl("p")), derived("right", sl("p")),
               derived("bottom", sl("left", "right"))]
    assert labels(*beliefs) == {
        "p": (IN, 0), "left": (IN, 1), "right": (IN, 1), "bottom": (IN, 2),
    }
    beliefs[1] = retracted(beliefs[1])
    assert labels(*beliefs) == {
        "p": (IN, 0), "left": (OUT, 1), "right": (IN, 1), "bottom": (OUT, 2),
    }


def test_diamond_with_uneven_sides_takes_the_deeper_side_for_depth():
    beliefs = [premise("p"), derived("a", sl("p")), derived("b", sl("a")),
               derived("bottom", sl("p", "b"))]
    assert labels(*beliefs)["bottom"] == (IN, 3)


# --- OR, AND -------------------------------------------------------------------------
def test_or_of_two_justifications_holds_while_either_is_valid():
    c = derived("c", sl("a"), sl("b"))
    assert labels(premise("a"), premise("b"), c)["c"] == (IN, 1)
    assert labels(retracted(premise("a")), premise("b"), c)["c"] == (IN, 1)
    assert labels(premise("a"), retracted(premise("b")), c)["c"] == (IN, 1)
    assert labels(retracted(premise("a")), retracted(premise("b")), c)["c"] == (OUT, 1)


def test_and_of_three_needs_every_antecedent():
    d = derived("d", sl("a", "b", "c"))
    prem = [premise("a"), premise("b"), premise("c")]
    assert labels(*prem, d)["d"] == (IN, 1)
    for k in range(3):
        some_out = list(prem)
        some_out[k] = retracted(some_out[k])
        assert labels(*some_out, d)["d"] == (OUT, 1), f"{prem[k].id} retracted"


def test_cp_justifications_are_evaluated_like_sl():
    assert labels(premise("p"), derived("c", sl("p", kind=Kind.CP)))["c"] == (IN, 1)
    assert labels(retracted(premise("p")), derived("c", sl("p", kind=Kind.CP)))["c"] == (OUT, 1)


# --- outlists ------------------------------------------------------------------------
def test_outlist_gate_is_out_while_its_outlist_member_is_in():
    gate = derived("g", sl("p", unless=("x",)))
    assert labels(premise("p"), premise("x"), gate) == {"p": (IN, 0), "x": (IN, 0), "g": (OUT, 1)}


def test_outlist_gate_comes_in_when_its_outlist_member_goes_out():
    gate = derived("g", sl("p", unless=("x",)))
    assert labels(premise("p"), retracted(premise("x")), gate)["g"] == (IN, 1)


def test_gate_with_no_antecedents_is_in_while_the_outlist_is_out_at_depth_one():
    gate = derived("g", sl(unless=("x",)))
    assert labels(retracted(premise("x")), gate)["g"] == (IN, 1)
    assert labels(premise("x"), gate)["g"] == (OUT, 1)


def test_gate_whose_own_antecedent_goes_out_in_the_same_cascade_stays_out():
    # Retracting p takes x (the outlist member) OUT, which alone would open the gate, but
    # also takes a2 (the gate's own antecedent) OUT: the gate must stay OUT.
    beliefs = [
        retracted(premise("p")),
        derived("a1", sl("p")),
        derived("a2", sl("a1")),
        derived("x", sl("p")),
        derived("g", sl("a2", unless=("x",))),
    ]
    assert labels(*beliefs) == {
        "p": (OUT, 0), "a1": (OUT, 1), "a2": (OUT, 2), "x": (OUT, 1), "g": (OUT, 3),
    }


def test_gate_downstream_of_a_gate():
    # h is gated on g, which is gated on x: two negations make h follow x.
    beliefs = [premise("x"), derived("g", sl(unless=("x",))), derived("h", sl(unless=("g",)))]
    assert labels(*beliefs) == {"x": (IN, 0), "g": (OUT, 1), "h": (IN, 1)}
    beliefs[0] = retracted(beliefs[0])
    assert labels(*beliefs) == {"x": (OUT, 0), "g": (IN, 1), "h": (OUT, 1)}


# --- pins: retraction and assertion --------------------------------------------------
def test_retraction_of_a_derived_belief_is_sticky_while_its_support_is_valid():
    beliefs = [premise("p"), retracted(derived("c", sl("p"))), derived("d", sl("c"))]
    assert labels(*beliefs) == {"p": (IN, 0), "c": (OUT, 1), "d": (OUT, 2)}


def test_asserted_derived_belief_without_valid_support_holds_in_at_depth_zero():
    beliefs = [retracted(premise("p")), derived("c", sl("p"), asserted=True),
               derived("d", sl("c"))]
    assert labels(*beliefs) == {"p": (OUT, 0), "c": (IN, 0), "d": (IN, 1)}


def test_asserted_derived_belief_is_a_fact_of_depth_zero_even_with_valid_support():
    # A user-asserted belief holds as a fact, a derivation of height 0, so the shallowest
    # derivation is the assertion itself (and a positive cycle through it stays finite).
    beliefs = [premise("p"), derived("a", sl("p")), derived("c", sl("a"), asserted=True)]
    assert labels(*beliefs)["c"] == (IN, 0)


def test_retraction_overrides_assertion():
    beliefs = [premise("p"), derived("c", sl("p"), asserted=True, retracted=True)]
    assert labels(*beliefs)["c"] == (OUT, 1)


# --- forward references --------------------------------------------------------------
def test_missing_antecedent_is_never_in():
    beliefs = [derived("c", sl("not-yet")), derived("d", sl("c"))]
    assert labels(*beliefs) == {"c": (OUT, 1), "d": (OUT, 2)}


def test_missing_outlist_member_counts_as_out():
    beliefs = [premise("p"), derived("g", sl("p", unless=("not-yet",)))]
    assert labels(*beliefs) == {"p": (IN, 0), "g": (IN, 1)}


def test_missing_ids_get_no_label_of_their_own():
    result = compute_labels(network(derived("c", sl("not-yet", unless=("nor-this",)))))
    assert set(result) == {"c"}


def test_adding_the_missing_belief_changes_its_dependents():
    before = [derived("c", sl("m")), derived("g", sl(unless=("m",)))]
    assert labels(*before) == {"c": (OUT, 1), "g": (IN, 1)}
    assert labels(*before, premise("m")) == {"c": (IN, 1), "g": (OUT, 1), "m": (IN, 0)}


def test_is_valid_treats_missing_and_undetermined_ids():
    truth = {"a": IN, "u": UND, "o": OUT}
    assert is_valid(sl("a", unless=("o", "missing")), truth)
    assert not is_valid(sl("a", "missing"), truth)
    assert not is_valid(sl("u"), truth)
    assert not is_valid(sl("a", unless=("u",)), truth)
    assert not is_valid(sl("a", unless=("a",)), truth)


# --- circular support ----------------------------------------------------------------
def test_belief_listing_itself_as_its_only_antecedent_is_out_with_no_finite_depth():
    beliefs = [derived("s", sl("s")), derived("t", sl("s"))]
    assert labels(*beliefs) == {"s": (OUT, None), "t": (OUT, None)}


def test_self_listing_belief_with_another_valid_justification_is_in():
    beliefs = [premise("p"), derived("s", sl("s"), sl("p"))]
    assert labels(*beliefs)["s"] == (IN, 1)


def test_self_listing_next_to_other_antecedents_is_still_no_support():
    beliefs = [premise("p"), derived("s", sl("p", "s"))]
    assert labels(*beliefs)["s"] == (OUT, None)


def test_positive_cycle_without_outside_support_is_out():
    beliefs = [derived("a", sl("c")), derived("b", sl("a")), derived("c", sl("b")),
               derived("d", sl("a"))]
    assert labels(*beliefs) == {"a": (OUT, None), "b": (OUT, None), "c": (OUT, None),
                                "d": (OUT, None)}


def test_positive_cycle_with_outside_support_is_in():
    beliefs = [premise("p"), derived("a", sl("b"), sl("p")), derived("b", sl("a"))]
    assert labels(*beliefs) == {"p": (IN, 0), "a": (IN, 1), "b": (IN, 2)}


def test_positive_cycle_loses_its_outside_support():
    beliefs = [retracted(premise("p")), derived("a", sl("b"), sl("p")), derived("b", sl("a"))]
    # OUT, with depth over the shallowest justification: a <- p gives 1, b <- a gives 2.
    assert labels(*beliefs) == {"p": (OUT, 0), "a": (OUT, 1), "b": (OUT, 2)}


def test_asserting_a_member_of_a_positive_cycle_supports_the_cycle():
    beliefs = [derived("a", sl("b"), asserted=True), derived("b", sl("a"))]
    result = compute_labels(network(*beliefs))
    assert (result["a"].truth, result["b"].truth) == (IN, IN)


def test_an_asserted_member_of_a_positive_cycle_has_a_finite_depth():
    # a holds as a user-asserted fact (a derivation of height 0), b rests on it. An IN
    # belief always has a finite derivation, so neither may be left without a depth.
    beliefs = [derived("a", sl("b"), asserted=True), derived("b", sl("a"))]
    assert labels(*beliefs) == {"a": (IN, 0), "b": (IN, 1)}


# --- loops through outlists ----------------------------------------------------------
def test_even_loop_is_undetermined_and_so_is_what_rests_on_it():
    beliefs = [
        derived("a", sl(unless=("b",))),
        derived("b", sl(unless=("a",))),
        derived("c", sl("a")),          # rests on a positively
        derived("d", sl(unless=("a",))),  # rests on a through an outlist
        premise("p"),
        derived("e", sl("p")),          # unrelated
    ]
    assert labels(*beliefs) == {
        "a": (UND, 1), "b": (UND, 1), "c": (UND, 2), "d": (UND, 1),
        "p": (IN, 0), "e": (IN, 1),
    }


def test_odd_loop_of_one_is_undetermined():
    beliefs = [derived("a", sl(unless=("a",))), derived("c", sl("a"))]
    assert labels(*beliefs) == {"a": (UND, 1), "c": (UND, 2)}


def test_odd_loop_of_three_is_undetermined():
    beliefs = [derived("a", sl(unless=("c",))), derived("b", sl("a")), derived("c", sl("b"))]
    assert labels(*beliefs) == {"a": (UND, 1), "b": (UND, 2), "c": (UND, 3)}


def test_even_loop_is_settled_by_retracting_one_side():
    beliefs = [derived("a", sl(unless=("b",))), retracted(derived("b", sl(unless=("a",))))]
    assert labels(*beliefs) == {"a": (IN, 1), "b": (OUT, 1)}


def test_even_loop_is_settled_by_an_outside_fact():
    # b also holds by its own premise: then a is OUT for sure.
    beliefs = [premise("p"), derived("a", sl(unless=("b",))),
               derived("b", sl(unless=("a",)), sl("p"))]
    assert labels(*beliefs) == {"p": (IN, 0), "a": (OUT, 1), "b": (IN, 1)}


def test_undetermined_is_not_in_for_an_other_justification():
    # c has one justification over an undetermined belief and one that fails: undetermined.
    beliefs = [derived("a", sl(unless=("a",))), retracted(premise("q")),
               derived("c", sl("a"), sl("q"))]
    assert labels(*beliefs)["c"] == (UND, 1)
    # ... but a valid justification elsewhere makes it IN.
    beliefs[1] = premise("q")
    assert labels(*beliefs)["c"] == (IN, 1)


@pytest.mark.parametrize("beliefs", [
    [derived("a", sl(unless=("b",))), derived("b", sl(unless=("a",))), derived("c", sl("a"))],
    [derived("a", sl(unless=("c",))), derived("b", sl("a")), derived("c", sl("b")),
     derived("d", sl(unless=("b",)))],
    [premise("p"), derived("a", sl("b"), sl("p")), derived("b", sl("a")),
     derived("g", sl("a", unless=("b",)))],
], ids=["even", "odd", "positive"])
def test_labels_do_not_depend_on_the_order_beliefs_are_given(beliefs):
    expected = compute_labels(network(*beliefs))
    for order in itertools.permutations(beliefs):
        assert compute_labels(network(*order)) == expected


# --- depth ---------------------------------------------------------------------------
def test_in_depth_uses_the_shallowest_valid_justification():
    beliefs = [premise("p"), derived("a", sl("p")), derived("b", sl("a")),
               derived("c", sl("b"), sl("p"))]
    assert labels(*beliefs)["c"] == (IN, 1)


def test_in_depth_ignores_a_shallower_justification_that_is_not_valid():
    beliefs = [premise("p"), retracted(premise("q")), derived("a", sl("p")),
               derived("b", sl("a")), derived("c", sl("b"), sl("q"))]
    assert labels(*beliefs)["c"] == (IN, 3)


def test_out_depth_is_over_its_shallowest_justification():
    beliefs = [retracted(premise("p")), derived("a", sl("p")), derived("b", sl("a")),
               derived("c", sl("b"), sl("p"))]
    assert labels(*beliefs)["c"] == (OUT, 1)


def test_depth_is_one_plus_the_largest_antecedent_depth():
    beliefs = [premise("p"), derived("a", sl("p")), derived("b", sl("a")),
               derived("c", sl("p", "b", "a"))]
    assert labels(*beliefs)["c"] == (IN, 3)


def test_depth_treats_a_missing_antecedent_as_depth_zero():
    beliefs = [premise("p"), derived("a", sl("p")), derived("c", sl("a", "not-yet"))]
    assert labels(*beliefs)["c"] == (OUT, 2)


def test_no_finite_derivation_has_depth_none_even_when_a_premise_is_named():
    beliefs = [premise("p"), derived("a", sl("p", "b")), derived("b", sl("a"))]
    assert labels(*beliefs) == {"p": (IN, 0), "a": (OUT, None), "b": (OUT, None)}


def test_undetermined_depth_comes_from_its_shallowest_justification():
    beliefs = [premise("p"), derived("a", sl("p")), derived("x", sl("a", unless=("y",))),
               derived("y", sl(unless=("x",)))]
    assert labels(*beliefs) == {"p": (IN, 0), "a": (IN, 1), "x": (UND, 2), "y": (UND, 1)}
