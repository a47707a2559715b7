"""labels_from_scratch (engine/tms/labelling.py) gives exactly compute_labels' labels and depths
(engine/tms/semantics.py, the definition of truth) on any network."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.model import Belief, Justification
from engine.tms.labelling import labels_from_scratch
from engine.tms.semantics import compute_labels

IDS = [f"b{i}" for i in range(10)]
NAMES = IDS + ["never-added", "nor-this"]

justification = st.builds(
    lambda ants, outs: Justification(tuple(ants), tuple(outs)),
    st.lists(st.sampled_from(NAMES), max_size=3),  # repeats and the belief itself included
    st.lists(st.sampled_from(NAMES), max_size=2),
)


@st.composite
def networks(draw) -> dict[str, Belief]:
    beliefs = {}
    for bid in draw(st.lists(st.sampled_from(IDS), unique=True)):
        js = draw(st.lists(justification, max_size=3))
        if draw(st.booleans()) and draw(st.booleans()):  # a premise gated by supersede
            js.append(Justification((), tuple(draw(st.lists(st.sampled_from(NAMES),
                                                            min_size=1, max_size=2))),
                                    gate=True))
        pin = draw(st.sampled_from(["", "", "retracted", "asserted", "both"]))
        beliefs[bid] = Belief(bid, bid, justifications=tuple(js),
                              retracted=pin in ("retracted", "both"),
                              asserted=pin in ("asserted", "both"))
    return beliefs


@settings(max_examples=1500, deadline=None)
@given(beliefs=networks())
def test_labels_from_scratch_equal_the_definition(beliefs):
    assert labels_from_scratch(beliefs) == compute_labels(beliefs)


def _chain(n: int) -> dict[str, Belief]:
    beliefs = {"p0": Belief("p0", "p0")}
    for i in range(1, n):
        beliefs[f"p{i}"] = Belief(f"p{i}", "", justifications=(
            Justification((f"p{i - 1}",), (f"q{i}",)),))
        beliefs[f"q{i}"] = Belief(f"q{i}", "", justifications=(
            Justification((), (f"p{i}",)),)) if i % 3 else Belief(f"q{i}", "")
    return beliefs


def test_labels_from_scratch_on_a_long_chain_through_outlists():
    beliefs = _chain(300)
    assert labels_from_scratch(beliefs) == compute_labels(beliefs)
