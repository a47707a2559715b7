"""Property: after any sequence of operations, the labels and depths in Neo4j equal the
well-founded model computed from scratch, and each operation reports exactly the beliefs
whose label crossed IN/OUT."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine import tms
from engine.model import Justification, Truth
from engine.tms.semantics import compute_labels

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]

IDS = [f"b{i}" for i in range(9)]


def _labels(store):
    network = store.read(lambda tx: tx.read_network())
    return network.beliefs, compute_labels(network.beliefs)


def _justification(draw, owner: str) -> Justification:
    others = [i for i in IDS if i != owner]
    gate_only = draw(st.booleans())  # outlist-only justifications make loops through outlists
    antecedents = [] if gate_only else draw(st.lists(st.sampled_from(others), max_size=3,
                                                     unique=True))
    outlist = draw(st.lists(st.sampled_from(others), max_size=2, unique=True))
    if not antecedents and not outlist:
        antecedents = [draw(st.sampled_from(others))]
    return Justification(tuple(antecedents), tuple(outlist))


@st.composite
def operation(draw, existing: frozenset[str]):
    kinds = ["add"] if not existing else ["add", "add", "justify", "retract", "assert"]
    if len(existing) >= 2:
        kinds.append("nogood")
    kind = draw(st.sampled_from(kinds))
    if kind == "add":
        fresh = [i for i in IDS if i not in existing]
        if not fresh:
            kind = "retract"
        else:
            bid = draw(st.sampled_from(fresh))
            n = draw(st.integers(0, 2))
            return ("add", bid, tuple(_justification(draw, bid) for _ in range(n)))
    bid = draw(st.sampled_from(sorted(existing)))
    if kind == "justify":
        return ("justify", bid, (_justification(draw, bid),))
    if kind == "nogood":
        members = draw(st.lists(st.sampled_from(sorted(existing)), min_size=2, max_size=3,
                                unique=True))
        return ("nogood", tuple(members), ())
    return (kind, bid, ())


def _apply(store, op, counter: list[int]):
    kind, target, justifications = op
    if kind == "add":
        return tms.add(store, target, f"belief {target}: it's `quoted` \"text\"\n{{x}}",
                       justifications)
    if kind == "justify":
        return tms.add_justification(store, target, justifications)
    if kind == "retract":
        return tms.retract(store, target, "property test")
    if kind == "assert":
        return tms.assert_belief(store, target)
    counter[0] += 1
    return tms.add_nogood(store, target, f"ng{counter[0]}")


@settings(max_examples=int(__import__("os").environ.get("TMS_PROPERTY_EXAMPLES", "60")), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(data=st.data())
def test_stored_labels_always_equal_the_from_scratch_model(store, data):
    tms.reset(store)
    existing: set[str] = set()
    nogood_counter = [0]
    before = {}
    for _ in range(data.draw(st.integers(4, 14), label="operations")):
        op = data.draw(operation(frozenset(existing)), label="op")
        change = _apply(store, op, nogood_counter)
        if op[0] == "add":
            existing.add(op[1])
        after_beliefs, after = _labels(store)
        for bid, b in after_beliefs.items():
            assert (b.truth, b.depth) == (after[bid].truth, after[bid].depth), (
                f"after {op}: {bid} stored {b.truth}/{b.depth}, "
                f"computed {after[bid].truth}/{after[bid].depth}")
        went_in = sorted(b for b, label in after.items() if label.truth == Truth.IN
                         and (b not in before or before[b].truth != Truth.IN))
        went_out = sorted(b for b, label in after.items() if label.truth != Truth.IN
                          and b in before and before[b].truth == Truth.IN)
        assert (change.went_in, change.went_out) == (went_in, went_out), f"after {op}"
        assert tms.verify(store) == []
        if any(label.truth == Truth.UNDETERMINED for label in after.values()):
            event("an undetermined belief")
        if any(label.depth is None for label in after.values()):
            event("a belief with no finite derivation (circular support)")
        if change.retracted_by_nogood:
            event("a nogood retraction")
        before = after


@st.composite
def imported_network(draw):
    """A network as a file would hold it: self-reference, cycles and forward references
    allowed, every stored label IN."""
    size = draw(st.integers(2, 9))
    ids = IDS[:size]
    nodes = {}
    for bid in ids:
        justs = []
        for _ in range(draw(st.integers(0, 2))):
            antecedents = draw(st.lists(st.sampled_from(IDS), max_size=2, unique=True))
            outlist = draw(st.lists(st.sampled_from(IDS), max_size=2, unique=True))
            justs.append({"type": "SL", "antecedents": antecedents, "outlist": outlist,
                          "label": ""})
        nodes[bid] = {"text": f"belief {bid}", "truth_value": "IN", "justifications": justs}
    return {"nodes": nodes}


@settings(max_examples=int(__import__("os").environ.get("TMS_PROPERTY_EXAMPLES", "60")),
          deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=imported_network(), ops=st.lists(
    st.tuples(st.sampled_from(["retract", "assert"]), st.sampled_from(IDS)), max_size=8))
def test_imported_networks_stay_equal_to_the_from_scratch_model(store, data, ops):
    from adapters.formats import parse_network
    from engine import interchange
    from engine.errors import NotFound

    tms.reset(store)
    network, stored = parse_network(data)
    interchange.import_network(store, network, stored)
    assert tms.verify(store) == []
    for kind, bid in ops:
        try:
            tms.retract(store, bid) if kind == "retract" else tms.assert_belief(store, bid)
        except NotFound:
            assert bid not in network.beliefs
            continue
        assert tms.verify(store) == [], f"after {kind} {bid}"
    _, labels = _labels(store)
    if any(label.truth == Truth.UNDETERMINED for label in labels.values()):
        event("an undetermined belief")
    if any(label.depth is None for label in labels.values()):
        event("a belief with no finite derivation (circular support)")


# --- the daily verbs: supersede, reword, undo, challenge, defend, editing -----------------
@st.composite
def memory_operation(draw, existing: frozenset[str], challenges: frozenset[str]):
    if len(existing) < 2:
        bid = draw(st.sampled_from([i for i in IDS if i not in existing]))
        return ("add", bid, (), None)
    kinds = ["add", "justify", "retract", "supersede", "reword", "supersede_undo",
             "challenge", "remove_justification", "convert"]
    if challenges:
        kinds.append("defend")
    kind = draw(st.sampled_from(kinds))
    fresh = [i for i in IDS if i not in existing]
    if kind == "add" and fresh:
        bid = draw(st.sampled_from(fresh))
        return ("add", bid, tuple(_justification(draw, bid)
                                  for _ in range(draw(st.integers(0, 2)))), None)
    ids = sorted(existing)
    bid = draw(st.sampled_from(ids))
    if kind == "justify":
        return ("justify", bid, (_justification(draw, bid),), None)
    if kind in ("supersede", "supersede_undo"):
        return (kind, bid, (), (draw(st.sampled_from(ids)), draw(st.booleans())))
    if kind == "reword":
        return ("reword", bid, (), draw(st.booleans()))
    if kind == "challenge":
        return ("challenge", bid, (), draw(st.sampled_from([None, 1, 2])))
    if kind == "defend":
        return ("defend", draw(st.sampled_from(sorted(challenges))), (), None)
    if kind == "remove_justification":
        return ("remove_justification", bid, (), draw(st.integers(1, 2)))
    return (kind if kind != "add" else "retract", bid, (), None)


def _export(store) -> str:
    from adapters.formats import dump_network
    from engine import interchange

    return dump_network(interchange.export_network(store))


def _apply_memory(store, op):
    from engine.memory import dialectic, editing, supersede

    kind, target, justifications, extra = op
    if kind == "add":
        return tms.add(store, target, f"belief {target}", justifications)
    if kind == "justify":
        return tms.add_justification(store, target, justifications)
    if kind == "retract":
        return tms.retract(store, target, "property test")
    if kind == "supersede":
        return supersede.supersede(store, target, extra[0], rewire=extra[1]).change
    if kind == "supersede_undo":  # supersede, then undo: the export must be exactly as before
        before = _export(store)
        supersede.supersede(store, target, extra[0], rewire=extra[1])
        supersede.undo_supersede(store, target)
        assert _export(store) == before, f"undo of {op} changed the graph"
        return None
    if kind == "reword":
        return supersede.supersede(store, target, text=f"{target}, reworded", rewire=extra).change
    if kind == "challenge":
        return dialectic.challenge(store, target, "doubt", extra).change
    if kind == "defend":
        return dialectic.defend(store, target, "answer").change
    if kind == "remove_justification":
        return editing.remove_justification(store, target, extra)
    return editing.convert_to_premise(store, target)


@pytest.mark.slow
@settings(max_examples=int(__import__("os").environ.get("TMS_PROPERTY_EXAMPLES", "25")),
          deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_the_daily_verbs_keep_the_well_founded_model(store, data):
    from engine.errors import InvalidInput, NotFound

    tms.reset(store)
    existing: set[str] = set()
    challenges: set[str] = set()
    before: dict = {}
    for _ in range(data.draw(st.integers(4, 12), label="operations")):
        op = data.draw(memory_operation(frozenset(existing), frozenset(challenges)), label="op")
        snapshot = _export(store)
        try:
            change = _apply_memory(store, op)
        except (InvalidInput, NotFound):
            assert _export(store) == snapshot, f"refused {op} but wrote something"
            event(f"refused {op[0]}")
            continue
        beliefs, after = _labels(store)
        existing = {b for b in beliefs if not b.startswith(("challenge:", "defence:"))}
        challenges = {b for b in beliefs if b.startswith("challenge:")}
        for bid, b in beliefs.items():
            assert (b.truth, b.depth) == (after[bid].truth, after[bid].depth), (
                f"after {op}: {bid} stored {b.truth}/{b.depth}, "
                f"computed {after[bid].truth}/{after[bid].depth}")
        if change is not None:
            went_in = sorted(b for b, label in after.items() if label.truth == Truth.IN
                             and (b not in before or before[b].truth != Truth.IN))
            went_out = sorted(b for b, label in after.items() if label.truth != Truth.IN
                              and b in before and before[b].truth == Truth.IN)
            assert (change.went_in, change.went_out) == (went_in, went_out), f"after {op}"
        assert tms.verify(store) == []
        event(f"applied {op[0]}")
        before = after
