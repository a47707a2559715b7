"""An agent's file under a namespace (engine/agents/namespaced.py): ids prefixed, the switch
required by every justification, the premises still assumptions for nogood resolution and
less entrenched than ours. Pure: no store."""
from __future__ import annotations

from types import MappingProxyType

import pytest

from engine.agents.namespaced import namespaced
from engine.errors import InvalidInput
from engine.model import Belief, Justification, Nogood, Truth
from engine.tms.agent_marks import is_agent_premise, namespace_of
from engine.tms.nogoods import assumptions, entrenchment
from engine.tms.records import Network
from engine.tms.semantics import compute_labels

AT = "2026-12-03T00:00:00+00:00"


def agent_file() -> tuple[Network, dict[str, Truth]]:
    beliefs = {
        "p": Belief("p", "A premise of theirs.", metadata=MappingProxyType(
            {"beliefs_type": "observation"})),
        "q": Belief("q", "Another premise."),
        "d": Belief("d", "Derived from p unless q.", (Justification(("p",), ("q",)),)),
        "e": Belief("e", "Derived from d.", (Justification(("d",)),)),
        "old": Belief("old", "Superseded.", (Justification((), ("p",), gate=True),),
                      metadata=MappingProxyType({"superseded_by": "p"})),
        "gone": Belief("gone", "Retracted there.", retracted_at=AT),
    }
    stored = {"p": Truth.IN, "q": Truth.OUT, "d": Truth.IN, "e": Truth.IN,
              "old": Truth.OUT, "gone": Truth.OUT}
    beliefs["q"] = Belief("q", "Another premise.", retracted_at=AT)
    return Network(beliefs, [Nogood("ng-1", ("p", "e"))]), stored


def test_every_id_is_prefixed_and_every_justification_requires_the_switch():
    network, stored = agent_file()
    agent = namespaced("a", network, stored, AT)
    assert set(agent.beliefs) == {"a:active", "a:p", "a:q", "a:d", "a:e", "a:old", "a:gone"}
    assert agent.beliefs["a:d"].justifications == (
        Justification(("a:p", "a:active"), ("a:q",)),)
    assert agent.beliefs["a:p"].justifications == (
        Justification(("a:active",), label="premise of a"),)
    # a gated premise keeps its gate as the outlist of the switch's justification
    assert agent.beliefs["a:old"].justifications == (
        Justification(("a:active",), ("a:p",), label="premise of a"),)
    assert agent.beliefs["a:old"].metadata["superseded_by"] == "a:p"
    assert agent.nogoods == [Nogood("a:ng-1", ("a:p", "a:e"))]
    assert all(namespace_of(b) == "a" for b in agent.beliefs.values())


def test_the_labels_are_the_files_and_the_switch_takes_everything_out():
    network, stored = agent_file()
    agent = namespaced("a", network, stored, AT)
    truth = {i: label.truth for i, label in agent.labels.items()}
    assert truth["a:p"] == truth["a:d"] == truth["a:e"] == Truth.IN  # q is retracted there
    assert agent.beliefs["a:q"].retracted and agent.beliefs["a:gone"].retracted
    assert agent.beliefs["a:q"].metadata["agent_retracted"] is True
    off = dict(agent.beliefs)
    off["a:active"] = Belief("a:active", "off", retracted=True)
    assert {i for i, label in compute_labels(off).items() if label.truth == Truth.IN} == set()


def test_the_digest_changes_with_the_definition_only():
    network, stored = agent_file()
    first = namespaced("a", network, stored, AT).beliefs
    again = namespaced("a", network, stored, "2027-01-01T00:00:00+00:00").beliefs
    assert {i: b.metadata.get("agent_sha256") for i, b in first.items()} == {
        i: b.metadata.get("agent_sha256") for i, b in again.items()}
    network.beliefs["e"] = Belief("e", "Derived from d, reworded.", (Justification(("d",)),))
    changed = namespaced("a", network, stored, AT).beliefs
    assert [i for i in first if first[i].metadata.get("agent_sha256")
            != changed[i].metadata.get("agent_sha256")] == ["a:e"]


def test_an_asserted_belief_is_held_by_the_switch_not_pinned():
    network = Network({"p": Belief("p", "Premise."),
                       "c": Belief("c", "Asserted there.", (Justification(("p",)),),
                                   asserted=True)})
    agent = namespaced("a", network, {}, AT)
    c = agent.beliefs["a:c"]
    assert not c.asserted and agent.asserted_there == ["a:c"]
    assert c.justifications[0] == Justification(("a:active",), label="asserted in a")


@pytest.mark.parametrize("name, fragment", [("Bad Name", "invalid namespace"),
                                            ("review", "reserved"), ("", "invalid")])
def test_a_bad_namespace_is_refused(name, fragment):
    network, stored = agent_file()
    with pytest.raises(InvalidInput, match=fragment):
        namespaced(name, network, stored, AT)


def test_a_file_with_a_belief_named_active_is_refused():
    with pytest.raises(InvalidInput, match="'active'"):
        namespaced("a", Network({"active": Belief("active", "Clash.")}), {}, AT)


def test_an_agents_premise_is_an_assumption_and_the_switch_never_is():
    network, stored = agent_file()
    agent = namespaced("a", network, stored, AT)
    labelled = {i: Belief(b.id, b.text, b.justifications, metadata=b.metadata,
                          retracted=b.retracted, truth=agent.labels[i].truth)
                for i, b in agent.beliefs.items()}
    assert is_agent_premise(labelled["a:p"]) and not is_agent_premise(labelled["a:d"])
    assert assumptions(labelled, ["a:e"]) == ["a:p"]


def test_an_imported_premise_is_less_entrenched_than_ours():
    network, stored = agent_file()
    theirs = namespaced("a", network, stored, AT).beliefs["a:p"]  # an observation there
    our_observation = Belief("o", "Ours.", metadata=MappingProxyType(
        {"beliefs_type": "observation"}))
    our_plain = Belief("o2", "Ours, no type.")
    assert entrenchment(theirs, 50) < entrenchment(our_observation, 0)
    assert entrenchment(theirs, 50) < entrenchment(our_plain, 0)  # same rank: ours wins
