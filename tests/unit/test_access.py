"""engine/tms/access.py: effective tags from own tags and current support, on small networks."""
from __future__ import annotations

from types import MappingProxyType

import pytest

from engine.errors import InvalidInput
from engine.model import Belief, Justification
from engine.tms.access import effective_tags, parse_tags, tag_sources, visible
from engine.tms.semantics import compute_labels


def belief(bid: str, *justifications: Justification, tags: tuple[str, ...] = (),
           retracted: bool = False) -> Belief:
    meta = MappingProxyType({"access_tags": list(tags)} if tags else {})
    return Belief(bid, bid, tuple(justifications), metadata=meta, retracted=retracted)


def tags_of(beliefs: list[Belief]) -> dict[str, set[str]]:
    network = {b.id: b for b in beliefs}
    truth = {bid: label.truth for bid, label in compute_labels(network).items()}
    return {bid: set(t) for bid, t in effective_tags(network, truth).items()}


def test_only_holding_justifications_carry_tags_to_an_in_belief():
    got = tags_of([belief("hr", tags=("hr",), retracted=True), belief("news"),
                   belief("c", Justification(("hr",)), Justification(("news",)))])
    assert got["c"] == set()  # holds by news alone
    got = tags_of([belief("hr", tags=("hr",)), belief("news"),
                   belief("c", Justification(("hr",)), Justification(("news",)))])
    assert got["c"] == {"hr"}  # both hold: both are support


def test_an_out_belief_keeps_the_tags_of_all_its_justifications_and_outlists_carry_none():
    got = tags_of([belief("hr", tags=("hr",), retracted=True), belief("fin", tags=("fin",)),
                   belief("c", Justification(("hr",))),
                   belief("d", Justification((), ("fin",)))])
    assert got["c"] == {"hr"}
    assert got["d"] == set()


def test_a_cycle_of_support_shares_its_tags():
    got = tags_of([belief("p", tags=("a",)), belief("q", tags=("b",)),
                   belief("x", Justification(("p",)), Justification(("y",))),
                   belief("y", Justification(("q",)), Justification(("x",)))])
    assert got["x"] == got["y"] == {"a", "b"}


def test_tag_sources_give_the_nearest_origin_and_the_path():
    network = {b.id: b for b in [belief("p", tags=("hr",)), belief("m", Justification(("p",))),
                                 belief("t", Justification(("m",)), tags=("eng",))]}
    truth = {bid: label.truth for bid, label in compute_labels(network).items()}
    assert [s.as_dict() for s in tag_sources("t", network, truth)] == [
        {"tag": "eng", "origin": "t", "via": ["t"]},
        {"tag": "hr", "origin": "p", "via": ["t", "m", "p"]}]


def test_parsing_and_visibility():
    assert parse_tags("hr, finance,hr") == ("finance", "hr")
    assert parse_tags(["eng"]) == ("eng",)
    with pytest.raises(InvalidInput):
        parse_tags("HR")
    with pytest.raises(InvalidInput):
        parse_tags(7)
    assert visible((), frozenset()) and visible(("hr",), None)
    assert visible(("hr",), frozenset({"hr", "eng"})) and not visible(("hr", "x"),
                                                                      frozenset({"hr"}))
