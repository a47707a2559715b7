"""Property: accepting a proposal leaves the network exactly as running the verb directly
does (labels, depths, justifications, texts), and a verb that refuses refuses the proposal
with the same error: on random networks and random actions of every proposable verb."""
from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine import tms
from engine.errors import EngineError
from engine.memory import dialectic, supersede
from engine.model import Justification
from engine.proposals import lifecycle
from engine.proposals.actions import justification_args, justification_from_args

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]

IDS = [f"b{i}" for i in range(6)]
VERBS = ["add", "add-justification", "retract", "assert", "supersede", "challenge"]
EXAMPLES = int(os.environ.get("PROPOSAL_PROPERTY_EXAMPLES", "8"))  # per verb


@st.composite
def justification(draw, owner: str) -> Justification:
    others = [i for i in IDS + ["n"] if i != owner]
    antecedents = draw(st.lists(st.sampled_from(others), max_size=2, unique=True))
    outlist = draw(st.lists(st.sampled_from([o for o in others if o not in antecedents]),
                            max_size=1, unique=True))
    if not antecedents and not outlist:
        antecedents = [draw(st.sampled_from(others))]
    return Justification(tuple(antecedents), tuple(outlist))


@st.composite
def base_network(draw) -> list[tuple[str, tuple[Justification, ...]]]:
    n = draw(st.integers(2, len(IDS)))
    return [(bid, tuple(draw(st.lists(justification(bid), max_size=2))))
            for bid in IDS[:n]]


@st.composite
def action(draw, verb: str, existing: list[str]) -> dict:
    target = draw(st.sampled_from(existing))
    if verb == "add":
        js = draw(st.lists(justification("n"), max_size=2))
        return {"id": "n", "text": "A new belief.",
                "justifications": [justification_args(j) for j in js]}
    if verb == "add-justification":
        return {"id": target,
                "justifications": [justification_args(draw(justification(target)))]}
    if verb == "retract":
        return {"id": target, "reason": "proposed"}
    if verb == "assert":
        return {"id": target}
    if verb == "supersede":
        if draw(st.booleans()):
            return {"old": target, "new": draw(st.sampled_from(existing)),
                    "rewire": draw(st.sampled_from([None, True, False]))}
        return {"old": target, "text": "Reworded.",
                "rewire": draw(st.sampled_from([None, True, False]))}
    return {"id": target, "reason": "doubt",
            "justification": draw(st.sampled_from([None, 1, 2]))}


def run_directly(store, verb: str, a: dict) -> None:
    js = tuple(justification_from_args(j) for j in a.get("justifications") or ())
    if verb == "add":
        tms.add(store, a["id"], a["text"], js)
    elif verb == "add-justification":
        tms.add_justification(store, a["id"], js)
    elif verb == "retract":
        tms.retract(store, a["id"], a["reason"])
    elif verb == "assert":
        tms.assert_belief(store, a["id"])
    elif verb == "supersede":
        supersede.supersede(store, a["old"], a.get("new"), text=a.get("text"),
                            rewire=a.get("rewire"))
    else:
        dialectic.challenge(store, a["id"], a["reason"], a.get("justification"))


def build(store, base) -> None:
    tms.reset(store)
    for bid, js in base:
        tms.add(store, bid, f"Belief {bid}.", js)


def state(store) -> dict:
    beliefs = store.read(lambda tx: tx.read_network()).beliefs
    return {b.id: (b.truth, b.depth, b.text, b.retracted, b.asserted,
                   tuple((j.antecedents, j.outlist, j.gate) for j in b.justifications))
            for b in beliefs.values()}


def outcome(call) -> type | None:
    try:
        call()
    except EngineError as e:
        return type(e)
    return None


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@pytest.mark.parametrize("verb", VERBS)
@given(data=st.data())
def test_accepting_a_proposal_equals_running_the_verb(store, verb, data):
    base = data.draw(base_network())
    args = data.draw(action(verb, [bid for bid, _ in base]))

    build(store, base)
    via_proposal = outcome(lambda: lifecycle.accept(
        store, lifecycle.propose(store, verb, args, "why").proposal.id))
    proposed = state(store)

    build(store, base)
    directly = outcome(lambda: run_directly(store, verb, args))
    event(f"{verb}: {'refused' if directly else 'applied'}")
    assert via_proposal == directly, (verb, args)
    assert proposed == state(store), (verb, args)
    assert not tms.verify(store)
