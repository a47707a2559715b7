"""Property: after random sequences of every kind of write (tests/history_writes.py: the daily
verbs, tags and metadata, agents and imports, `import --sync`, sources and forge, each stage's
round, proposals accepted, rejected and withdrawn, revert, rollback, release, `log --prune`),
for 3-6 random earlier points P, `export --as-of P` equals the export taken at P byte for byte
(an export that carries each belief's truth, depth and effective access tags); one of them
is rolled back to, which gives that export back, and rolling the rollback back restores the
present; the last change is reverted, which gives back the export before it. A refused write
writes nothing (no log entry, the same export). Verify stays clean throughout.
HISTORY_PROPERTY_EXAMPLES sets how many examples (50 by default)."""
from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, Phase, currently_in_test_context, given, settings
from hypothesis import event as hypothesis_event
from hypothesis import strategies as st

from adapters.formats import network_to_json
from engine import tms
from engine.errors import InvalidInput, NotFound
from engine.memory import changelog, history
from engine.tms.records import Network
from tests.conftest import empty_graph
from tests.history_writes import World, draw_write, every_kind_of_write

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]

EXAMPLES = int(os.environ.get("HISTORY_PROPERTY_EXAMPLES", "50"))
MIN_APPLIED_SHARE = 1 / 3  # as tests/tms_edits.py: an example that applies too little fails


def export(network: Network) -> str:
    """The network as `export` writes it, with what it leaves out: each belief's truth
    (UNDETERMINED apart from OUT), depth and effective access tags."""
    data = network_to_json(network)
    for bid, node in data["nodes"].items():
        b = network.beliefs[bid]
        node["truth"] = b.truth.value if b.truth else None
        node["depth"] = b.depth
        node["effective_tags"] = list(b.effective_tags)
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False)


def differences(got: str, expected: str) -> list[str]:
    """Where two exports differ: the sections, and the nodes by id (for the failure)."""
    a, b = json.loads(got), json.loads(expected)
    out = [f"{key}: {a.get(key)!r} != {b.get(key)!r}" for key in sorted(set(a) | set(b))
           if key != "nodes" and a.get(key) != b.get(key)]
    nodes_a, nodes_b = a.get("nodes", {}), b.get("nodes", {})
    out += [f"node {bid}: {nodes_a.get(bid)!r} != {nodes_b.get(bid)!r}"
            for bid in sorted(set(nodes_a) | set(nodes_b)) if nodes_a.get(bid) != nodes_b.get(bid)]
    return out


def event(what: str) -> None:
    if currently_in_test_context():  # the property's statistics; the scripted test has none
        hypothesis_event(what)


def now(store) -> tuple[int, Network]:
    return store.read(lambda tx: (tx.last_seq(), tx.read_network()))


def marks(store) -> dict[str, list[str]]:
    """Each belief's graph labels (the marker labels a challenge or a defeater carries, and
    the truth labels)."""
    return store.read(lambda tx: {r["id"]: sorted(r["labels"]) for r in tx._tx.run(
        "MATCH (b:Belief) RETURN b.id AS id, labels(b) AS labels")})


def targeted_reads_agree(store, point: str, ids=None) -> None:
    """show / explain as of a point read one belief's upstream then; they agree with the
    whole network rebuilt (for `ids`, else every belief then)."""
    from engine.memory.as_of import AsOfStore
    from engine.tms import explain

    targeted, whole = AsOfStore(store, point), AsOfStore(store, point, keep=True)
    then = sorted(whole.view().read_network().beliefs)
    for bid in then if ids is None else [then[k % len(then)] for k in ids] if then else []:
        b, dependents = tms.show(targeted, bid)
        b2, dependents2 = tms.show(whole, bid)
        assert (b, sorted(dependents)) == (b2, sorted(dependents2)), f"show {bid} as of {point}"
        assert explain.explain(targeted, bid) == explain.explain(whole, bid)


def start_of_history(store) -> int:
    return store.read(lambda tx: tx.history_start())


def apply_and_take(store, world: World, op: tuple, seq: int, taken: dict[int, str]
                   ) -> tuple[int, Network | None]:
    """Apply `op`; record the export at the seq it leaves. A refused write (None returned)
    must have written nothing; one with nothing to do neither."""
    try:
        world.apply(op)
    except (InvalidInput, NotFound, history.RevertConflict) as refused:
        after_seq, after = now(store)
        assert (after_seq, export(after)) == (seq, taken[seq]), (
            f"refused {op} ({refused}) but wrote something")
        event(f"refused {op[0]}: {type(refused).__name__}")
        return seq, None
    event(f"applied {op[0]}")
    after_seq, network = now(store)
    if after_seq == seq:  # nothing to do (a stage with nothing due): nothing written
        assert export(network) == taken[seq], f"{op} changed the graph without a log entry"
        event(f"{op[0]} had nothing to do")
    taken[after_seq] = export(network)
    return after_seq, network


def as_of_gives_back(store, taken: dict[int, str], points, seq: int) -> None:
    for point in points:
        got = export(history.network_as_of(store, str(point)))
        assert got == taken[point], (
            f"export --as-of {point} differs from the export taken then (seq now {seq}): "
            f"{differences(got, taken[point])}")


def rollback_revert_release_prune(store, world: World, taken: dict[int, str], seq: int,
                                  point: int, chosen: list[int], prune_at: int) -> None:
    """Roll back to `point` and back again, revert that last rollback, name `point` in a
    release, and `log --prune` before entry `prune_at` (an index): the points it cut are
    refused by name, the rest read as before."""
    before, marked = taken[seq], marks(store)
    history.rollback(store, str(point), "property test")
    assert export(now(store)[1]) == taken[point], f"rollback --to {point}"
    assert tms.verify(store) == []
    history.rollback(store, str(seq), "the rollback rolled back")
    seq, network = now(store)
    assert export(network) == before, "rolling back the rollback did not restore the present"
    assert marks(store) == marked, "a marker label (Challenge, Defeater, ...) was not restored"
    taken[seq] = before
    # the rollback of the rollback is the last change: reverting it gives the state before it
    history.revert(store, seq, "property test")
    seq, network = now(store)
    assert export(network) == taken[point], f"revert {seq}"
    assert tms.verify(store) == []
    taken[seq] = taken[point]

    release = history.make_release(store, "kept", str(point))
    assert export(history.network_as_of(store, "kept")) == taken[point]
    entries = world.entries()
    cut = entries[prune_at % len(entries)]
    pruned = changelog.prune(store, cut.at)
    start = start_of_history(store)
    assert pruned == sum(1 for e in entries if e.at < cut.at)
    for gone in (p for p in taken if p < start):
        with pytest.raises(InvalidInput, match="before history begins"):
            history.network_as_of(store, str(gone))
    as_of_gives_back(store, taken, [p for p in chosen + [release.seq] if p >= start], seq)
    if release.seq >= start:
        assert export(history.network_as_of(store, "kept")) == taken[point]


def fresh_world(store, driver, neo4j_settings, tmp_path_factory) -> World:
    """Each example from an empty graph and a folder of its own (pytest's, so it is cleared
    as pytest clears its own), as the fixture gives the first: what one example left (stage
    records, proposals, releases, seqs, files) never changes what the next draws."""
    empty_graph(driver, neo4j_settings.database)
    store.init_schema()
    return World(store, tmp_path_factory.mktemp("world"))


@settings(max_examples=EXAMPLES, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate),
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(data=st.data())
def test_as_of_and_rollback_give_back_the_export_taken_then(store, driver, neo4j_settings, data,
                                                            tmp_path_factory):
    world = fresh_world(store, driver, neo4j_settings, tmp_path_factory)
    seq, network = now(store)
    taken = {seq: export(network)}
    wanted = data.draw(st.integers(3, 10), label="writes")
    applied = drawn = 0
    while applied < wanted and drawn < wanted / MIN_APPLIED_SHARE:
        world.points = sorted(taken)
        op = data.draw(draw_write(world, network), label="write")
        drawn += 1
        seq, changed = apply_and_take(store, world, op, seq, taken)
        if changed is not None:
            applied += 1
            network = changed
    assert applied == wanted, (
        f"{drawn} writes drawn, {applied} applied: fewer than {MIN_APPLIED_SHARE:.0%}")
    assert tms.verify(store) == []

    points = sorted(taken)
    chosen = data.draw(st.lists(st.sampled_from(points), min_size=min(3, len(points)),
                                max_size=6, unique=True), label="as-of points")
    as_of_gives_back(store, taken, chosen, seq)
    targeted_reads_agree(store, str(data.draw(st.sampled_from(chosen), label="read point")),
                         data.draw(st.lists(st.integers(0, 50), min_size=1, max_size=4),
                                   label="beliefs read"))
    rollback_revert_release_prune(
        store, world, taken, seq, data.draw(st.sampled_from(chosen), label="rollback point"),
        chosen, data.draw(st.integers(0, 40), label="prune before"))


def test_every_kind_of_write_in_one_history(store, driver, neo4j_settings, tmp_path_factory):
    """The property draws its writes at random; here each kind is applied once at least, in
    an order that gives each what it needs, and every point is read back."""
    world = fresh_world(store, driver, neo4j_settings, tmp_path_factory)
    seq, network = now(store)
    taken = {seq: export(network)}
    for op in every_kind_of_write():
        world.points = sorted(taken)
        if op[0] in ("revert", "rollback", "release"):
            op = (op[0], world.entries()[-2].seq if op[0] == "revert" else world.points[-3],
                  None)
        was = seq
        seq, changed = apply_and_take(store, world, op, seq, taken)
        if op[0] != "edit_source":  # the file changes, not the memory: refused by design
            assert changed is not None and seq > was, f"{op} was refused or wrote nothing"
    assert tms.verify(store) == []
    as_of_gives_back(store, taken, sorted(taken), seq)
    points = sorted(taken)
    targeted_reads_agree(store, str(points[-1]))
    rollback_revert_release_prune(store, world, taken, seq, points[len(points) // 2],
                                  points, len(points) // 3)
