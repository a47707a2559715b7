"""network.json keeps what this engine adds to a justification: the gate that supersede and
challenge put on a premise, written only where there is one, refused where malformed."""
from __future__ import annotations

import pytest

from adapters.formats import network_to_json, parse_network
from engine.errors import InvalidInput
from engine.model import Belief, Justification
from engine.tms.records import Network


def _node(**justification):
    return {"nodes": {"p": {"text": "A premise.", "truth_value": "OUT",
                            "justifications": [justification]},
                      "challenge:p": {"text": "Why?", "truth_value": "IN"}}}


def test_a_gate_round_trips_and_plain_justifications_are_unchanged():
    gated = Belief("p", "A premise.", justifications=(Justification((), ("challenge:p",),
                                                                    gate=True),))
    plain = Belief("q", "From p.", justifications=(Justification(("p",)),))
    data = network_to_json(Network({"p": gated, "q": plain}))
    assert data["nodes"]["p"]["justifications"][0]["gate"] is True
    assert "gate" not in data["nodes"]["q"]["justifications"][0]
    network, _ = parse_network(data)
    assert network.beliefs["p"].justifications[0].gate
    assert network.beliefs["p"].is_premise and not network.beliefs["q"].is_premise


@pytest.mark.parametrize("justification, message", [
    ({"outlist": ["challenge:p"], "gate": "yes"}, "'gate' must be true or false"),
    ({"antecedents": ["challenge:p"], "gate": True}, "a gate has an outlist and no antecedents"),
])
def test_a_malformed_gate_is_refused_naming_it(justification, message):
    with pytest.raises(InvalidInput, match=message):
        parse_network(_node(**justification))


def test_supersessions_and_sources_round_trip_and_are_written_only_when_there_are_some():
    from engine.memory.records import RewiredEdge, SupersedeRecord
    from engine.sources.records import SourceRecord

    record = SupersedeRecord("p", "q", True, (RewiredEdge("r", 1, "REQUIRES", 0),), "why",
                             "2026-01-01T00:00:00+00:00")
    gated_nothing = SupersedeRecord("r", "q", False, (), "", "2026-01-01T00:00:00+00:00", 0)
    source = SourceRecord("docs/a.md", "ab12", 10, "2026-01-01", ("c1",))
    beliefs = {i: Belief(i, f"belief {i}") for i in "pqr"}
    data = network_to_json(Network(beliefs, supersessions=[record, gated_nothing],
                                   sources=[source]))
    assert [s.get("gated") for s in data["supersessions"]] == [None, 0]  # 0 is said
    network, _ = parse_network(data)
    assert (network.supersessions, network.sources) == ([record, gated_nothing], [source])
    plain = network_to_json(Network(beliefs))
    assert "supersessions" not in plain and "sources" not in plain


@pytest.mark.parametrize("extra, message", [
    ({"supersessions": [{"old": "p", "new": "Q!"}]}, "'old' and 'new' must be belief ids"),
    ({"supersessions": [{"old": "p", "new": "q", "rewired": [["r", 1, "ABOUT", 0]]}]},
     "a rewired edge is"),
    ({"supersessions": [{"old": "p", "new": "q", "gated": -1}]}, "'gated' must be how many"),
    ({"supersessions": [{"old": "p", "new": "q", "gated": True}]}, "'gated' must be how many"),
    ({"sources": [{"sha256": "x"}]}, "expected an object with a 'path'"),
    ({"sources": {"path": "a"}}, "'sources' must be a list"),
])
def test_a_malformed_supersession_or_source_is_refused_naming_it(extra, message):
    with pytest.raises(InvalidInput, match=message):
        parse_network({"nodes": {"p": {"text": "P"}, "q": {"text": "Q"}}, **extra})
