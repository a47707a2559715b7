"""Random memories and random edits of them, and the check that after every edit the stored
labels and depths are the well-founded model computed from scratch (engine/tms/semantics.py),
the access tags those of the definition (tests/tms_oracle.py, apart from propagate_tags), no
nogood holds over an assumption, the edit wrote the structure it promises
(tests/verb_promises.py: a supersede's gate, a challenge's, nothing else) and reported exactly
the beliefs that crossed IN/OUT and those a nogood retracted. A refused edit writes nothing;
an example that cannot apply enough of its edits fails (MIN_APPLIED_SHARE).

Shared by the property test of propagation on the fake store (tests/unit/test_propagate.py,
many examples, no Neo4j) and the same test on Neo4j (tests/integration/test_tms_property.py,
fewer examples): both stores run engine/tms/propagate.py, through their own RegionReader.

A memory starts empty or as an imported file (self-reference, cycles, forward references);
edits are the kernel's verbs and the daily ones: add (ALL or ANY, outlists, outlist-only
justifications, ids not added yet), add-justification (cycles), retract, assert, nogoods,
supersede (and its undo), reword, challenge and defend (gates, of premises too),
remove-justification, convert-to-premise and access tags.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

from hypothesis import event
from hypothesis import strategies as st

from adapters.formats import dump_network, parse_network
from engine import interchange, tms
from engine.errors import InvalidInput, NotFound
from engine.memory import dialectic, editing, supersede
from engine.model import Belief, Change, Justification, Label, Truth
from engine.store import Store
from engine.tms.records import Network
from engine.tms.semantics import compute_labels
from tests.tms_oracle import effective_tags, nogoods_broken
from tests.verb_promises import check_promise

IDS = [f"b{i}" for i in range(9)]
TAGS = ["hr", "finance"]
# Of the edits an example draws, at least this share must be applied (not refused): drawing
# goes on until as many are applied as the example asked for, within 1 / share as many draws.
MIN_APPLIED_SHARE = 1 / 3


def _justifications(draw, owner: str, existing: frozenset[str] = frozenset(), *,
                    itself: bool = False) -> tuple[Justification, ...]:
    """Mostly simple (ALL over one or two antecedents, no outlist: the beliefs propagation's
    shortcuts decide), the rest with outlists, outlist-only (loops through outlists) or ANY;
    mostly over `existing` beliefs when there are some (ids not added yet are OUT), naming
    the owner too when `itself` (a file may)."""
    others = [i for i in IDS if itself or i != owner]
    present = sorted(existing - {owner})
    if present and draw(st.integers(0, 3)):
        others = present
    shape = draw(st.sampled_from(["simple", "simple", "simple", "outlist", "outlist only",
                                  "any"]))
    antecedents = draw(st.lists(st.sampled_from(others), min_size=1, max_size=3, unique=True))
    if shape == "simple":
        return tms.make_justifications(antecedents[:2])
    outlist = draw(st.lists(st.sampled_from(others), min_size=1, max_size=2, unique=True))
    if shape == "outlist only":
        return tms.make_justifications((), unless=outlist)
    if shape == "any":
        return tms.make_justifications(antecedents, unless=outlist[:draw(st.integers(0, 2))],
                                       any_mode=True)
    return tms.make_justifications(antecedents, unless=outlist)


def _some_justifications(draw, owner: str, existing: frozenset[str] = frozenset(), *,
                         itself: bool = False) -> tuple[Justification, ...]:
    return tuple(j for _ in range(draw(st.sampled_from([0, 1, 1, 1, 2])))
                 for j in _justifications(draw, owner, existing, itself=itself))


@st.composite
def imported_network(draw) -> dict:
    """A network as a file would hold it: self-reference, cycles and forward references
    allowed, every stored label IN (import labels from scratch)."""
    nodes = {}
    for bid in IDS[:draw(st.integers(2, len(IDS)))]:
        justs = [{"type": "SL", "antecedents": list(j.antecedents), "outlist": list(j.outlist),
                  "label": ""} for j in _some_justifications(draw, bid, itself=True)]
        nodes[bid] = {"text": f"belief {bid}", "truth_value": "IN", "justifications": justs}
    return {"nodes": nodes}


@st.composite
def layered_network(draw) -> dict:
    """A network shaped for propagation's shortcuts: two premises or a loop through outlists
    (both UNDETERMINED), two premises, then beliefs on one simple justification over what
    comes before them (now and then a second justification or an outlist)."""
    nodes: dict[str, dict] = {}

    def node(bid: str, *justifications: tuple[list[str], list[str]]) -> None:
        nodes[bid] = {"text": f"belief {bid}", "truth_value": "IN", "justifications": [
            {"type": "SL", "antecedents": a, "outlist": o, "label": ""}
            for a, o in justifications]}

    loop = draw(st.booleans())
    node("b0", *([([], ["b1"])] if loop else []))
    node("b1", *([([], ["b0"])] if loop else []))
    node("b2")
    node("b3")
    for n in range(4, len(IDS)):
        below = IDS[:n]
        justifications = [(draw(st.lists(st.sampled_from(below), min_size=1, max_size=2,
                                         unique=True)), [])]
        if n == 4:  # on the loop (or its premises) and a premise
            justifications = [([draw(st.sampled_from(["b0", "b1"])),
                                draw(st.sampled_from(["b2", "b3"]))], [])]
        extra = draw(st.sampled_from(["", "", "", "justification", "outlist"]))
        if extra == "justification":
            justifications.append(([draw(st.sampled_from(below))], []))
        elif extra == "outlist":
            justifications[0][1].append(draw(st.sampled_from(below)))
        node(IDS[n], *justifications)
    return {"nodes": nodes}


@dataclasses.dataclass(frozen=True)
class Memory:
    """What the next edit is drawn from: the beliefs (challenges and defences apart)."""

    existing: frozenset[str] = frozenset()
    challenges: frozenset[str] = frozenset()
    retracted: frozenset[str] = frozenset()
    premises: frozenset[str] = frozenset()

    @classmethod
    def of(cls, beliefs: Mapping[str, Belief]) -> Memory:
        existing = frozenset(b for b in beliefs if not b.startswith(("challenge:", "defence:")))
        return cls(existing, frozenset(b for b in beliefs if b.startswith("challenge:")),
                   frozenset(b for b in existing if beliefs[b].retracted),
                   frozenset(b for b in existing if beliefs[b].is_premise))


@st.composite
def edit(draw, memory: Memory) -> tuple:
    """(kind, target, argument); retractions often of a premise, assertions mostly of what
    is retracted."""
    existing, challenges = memory.existing, memory.challenges
    fresh = [i for i in IDS if i not in existing]
    if len(existing) < 2:
        bid = draw(st.sampled_from(fresh))
        return ("add", bid, _some_justifications(draw, bid, existing))
    kinds = ["add", "add", "add", "justify", "retract", "retract", "retract", "assert",
             "assert", "assert", "nogood", "supersede", "reword", "supersede_undo", "challenge",
             "remove_justification", "convert", "tag"]
    if challenges:
        kinds.append("defend")
    kind = draw(st.sampled_from(kinds))
    ids = sorted(existing)
    if kind == "add" and fresh:
        bid = draw(st.sampled_from(fresh))
        return ("add", bid, _some_justifications(draw, bid, existing))
    bid = draw(st.sampled_from(ids))
    held = memory.premises - memory.retracted
    if kind == "retract" and held and draw(st.booleans()):
        return ("retract", draw(st.sampled_from(sorted(held))), None)
    if kind == "assert" and memory.retracted and draw(st.integers(0, 3)):
        return ("assert", draw(st.sampled_from(sorted(memory.retracted))), None)
    if kind == "justify":
        return ("justify", bid, _justifications(draw, bid, existing))
    if kind == "nogood":
        return ("nogood", tuple(draw(st.lists(st.sampled_from(ids), min_size=2, max_size=3,
                                              unique=True))), None)
    if kind in ("supersede", "supersede_undo"):
        return (kind, bid, (draw(st.sampled_from(ids)), draw(st.booleans())))
    if kind == "reword":
        return ("reword", bid, draw(st.booleans()))
    if kind == "challenge":
        return ("challenge", bid, draw(st.sampled_from([None, 1, 2])))
    if kind == "defend":
        return ("defend", draw(st.sampled_from(sorted(challenges))), None)
    if kind == "remove_justification":
        return ("remove_justification", bid, draw(st.integers(1, 2)))
    if kind == "tag":
        return ("tag", bid, draw(st.lists(st.sampled_from(TAGS), max_size=2, unique=True)))
    return (kind if kind != "add" else "retract", bid, None)


def export(store: Store) -> str:
    return dump_network(interchange.export_network(store))


def read(store: Store) -> Network:
    return store.read(lambda tx: tx.read_network())


def apply_edit(store: Store, op: tuple, nogoods: list[int]) -> Change | None:
    kind, target, argument = op
    if kind == "add":
        return tms.add(store, target, f"belief {target}: it's `quoted` \"text\"\n{{x}}",
                       argument)
    if kind == "justify":
        return tms.add_justification(store, target, argument)
    if kind == "retract":
        return tms.retract(store, target, "property test")
    if kind == "assert":
        return tms.assert_belief(store, target)
    if kind == "nogood":
        nogoods[0] += 1
        return tms.add_nogood(store, target, f"ng{nogoods[0]}")
    if kind == "supersede":
        return supersede.supersede(store, target, argument[0], rewire=argument[1]).change
    if kind == "supersede_undo":  # supersede, then undo: the export must be exactly as before
        before = export(store)
        supersede.supersede(store, target, argument[0], rewire=argument[1])
        supersede.undo_supersede(store, target)
        assert export(store) == before, f"undo of {op} changed the graph"
        return None
    if kind == "reword":
        return supersede.supersede(store, target, text=f"{target}, reworded",
                                   rewire=argument).change
    if kind == "challenge":
        return dialectic.challenge(store, target, "doubt", argument).change
    if kind == "defend":
        return dialectic.defend(store, target, "answer").change
    if kind == "remove_justification":
        return editing.remove_justification(store, target, argument)
    if kind == "tag":
        return editing.set_metadata(store, target, "access_tags", argument)
    return editing.convert_to_premise(store, target)


def stored_equals_computed(store: Store, before: dict[str, Label], change: Change | None,
                           op: object) -> tuple[dict[str, Label], Network]:
    """Assert the stored labelling is the model computed from scratch, the tags those of the
    definition, no nogood broken, and `change` what crossed IN/OUT since `before`; return
    the labels now, and the network."""
    network = read(store)
    beliefs = network.beliefs
    after = compute_labels(beliefs)
    for bid, b in beliefs.items():
        assert (b.truth, b.depth) == (after[bid].truth, after[bid].depth), (
            f"after {op}: {bid} stored {b.truth}/{b.depth}, "
            f"computed {after[bid].truth}/{after[bid].depth}")
    tags = effective_tags(beliefs, after)
    for bid, b in beliefs.items():
        assert set(b.effective_tags) == tags[bid], (
            f"after {op}: {bid}'s tags {sorted(b.effective_tags)}, defined {sorted(tags[bid])}")
    assert nogoods_broken(beliefs, after, network.nogoods) == [], f"after {op}"
    if change is not None:
        went_in = sorted(b for b, label in after.items() if label.truth == Truth.IN
                         and (b not in before or before[b].truth != Truth.IN))
        went_out = sorted(b for b, label in after.items() if label.truth != Truth.IN
                          and b in before and before[b].truth == Truth.IN)
        assert (change.went_in, change.went_out) == (went_in, went_out), f"after {op}"
    if any(label.truth == Truth.UNDETERMINED for label in after.values()):
        event("an undetermined belief")
    if any(label.depth is None for label in after.values()):
        event("a belief with no finite derivation (circular support)")
    if any(all(after[m].truth == Truth.IN for m in n.members if m in after)
           for n in network.nogoods):
        event("a nogood left holding (its members rest on no assumption)")
    return after, network


def run_edits(store: Store, data: st.DataObject,
              also: Callable[[Store], None] = lambda store: None) -> None:
    """Draw a memory and edits from `data`, apply them to `store` (empty), check each;
    `also(store)` runs after each check (the Neo4j test verifies there too)."""
    start = data.draw(st.sampled_from(["empty", "a file", "layers"]), label="start")
    if start != "empty":
        network = imported_network() if start == "a file" else layered_network()
        interchange.import_network(store, *parse_network(data.draw(network)))
    before, now = stored_equals_computed(store, {}, None, "import")
    nogoods = [0]
    wanted = data.draw(st.integers(4, 14), label="edits")
    applied = drawn = 0
    while applied < wanted and drawn < wanted / MIN_APPLIED_SHARE:
        op = data.draw(edit(Memory.of(now.beliefs)), label="edit")
        drawn += 1
        snapshot = dump_network(now)
        try:
            change = apply_edit(store, op, nogoods)
        except (InvalidInput, NotFound):
            assert export(store) == snapshot, f"refused {op} but wrote something"
            event(f"refused {op[0]}")
            continue
        applied += 1
        event(f"applied {op[0]}")
        if change is not None and change.retracted_by_nogood:
            event("a nogood retraction")
        was = now
        before, now = stored_equals_computed(store, before, change, op)
        check_promise(op, was, now, change)
        also(store)
    assert applied == wanted, (
        f"{drawn} edits drawn, {applied} applied: fewer than {MIN_APPLIED_SHARE:.0%} of the "
        "drawn edits could be applied, so the example tested too little")
