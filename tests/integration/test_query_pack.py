"""Every query of the pack on the real server, on the known network of tests/query_network.py
(built once for the module), checked row by row; and the queries that restate an engine
operation (trace, explain, what-if) checked against that operation on every belief."""
from __future__ import annotations

import pytest

from adapters.query_pack import load_pack
from engine import tms
from engine.errors import NotFound, StoreError
from engine.reading import queries, viz
from engine.tms import explain as explaining
from engine.tms.semantics import is_valid
from tests import query_network
from tests.conftest import empty_graph

pytestmark = pytest.mark.neo4j

BELIEFS = ["a1", "bug", "c1", "c2", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "e1", "e2", "g1",
           "gone", "h1", "m1", "p1", "p2", "p3", "p4", "r1", "r2", "r3", "r4", "u1", "u2", "u3",
           "u4"]


@pytest.fixture(scope="module")
def known(driver, neo4j_settings):
    from adapters.neo4j.store import Neo4jStore

    empty_graph(driver, neo4j_settings.database)
    store = Neo4jStore(driver, neo4j_settings.database, neo4j_settings.uri)
    store.init_schema()
    query_network.build(store)
    assert tms.verify(store) == []
    return store


def rows(store, name, **params):
    query = queries.find_query(load_pack(), name)
    return queries.json_rows(queries.run_query(store, query, params))


def pick(records, *keys):
    return [tuple(r[k] for k in keys) for r in records]


def test_the_network_is_as_documented(known):
    assert sorted(b.id for b in tms.list_beliefs(known)) == BELIEFS


# --- why_in -------------------------------------------------------------------------------
def test_why_in_walks_the_shallowest_valid_justifications_down_to_premises(known):
    got = rows(known, "why_in", id="d6")
    assert pick(got, "step", "belief", "why", "antecedents") == [
        (0, "d6", "justified", ["d2", "d3"]),
        (1, "d2", "justified", ["d1", "p3"]),
        (1, "d3", "justified", ["p4"]),  # not its deeper justification through d2
        (2, "d1", "justified", ["p1", "p2"]),
        (2, "p3", "premise", []),
        (2, "p4", "premise", []),
        (3, "p1", "premise", []),
        (3, "p2", "premise", []),
    ]
    assert pick(got[:3], "depth", "seq") == [(3, 0), (2, 0), (1, 1)]


def test_why_in_stops_at_asserted_beliefs_and_shows_open_gates(known):
    assert pick(rows(known, "why_in", id="d7"), "belief", "why") == [
        ("d7", "justified"), ("a1", "asserted")]
    (d5, p1) = rows(known, "why_in", id="d5")
    assert (d5["belief"], d5["antecedents"], d5["unless"]) == ("d5", ["p1"], ["gone"])
    assert (p1["belief"], p1["why"]) == ("p1", "premise")
    # a cycle with a way out: c1 rests on c2, and c2 on p2, not back on c1
    assert pick(rows(known, "why_in", id="c1"), "belief", "antecedents") == [
        ("c1", ["c2"]), ("c2", ["p2"]), ("p2", [])]


@pytest.mark.parametrize("bid, truth, why", [
    ("d4", "OUT", "not IN"), ("gone", "OUT", "retracted"), ("u4", "UNDETERMINED", "not IN")])
def test_why_in_of_a_belief_that_is_not_in_is_one_row(known, bid, truth, why):
    assert pick(rows(known, "why_in", id=bid), "belief", "truth", "why") == [(bid, truth, why)]


def _support_tree(beliefs, root):
    """The query's definition, in Python: from an IN belief, every valid justification whose
    antecedents are all shallower than it, down to premises and asserted beliefs."""
    truth = {i: b.truth for i, b in beliefs.items()}
    tree, stack = set(), [root]
    while stack:
        bid = stack.pop()
        b = beliefs[bid]
        if b.asserted:
            tree.add((bid, "asserted", ()))
            continue
        if b.is_premise:
            tree.add((bid, "premise", ()))
            continue
        for j in b.justifications:
            if is_valid(j, truth) and all(beliefs[a].depth < b.depth for a in j.antecedents):
                tree.add((bid, "justified", j.antecedents))
                stack.extend(j.antecedents)
    return tree


def _explained(step, out):
    if step.why == "justified":
        (j,) = step.justifications
        out.add((step.id, "justified", tuple(a.id for a in j.antecedents)))
        for a in j.antecedents:
            _explained(a, out)
    elif step.why in ("premise", "asserted"):
        out.add((step.id, step.why, ()))
    return out


@pytest.mark.parametrize("bid", BELIEFS)
def test_why_in_is_its_definition_and_contains_explain(known, bid):
    """Explain picks one shallowest justification where there are ties (r3 has two); the
    query shows each of them."""
    step = explaining.explain(known, bid)
    got = {(r["belief"], r["why"], tuple(r["antecedents"])) for r in rows(known, "why_in", id=bid)}
    if step.truth != "IN":
        assert len(got) == 1 and next(iter(got))[1] in ("not IN", "retracted")
        return
    assert got == _support_tree(known.read(lambda tx: tx.upstream([bid])), bid)
    assert _explained(step, set()) <= got


def test_why_in_of_an_unknown_id_has_no_rows(known):
    assert rows(known, "why_in", id="nobody") == []


# --- premises -----------------------------------------------------------------------------
def test_premises_lists_premises_asserted_beliefs_and_missing_ids(known):
    assert pick(rows(known, "premises", id="d6"), "premise", "kind") == [
        ("p1", "premise"), ("p2", "premise"), ("p3", "premise"), ("p4", "premise")]
    assert pick(rows(known, "premises", id="m1"), "premise", "truth", "kind") == [
        ("ghost", "MISSING", "missing"), ("p1", "IN", "premise")]
    assert pick(rows(known, "premises", id="d7"), "premise", "kind") == [("a1", "asserted")]


@pytest.mark.parametrize("bid", BELIEFS)
def test_premises_agrees_with_trace(known, bid):
    expected = [(e.id, e.truth, e.kind) for e in explaining.trace(known, bid)]
    assert pick(rows(known, "premises", id=bid), "premise", "truth", "kind") == expected


# --- out_if_retracted ---------------------------------------------------------------------------
def test_out_if_retracted_a_premise(known):
    got = rows(known, "out_if_retracted", id="p1")
    assert pick(got, "belief", "effect", "because") == [
        ("p1", "retracted", []),
        ("d1", "OUT", ["p1"]),
        ("d2", "OUT", ["d1"]),
        ("d5", "OUT", ["p1"]),
        ("d6", "OUT", ["d2"]),
        ("r1", "OUT", ["p1"]),
        ("r4", "OUT", ["d1"]),
        ("g1", "may go IN", ["p1"]),
    ]
    # d3 keeps its other derivation (through p4); m1 was OUT already. The what-if also
    # follows the opened gate: g1 comes IN and so closes h1's outlist.
    change = tms.what_if(known, "retract", "p1")
    assert change.went_in == ["g1"]
    assert set(change.went_out) == {r["belief"] for r in got if r["effect"] != "may go IN"} | {"h1"}


def test_out_if_retracted_ignores_circular_support(known):
    got = rows(known, "out_if_retracted", id="p2")
    assert pick(got, "belief", "effect") == [
        ("p2", "retracted"), ("c1", "OUT"), ("c2", "OUT"), ("d1", "OUT"), ("d2", "OUT"),
        ("d6", "OUT"), ("r4", "OUT")]


@pytest.mark.parametrize("bid", BELIEFS)
def test_out_if_retracted_agrees_with_what_if_when_no_gate_opens(known, bid):
    got = rows(known, "out_if_retracted", id=bid)
    change = tms.what_if(known, "retract", bid)
    if any(r["effect"] == "may go IN" for r in got):  # see test_when_gates_open
        assert {r["belief"] for r in got if r["effect"] != "may go IN"} <= set(change.went_out)
        return
    assert change.went_in == []
    assert sorted(r["belief"] for r in got) == sorted(change.went_out)


@pytest.mark.parametrize("bid, opens, went_in, retracted_by_nogood", [
    ("p1", ["g1"], ["g1"], []),
    ("e1", ["e2"], ["e2"], []),  # an undetermined belief retracted is OUT for certain
    ("u3", ["u1"], ["u1", "u4"], []),  # the what-if follows u1 to u4; the query stops at u1
    # d4 would come IN and complete the nogood ng-gate (d4, p1): the what-if resolves it
    ("bug", ["d4", "r2"], ["r2"], ["p2"]),
])
def test_when_gates_open(known, bid, opens, went_in, retracted_by_nogood):
    got = rows(known, "out_if_retracted", id=bid)
    assert sorted(r["belief"] for r in got if r["effect"] == "may go IN") == opens
    change = tms.what_if(known, "retract", bid)
    assert (change.went_in, change.retracted_by_nogood) == (went_in, retracted_by_nogood)


def test_out_if_retracted_writes_nothing(known):
    rows(known, "out_if_retracted", id="p1")
    assert tms.verify(known) == []
    assert tms.show(known, "p1")[0].retracted is False


# --- the other queries ----------------------------------------------------------------------------
def test_gated(known):
    assert pick(rows(known, "gated"), "belief", "truth", "antecedents", "unless", "gate",
                "closed_by") == [
        ("d4", "OUT", ["d1"], ["bug"], "closed", ["bug"]),
        ("d5", "IN", ["p1"], ["gone"], "open", []),
        ("e1", "UNDETERMINED", [], ["e2"], "undetermined", []),
        ("e2", "UNDETERMINED", [], ["e1"], "undetermined", []),
        ("g1", "OUT", ["p3"], ["p1"], "closed", ["p1"]),
        ("h1", "IN", ["p4"], ["g1"], "open", []),
        ("r2", "OUT", ["p3", "p4"], ["bug"], "closed", ["bug"]),
        ("u1", "UNDETERMINED", [], ["u3"], "undetermined", []),
        ("u2", "UNDETERMINED", [], ["u1"], "undetermined", []),
        ("u3", "UNDETERMINED", [], ["u2"], "undetermined", []),
    ]


def test_by_depth(known):
    assert pick(rows(known, "by_depth", min_depth=2), "depth", "belief", "truth") == [
        (3, "d6", "IN"), (2, "c1", "IN"), (2, "d2", "IN"), (2, "d4", "OUT"),
        (2, "r4", "IN"), (2, "u4", "UNDETERMINED")]
    everything = rows(known, "by_depth", min_depth=0)
    assert len(everything) == len(BELIEFS)  # every belief here has a finite depth
    assert [r["depth"] for r in everything] == sorted((r["depth"] for r in everything),
                                                       reverse=True)


def test_undetermined_names_the_loops(known):
    assert pick(rows(known, "undetermined"), "belief", "why", "loop", "rests_on") == [
        ("e1", "on an even loop", ["e1", "e2", "e1"], []),
        ("e2", "on an even loop", ["e2", "e1", "e2"], []),
        ("u1", "on an odd loop", ["u1", "u3", "u2", "u1"], []),
        ("u2", "on an odd loop", ["u2", "u1", "u3", "u2"], []),
        ("u3", "on an odd loop", ["u3", "u2", "u1", "u3"], []),
        ("u4", "rests on a loop", [], ["u1", "u2", "u3"]),
    ]


def test_nogoods(known):
    (row,) = rows(known, "nogoods")
    assert (row["nogood"], row["members"], row["violated"]) == (
        "ng-gate", ["d4 (OUT)", "p1 (IN)"], False)
    assert row["discovered"]


def test_proposed_by_gives_the_run_and_the_round(known):
    (row,) = rows(known, "proposed_by", id="r3")
    assert row == {"run": "run-a", "model": "scripted", "started_at": "2025-01-01T00:00:00+00:00",
                   "round": 2, "strategy": "intra-cluster", "cluster": 3,
                   "prompt_sha256": query_network.SHA[2], "tokens_in": 200, "tokens_out": 30,
                   "seconds": 1.5, "kind": "DERIVE", "mode": "ANY", "label": "either"}
    assert pick(rows(known, "proposed_by", id="r2"), "run", "round", "cluster", "kind") == [
        ("run-a", 1, None, "GATE")]
    assert rows(known, "proposed_by", id="d1") == []  # added by the user


def test_run_added_lists_every_round_including_dry_ones(known):
    assert pick(rows(known, "run_added", run_id="run-a"), "round", "strategy", "cluster",
                "prompt_sha256", "belief", "kind", "mode", "truth") == [
        (1, "alphabetical", None, query_network.SHA[1], "r1", "DERIVE", "ALL", "IN"),
        (1, "alphabetical", None, query_network.SHA[1], "r2", "GATE", "ALL", "OUT"),
        (2, "intra-cluster", 3, query_network.SHA[2], "r3", "DERIVE", "ANY", "IN"),
        (3, "intra-cluster", 1, query_network.SHA[3], None, None, None, None),
    ]
    assert rows(known, "run_added", run_id="no-such-run") == []


def test_derive_runs(known):
    assert pick(rows(known, "derive_runs"), "run", "model", "rounds", "added", "still_in",
                "tokens_in", "tokens_out") == [
        ("run-b", "scripted-2", 1, 1, 1, 10, 2), ("run-a", "scripted", 3, 3, 2, 350, 55)]


def test_stage_runs(known):
    assert pick(rows(known, "stage_runs"), "run", "stage", "model", "rounds", "tokens_in",
                "tokens_out") == [
        ("run-b", "derive", "scripted-2", 1, 10, 2), ("run-a", "derive", "scripted", 3, 350, 55)]


def _edges(got):
    return sorted((r["belief"], r["edge"]["type"], r["node"]["properties"]["id"]) for r in got)


def test_neighbourhood_one_step(known):
    got = rows(known, "neighbourhood", id="d2", steps=1)
    assert _edges(got) == sorted([
        ("d2", "SUPPORTS", "d2"), ("d2", "REQUIRES", "d1"), ("d2", "REQUIRES", "p3"),
        ("d3", "SUPPORTS", "d3"), ("d3", "REQUIRES", "d2"),
        ("d6", "SUPPORTS", "d6"), ("d6", "REQUIRES", "d2"), ("d6", "REQUIRES", "d3"),
    ])
    assert all(r["justification"]["labels"] == ["Justification"] for r in got)


def test_neighbourhood_two_steps(known):
    ids = {r["node"]["properties"]["id"] for r in rows(known, "neighbourhood", id="d2", steps=2)}
    # upstream d1 and then p1, p2; downstream d3, d6 (d3's other justification, through p4,
    # neither supports d2 nor rests on it, so it is not drawn)
    assert ids == {"d1", "d2", "d3", "d6", "p1", "p2", "p3"}


def test_viz_gathers_the_neighbourhood(known):
    found = viz.neighbourhood(known, "d2", 1)
    assert found.ids() == ["d1", "d2", "d3", "d6", "p3"]
    assert found.count("Justification") == 3
    assert len(found.edges) == 8
    assert all(e.source in found.nodes and e.target in found.nodes for e in found.edges.values())
    with pytest.raises(NotFound):
        viz.neighbourhood(known, "nobody", 1)


def test_an_unknown_pack_name_is_not_run(known):
    with pytest.raises(NotFound):
        known.read(lambda tx: tx.run_pack_query("all_beliefs", {}))


def test_a_missing_parameter_is_a_store_error(known):
    with pytest.raises(StoreError, match="ParameterMissing|Expected parameter"):
        known.read(lambda tx: tx.run_pack_query("why_in", {}))


# --- a premise's gate is not its support ----------------------------------------------------
def test_a_gated_premise_is_still_a_premise_to_the_pack_and_to_blockers(store):
    """A challenge gives a premise an outlist-only justification; defended, the premise is IN
    again and still a premise: why_in, premises and blockers must treat it as one."""
    from engine.memory import dialectic
    from engine.reading import blockers

    tms.add(store, "p", "A premise.")
    tms.add(store, "d", "Derived from p.", tms.make_justifications(["p"]))
    dialectic.challenge(store, "p", "is it?")
    dialectic.defend(store, "challenge:p", "it is")
    assert tms.show(store, "d")[0].truth.value == "IN"
    assert pick(rows(store, "why_in", id="d"), "belief", "why") == [("d", "justified"),
                                                                  ("p", "premise")]
    assert pick(rows(store, "premises", id="d"), "premise", "kind") == [("p", "premise")]
    assert pick(rows(store, "premises", id="d"), "premise", "kind") == [
        (e.id, e.kind) for e in explaining.trace(store, "d")]
    tms.retract(store, "p", "wrong after all")
    found = blockers.find_blockers(store).as_dict()
    assert [r["id"] for r in found["retracted_premises"]] == ["p"]
