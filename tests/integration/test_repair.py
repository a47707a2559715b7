"""`verify --repair`: a graph whose labels were edited by hand (or written by another tool)
gets the from-scratch labels and depths back in one transaction; verify alone writes nothing."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.in_process import eem

from engine import tms
from engine.model import Truth

pytestmark = pytest.mark.neo4j

ROOT = Path(__file__).resolve().parents[2]
J = tms.make_justifications


@pytest.fixture
def network(store):
    tms.add(store, "p", "a premise")
    tms.add(store, "q", "another premise")
    tms.add(store, "a", "from p and q", J(["p", "q"]))
    tms.add(store, "b", "from a", J(["a"]))
    tms.add(store, "g", "p unless q", J(["p"], unless=["q"]))
    tms.add(store, "x", "unless y", J([], unless=["y"]))
    tms.add(store, "y", "unless x", J([], unless=["x"]))
    assert tms.verify(store) == []
    return store


def hand_edit(driver, database: str, statement: str) -> None:
    """What a user might type in Neo4j Browser."""
    with driver.session(database=database) as session:
        session.run(statement).consume()


EDITS = {
    "in-to-out": "MATCH (b:Belief {id: 'a'}) REMOVE b:In SET b:Out",
    "out-to-in": "MATCH (b:Belief {id: 'g'}) REMOVE b:Out SET b:In",
    "both-labels": "MATCH (b:Belief {id: 'b'}) SET b:Out",
    "no-label": "MATCH (b:Belief {id: 'p'}) REMOVE b:In",
    "depth": "MATCH (b:Belief {id: 'b'}) SET b.depth = 7",
    "no-depth": "MATCH (b:Belief {id: 'a'}) REMOVE b.depth",
    "undetermined-decided": "MATCH (b:Belief {id: 'x'}) REMOVE b:Out:Undetermined SET b:In",
}


def state(store):
    return {b.id: (b.truth, b.depth) for b in tms.list_beliefs(store)}


def test_repair_restores_every_kind_of_hand_edit(network, driver, neo4j_settings):
    good = state(network)
    for statement in EDITS.values():
        hand_edit(driver, neo4j_settings.database, statement)
    found = {p.id for p in tms.verify(network)}
    assert found == {"a", "b", "g", "p", "x"}
    assert {p.id for p in tms.verify(network)} == found  # verify alone wrote nothing
    result = tms.repair(network)
    assert {p.id for p in result.repaired} == found
    assert tms.verify(network) == []
    assert state(network) == good
    assert result.change.went_in == ["a", "p"]  # p had no truth label at all
    assert result.change.went_out == ["g", "x"]
    assert tms.repair(network).repaired == []


def test_repair_resolves_a_nogood_the_repair_made_hold(network, driver, neo4j_settings):
    tms.retract(network, "q")
    tms.add_nogood(network, ["p", "g"], "ng-pg")  # retracts p: g goes OUT
    assert truths(network, ["p", "g"]) == {"p": Truth.OUT, "g": Truth.OUT}
    # a hand edit un-retracts p without propagating
    hand_edit(driver, neo4j_settings.database,
              "MATCH (b:Belief {id: 'p'}) SET b.retracted = false, b.retracted_at = ''")
    result = tms.repair(network)
    assert result.change.retracted_by_nogood
    assert tms.verify(network) == []
    assert not all(t == Truth.IN for t in truths(network, ["p", "g"]).values())


def truths(store, ids):
    return {i: b.truth for i, b in tms.show_many(store, ids).items()}


def _engine(args, neo4j_settings) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    env.update(NEO4J_URI=neo4j_settings.uri, NEO4J_USER=neo4j_settings.user,
               NEO4J_PASSWORD=neo4j_settings.password or "",
               NEO4J_DATABASE=neo4j_settings.database, PYTHONIOENCODING="utf-8")
    return eem(args, env)


def test_cli_verify_then_repair(network, driver, neo4j_settings):
    hand_edit(driver, neo4j_settings.database, EDITS["in-to-out"])
    hand_edit(driver, neo4j_settings.database, EDITS["depth"])
    checked = _engine(["verify"], neo4j_settings)
    assert checked.returncode == 1 and "a" in checked.stdout
    assert _engine(["verify"], neo4j_settings).returncode == 1  # still there: read-only

    repaired = _engine(["verify", "--repair"], neo4j_settings)
    assert repaired.returncode == 0, repaired.stderr
    assert "repaired 2 beliefs in one transaction" in repaired.stdout
    assert "depth 7" in repaired.stdout

    assert _engine(["verify"], neo4j_settings).returncode == 0
    again = _engine(["verify", "--repair", "--json"], neo4j_settings)
    assert again.returncode == 0
    assert json.loads(again.stdout) == {"repaired": [], "went_in": [], "went_out": [],
                                        "retracted_by_nogood": []}


def test_cli_repair_json_lists_what_changed(network, driver, neo4j_settings):
    hand_edit(driver, neo4j_settings.database, EDITS["out-to-in"])
    done = _engine(["verify", "--repair", "--json"], neo4j_settings)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["repaired"] == [{"id": "g", "stored": "IN", "computed": "OUT"}]
    assert (report["went_in"], report["went_out"]) == ([], ["g"])
