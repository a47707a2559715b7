"""Property: after random sequences of every kind of write (the daily verbs, a stage's round,
an agent's import, merges and their undo, proposals accepted), for random earlier points P,
`export --as-of P` equals the export taken at P byte for byte; `rollback --to P` then export
equals it too; rolling back the rollback restores the export taken before it; verify stays
clean throughout."""
from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

from engine import tms
from engine.change_records import ChangeEntry
from engine.errors import InvalidInput, NotFound
from engine.memory import history
from engine.model import Belief, Justification, Nogood, Truth
from engine.tms.records import Network

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]

IDS = [f"b{i}" for i in range(8)]
EXAMPLES = int(os.environ.get("HISTORY_PROPERTY_EXAMPLES", "12"))
KINDS = ["add", "add", "justify", "retract", "assert", "nogood", "supersede", "reword",
         "supersede_undo", "challenge", "defend", "remove_justification", "convert",
         "set_metadata", "merge", "merge_undo", "import_agent", "import", "accept", "derive", "defeat",
         "mark_duplicate"]


def _export(store) -> str:
    from adapters.formats import dump_network
    from engine import interchange

    return dump_network(interchange.export_network(store))


def _last_seq(store) -> int:
    return store.read(lambda tx: tx.last_seq())


@st.composite
def justification(draw, owner: str, pool: list[str]) -> Justification:
    others = [i for i in pool if i != owner] or [owner + "-x"]
    antecedents = draw(st.lists(st.sampled_from(others), max_size=2, unique=True))
    outlist = draw(st.lists(st.sampled_from(others), max_size=1, unique=True))
    if not antecedents and not outlist:
        antecedents = [draw(st.sampled_from(others))]
    return Justification(tuple(antecedents), tuple(outlist))


@st.composite
def write(draw, existing: list[str], challenges: list[str], merged: list[str], agents: int):
    kind = draw(st.sampled_from(KINDS if len(existing) >= 2 else ["add"]))
    fresh = [i for i in IDS if i not in existing]
    if kind == "add" and fresh:
        bid = draw(st.sampled_from(fresh))
        n = draw(st.integers(0, 2))
        return ("add", bid, tuple(draw(justification(bid, IDS)) for _ in range(n)))
    if kind == "add":
        kind = "retract"
    target = draw(st.sampled_from(existing))
    other = draw(st.sampled_from(existing))
    if kind == "justify":
        return (kind, target, draw(justification(target, IDS)))
    if kind == "nogood":
        return (kind, tuple(draw(st.lists(st.sampled_from(existing), min_size=2, max_size=3,
                                          unique=True))), None)
    if kind in ("supersede", "supersede_undo", "merge"):
        return (kind, target, (other, draw(st.booleans())))
    if kind == "defend":
        return (kind, draw(st.sampled_from(challenges)), None) if challenges else (
            "retract", target, None)
    if kind == "merge_undo":
        return (kind, draw(st.sampled_from(merged)), None) if merged else ("assert", target,
                                                                           None)
    if kind == "challenge":
        return (kind, target, draw(st.sampled_from([None, 1])))
    if kind in ("remove_justification", "defeat"):
        return (kind, target, draw(st.integers(1, 2)))
    if kind == "mark_duplicate":
        return (kind, target, other)
    if kind == "set_metadata":
        return (kind, target, (draw(st.sampled_from(["topic", "owner"])),
                               draw(st.sampled_from(["a", "b", 3]))))
    if kind == "import_agent":
        return (kind, f"agent{agents}", draw(st.lists(st.booleans(), min_size=2, max_size=3)))
    if kind == "import":
        return (kind, f"imp{agents}", (target, draw(st.booleans())))
    if kind == "accept":
        verb = draw(st.sampled_from(["retract", "assert", "add-justification"]))
        return (kind, verb, target)
    if kind == "derive":
        bid = draw(st.sampled_from([f"d{i}" for i in range(4)]))
        return (kind, bid, (target, other))
    return (kind, target, None)


def _agent_network(flags: list[bool]) -> tuple[Network, dict[str, Truth]]:
    beliefs = {"p0": Belief("p0", "Agent premise.")}
    stored = {"p0": Truth.IN}
    for k, retracted in enumerate(flags[1:], start=1):
        beliefs[f"p{k}"] = Belief(f"p{k}", f"Agent belief {k}.",
                                  (Justification((f"p{k - 1}",)),))
        stored[f"p{k}"] = Truth.OUT if retracted else Truth.IN
    nogoods = [Nogood("ng-a", ("p0", f"p{len(flags) - 1}"))] if flags[0] else []
    return Network(beliefs, nogoods, {}, {"title": "agent"}, [], []), stored


def _apply(store, op) -> None:
    from engine.agents.import_agent import import_agent
    from engine.dedup.merge import merge_in, undo
    from engine.memory import dialectic, editing, supersede
    from engine.proposals import lifecycle

    kind, target, extra = op
    if kind == "add":
        tms.add(store, target, f"Belief {target}.", extra)
    elif kind == "justify":
        tms.add_justification(store, target, (extra,))
    elif kind == "retract":
        tms.retract(store, target, "property test")
    elif kind == "assert":
        tms.assert_belief(store, target)
    elif kind == "nogood":
        tms.add_nogood(store, list(target))
    elif kind == "supersede":
        supersede.supersede(store, target, extra[0], rewire=extra[1])
    elif kind == "reword":
        supersede.supersede(store, target, text=f"{target}, reworded")
    elif kind == "supersede_undo":
        supersede.supersede(store, target, extra[0], rewire=extra[1])
        supersede.undo_supersede(store, target)
    elif kind == "challenge":
        dialectic.challenge(store, target, "doubt", extra)
    elif kind == "defend":
        dialectic.defend(store, target, "answer")
    elif kind == "remove_justification":
        editing.remove_justification(store, target, extra)
    elif kind == "defeat":
        from engine.memory import defeat

        defeat.defeat(store, target, extra, "over-generalizes", "too broad")
    elif kind == "mark_duplicate":
        from engine.memory import duplicates

        duplicates.mark_duplicate(store, target, extra)
    elif kind == "convert":
        editing.convert_to_premise(store, target)
    elif kind == "set_metadata":
        editing.set_metadata(store, target, extra[0], extra[1])
    elif kind == "merge":
        if target == extra[0]:
            raise InvalidInput("a belief is not its own duplicate")
        store.write(lambda tx: merge_in(tx, target, extra[0], run_id="history-test",
                                        round_n=1, at=tms.now()),
                    ChangeEntry("dedup-merge", {"merged": target}))
    elif kind == "merge_undo":
        undo(store, target)
    elif kind == "import_agent":
        network, stored = _agent_network(extra)
        import_agent(store, target, network, stored)
    elif kind == "import":  # a file joining beliefs already here (created, then propagated)
        from engine import interchange

        first, second = f"{target}-a", f"{target}-b"
        beliefs = {first: Belief(first, "Imported premise."),
                   second: Belief(second, "Imported, from ours.",
                                  (Justification((first, extra[0])),))}
        stored = {first: Truth.OUT if extra[1] else Truth.IN, second: Truth.IN}
        interchange.import_network(store, Network(beliefs, [], {}, {}, [], []), stored)
    elif kind == "accept":
        args = ({"id": extra, "reason": "proposed"} if target == "retract" else
                {"id": extra} if target == "assert" else
                {"id": extra, "justifications": [{"antecedents": [IDS[0]], "outlist": []}]})
        proposed = lifecycle.propose(store, target, args, "property test")
        lifecycle.accept(store, proposed.proposal.id)
    elif kind == "derive":
        _derive(store, target, extra)


def _derive(store, bid: str, antecedents: tuple[str, str]) -> None:
    from engine.derive.run import DeriveOptions, derive
    from tests.derive_fakes import (
        RecordingModelForRound,
        ScriptedChatModel,
        alphabetical,
        block,
        reply,
    )

    chat = ScriptedChatModel(script=[reply(block(bid, sorted(set(antecedents))))])
    derive(store, RecordingModelForRound(chat), alphabetical(),
           DeriveOptions(model="scripted", max_rounds=1))


def _kept_going(store) -> tuple[list[str], list[str], list[str]]:
    beliefs = store.read(lambda tx: tx.read_network()).beliefs
    existing = sorted(b for b in beliefs if b in IDS or b.startswith("d"))
    challenges = sorted(b for b in beliefs if b.startswith("challenge:"))
    merged = sorted(b for b, x in beliefs.items()
                    if x.retract_reason.startswith("duplicate of"))
    return existing, challenges, merged


def _marks(store) -> dict[str, list[str]]:
    """Each belief's labels (the marker labels a challenge or a defeater carries, and the
    truth labels)."""
    return store.read(lambda tx: {r["id"]: sorted(r["labels"]) for r in tx._tx.run(
        "MATCH (b:Belief) RETURN b.id AS id, labels(b) AS labels")})


def _targeted_reads_agree(store, point: str) -> None:
    """show / explain as of a point read one belief's upstream then; they agree with the
    whole network rebuilt."""
    from engine.memory.as_of import AsOfStore
    from engine.tms import explain

    targeted, whole = AsOfStore(store, point), AsOfStore(store, point, keep=True)
    for bid in whole.view().read_network().beliefs:
        b, dependents = tms.show(targeted, bid)
        b2, dependents2 = tms.show(whole, bid)
        assert (b, sorted(dependents)) == (b2, sorted(dependents2)), f"show {bid} as of {point}"
        assert explain.explain(targeted, bid) == explain.explain(whole, bid)


@settings(max_examples=EXAMPLES, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate),
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_as_of_and_rollback_give_back_the_export_taken_then(store, data):
    tms.reset(store)
    taken = {_last_seq(store): _export(store)}
    existing: list[str] = []
    challenges: list[str] = []
    merged: list[str] = []
    agents = 0
    for _ in range(data.draw(st.integers(4, 14), label="writes")):
        op = data.draw(write(existing, challenges, merged, agents), label="op")
        try:
            _apply(store, op)
        except (InvalidInput, NotFound):
            event(f"refused {op[0]}")
            continue
        event(f"applied {op[0]}")
        agents += op[0] in ("import_agent", "import")
        taken[_last_seq(store)] = _export(store)
        existing, challenges, merged = _kept_going(store)
    assert tms.verify(store) == []
    points = sorted(taken)
    for point in data.draw(st.lists(st.sampled_from(points), min_size=1, max_size=3,
                                    unique=True), label="as-of points"):
        from adapters.formats import dump_network

        assert dump_network(history.network_as_of(store, str(point))) == taken[point], (
            f"export --as-of {point} differs from the export taken then")
    _targeted_reads_agree(store, str(data.draw(st.sampled_from(points), label="read point")))
    point = data.draw(st.sampled_from(points), label="rollback point")
    before, seq_before, marks = _export(store), _last_seq(store), _marks(store)
    history.rollback(store, str(point), "property test")
    assert _export(store) == taken[point], f"rollback --to {point}"
    assert tms.verify(store) == []
    history.rollback(store, str(seq_before), "the rollback rolled back")
    assert _export(store) == before, "rolling back the rollback did not restore the present"
    assert _marks(store) == marks, "a marker label (Challenge, Defeater, ...) was not restored"
    assert tms.verify(store) == []
