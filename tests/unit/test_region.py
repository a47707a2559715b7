"""label_region, propagation's decision, equals the from-scratch model on the region it is
given: any network, any seeds, the region downstream of them, the rest settled."""
from __future__ import annotations

from collections.abc import Mapping

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.model import Belief, Justification
from engine.tms.propagate import RegionBelief, label_region
from engine.tms.values import IN, OUT, RANK, UNDETERMINED
from engine.tms.semantics import compute_labels

IDS = [f"b{i}" for i in range(10)]
MISSING = "never-added"


def _downstream(beliefs: Mapping[str, Belief], seeds: set[str]) -> set[str]:
    region = set(seeds)
    grew = True
    while grew:
        grew = False
        for bid, b in beliefs.items():
            if bid not in region and any(r in region for j in b.justifications
                                         for r in j.mentions()):
                region.add(bid)
                grew = True
    return region


def _region_labels(beliefs: Mapping[str, Belief], seeds: set[str]):
    whole = compute_labels(beliefs)
    region = _downstream(beliefs, seeds)
    members = {bid: RegionBelief(beliefs[bid].retracted, beliefs[bid].asserted,
                                 tuple((j.antecedents, j.outlist)
                                       for j in beliefs[bid].justifications),
                                 premise=bool(beliefs[bid].justifications)
                                 and beliefs[bid].is_premise)
               for bid in region}
    named = {r for bid in region for j in beliefs[bid].justifications for r in j.mentions()}
    outside = {r: (RANK[whole[r].truth], whole[r].depth) if r in beliefs else (OUT, 0)
               for r in named - region}
    expected = {bid: (RANK[whole[bid].truth], whole[bid].depth) for bid in region}
    return label_region(members, outside), expected


justification = st.builds(
    lambda ants, outs: Justification(tuple(ants), tuple(outs)),
    st.lists(st.sampled_from(IDS + [MISSING]), max_size=3, unique=True),
    st.lists(st.sampled_from(IDS + [MISSING]), max_size=2, unique=True),
)


@st.composite
def networks(draw) -> dict[str, Belief]:
    beliefs = {}
    for bid in draw(st.lists(st.sampled_from(IDS), min_size=1, unique=True)):
        js = draw(st.lists(justification, max_size=2))
        if draw(st.booleans()) and draw(st.booleans()):  # a premise that supersede or challenge gates
            js = [Justification((), tuple(draw(st.lists(st.sampled_from(IDS + [MISSING]),
                                                        min_size=1, max_size=2, unique=True))),
                                gate=True)]
        pin = draw(st.sampled_from(["", "", "retracted", "asserted"]))
        beliefs[bid] = Belief(bid, bid, justifications=tuple(js),
                              retracted=pin == "retracted", asserted=pin == "asserted")
    return beliefs


@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_region_labels_equal_the_whole_networks_model(data):
    beliefs = data.draw(networks())
    seeds = set(data.draw(st.lists(st.sampled_from(sorted(beliefs)), min_size=1, max_size=3)))
    got, expected = _region_labels(beliefs, seeds)
    assert got == expected


def _belief(bid: str, *js: tuple[tuple[str, ...], tuple[str, ...]], **pins: bool) -> Belief:
    return Belief(bid, bid, justifications=tuple(Justification(a, o) for a, o in js), **pins)


def test_a_region_resting_on_an_undetermined_belief_is_undetermined_or_out():
    beliefs = {b.id: b for b in [
        _belief("u", ((), ("u",))),               # u unless u: undetermined
        _belief("p"),
        _belief("a", (("p", "u"), ())),           # rests on u: undetermined
        _belief("g", (("p",), ("u",))),           # gated by u: undetermined
        _belief("c", (("a",), ()), (("p",), ())),  # a second, valid support: IN
    ]}
    got, expected = _region_labels(beliefs, {"p"})
    assert got == expected
    assert got == {"p": (IN, 0), "a": (UNDETERMINED, 2), "g": (UNDETERMINED, 1), "c": (IN, 1)}


def test_a_positive_cycle_losing_its_outside_support_goes_out():
    beliefs = {b.id: b for b in [
        _belief("p", retracted=True),
        _belief("x", (("p",), ()), (("y",), ())),
        _belief("y", (("x",), ())),
    ]}
    got, expected = _region_labels(beliefs, {"p"})
    # circular support is no support; an OUT belief's depth is over all its justifications
    assert got == expected == {"p": (OUT, 0), "x": (OUT, 1), "y": (OUT, 2)}


def test_a_positive_cycle_with_no_way_out_has_no_depth():
    beliefs = {b.id: b for b in [
        _belief("p"),
        _belief("x", (("p", "y"), ())),
        _belief("y", (("x",), ())),
    ]}
    got, expected = _region_labels(beliefs, {"p"})
    assert got == expected == {"p": (IN, 0), "x": (OUT, None), "y": (OUT, None)}
