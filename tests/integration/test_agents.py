"""Other agents' memories on the real Neo4j: import-agent of the two real networks side by
side, the switch, sync-agent, --dry-run, nogoods against the imported side, and
contradictions --between."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from adapters.formats import parse_network, read_network_file
from engine import interchange, tms
from engine.agents import import_agent as agents
from engine.agents import sync_agent as agent_sync
from engine.contradictions.stage import ContradictionOptions, ContradictionsStage, PairSource
from engine.errors import InvalidInput
from engine.model import Truth
from engine.stages.run import RunOptions, run_stage
from tests.derive_fakes import RecordingModelForRound, ScriptedChatModel

pytestmark = pytest.mark.neo4j

REAL = {"dia": "data-intensive-applications-eem.json", "sd": "system-design-eem.json"}


def node(text: str, *antecedents: str, unless: tuple[str, ...] = (), truth: str = "IN",
         **fields) -> dict:
    justifications = ([{"type": "SL", "antecedents": list(antecedents), "outlist": list(unless),
                        "label": ""}] if antecedents or unless else [])
    return {"text": text, "truth_value": truth, "justifications": justifications, **fields}


def agent_file(**changes) -> dict:
    nodes = {
        "region": node("The service runs in one region."),
        "ops": node("Ops owns the service."),
        "failover-fast": node("Failover is instant.", "region"),
        "pager": node("Ops is paged on failover.", "ops", "failover-fast"),
        "old-claim": node("An old claim.", "ops"),
    }
    nodes.update(changes)
    return {"meta": {"project_name": "agent"}, "nodes": {k: v for k, v in nodes.items() if v},
            "nogoods": [], "repos": {}}


def load(data: dict):
    return parse_network(data)


def labels(store, ids=None) -> dict[str, Truth]:
    network = store.read(lambda tx: tx.read_network())
    return {i: b.truth for i, b in network.beliefs.items() if ids is None or i in ids}


@pytest.mark.slow
@pytest.mark.network_data
def test_the_two_real_networks_side_by_side_under_their_switches(store, shared_networks):
    for name, file in REAL.items():
        network, stored = read_network_file(shared_networks / file)
        report = agents.import_agent(store, name, network, stored, file=file)
        assert report.beliefs == len(network.beliefs)
        assert report.came_in and all(i.startswith(f"{name}:") for i in report.came_in)
    assert tms.verify(store) == []
    before = labels(store)
    listed = {r.name: r for r in agents.namespaces(store)}
    assert set(listed) == {"dia", "sd"} and all(r.active for r in listed.values())
    assert listed["sd"].in_count == sum(1 for i, t in before.items()
                                        if i.startswith("sd:") and t == Truth.IN)

    change = tms.retract(store, "dia:active", "audit")
    off = labels(store)
    assert all(t != Truth.IN for i, t in off.items() if i.startswith("dia:"))
    assert {i for i, t in off.items() if i.startswith("sd:")} == {
        i for i in before if i.startswith("sd:")}
    assert all(off[i] == before[i] for i in before if i.startswith("sd:"))
    assert set(change.went_out) == {i for i, t in before.items()
                                    if i.startswith("dia:") and t == Truth.IN}
    assert tms.verify(store) == []

    tms.assert_belief(store, "dia:active")
    assert labels(store) == before
    assert tms.verify(store) == []


def test_a_namespace_that_exists_is_refused_and_nothing_is_written(store):
    network, stored = load(agent_file())
    agents.import_agent(store, "a", network, stored)
    before = store.read(lambda tx: tx.read_network())
    with pytest.raises(InvalidInput, match="sync-agent a"):
        agents.import_agent(store, "a", network, stored)
    assert store.read(lambda tx: tx.read_network()) == before


def test_sync_adds_updates_retracts_and_keeps_our_justifications(store):
    network, stored = load(agent_file())
    agents.import_agent(store, "a", network, stored)
    tms.add(store, "ours-paged", "We rely on the agent's paging.", tms.make_justifications(
        ["a:pager"]))
    tms.add(store, "ours-region", "Our own note on the region.")
    tms.add_justification(store, "a:old-claim", tms.make_justifications(["ours-region"]))
    tms.add_justification(store, "a:pager", tms.make_justifications(["ours-region"]))
    assert labels(store, ["ours-paged"]) == {"ours-paged": Truth.IN}

    newer = agent_file(**{
        "failover-fast": node("Failover takes under a second.", "region"),  # text
        "pager": node("Ops is paged on failover.", "ops"),  # justification
        "old-claim": None,  # gone from the file
        "ops": None,
        "on-call": node("Ops has an on-call rota."),  # new
    })
    newer["nodes"]["pager"] = node("Ops is paged on failover.", "on-call")
    network, stored = load(newer)
    report = agent_sync.sync_agent(store, "a", network, stored)
    d = report.diff
    assert (d.added, d.changed, d.gone) == (["a:on-call"], ["a:failover-fast", "a:pager"],
                                            ["a:old-claim", "a:ops"])
    now = store.read(lambda tx: tx.get_beliefs(["a:failover-fast", "a:pager", "a:old-claim",
                                                 "a:ops", "ours-paged"]))
    assert now["a:failover-fast"].text == "Failover takes under a second."
    # the file's new justification, then the one we gave it
    assert [j.antecedents for j in now["a:pager"].justifications] == [
        ("a:on-call", "a:active"), ("ours-region",)]
    assert now["a:ops"].retracted and now["a:ops"].retract_reason == "gone from a"
    # a gone belief is retracted, not deleted: its justifications, ours too, are kept
    assert [j.antecedents for j in now["a:old-claim"].justifications] == [
        ("a:ops", "a:active"), ("ours-region",)]
    assert now["a:old-claim"].truth == Truth.OUT  # retracted: gone from a
    assert now["ours-paged"].justifications[0].antecedents == ("a:pager",)
    assert now["ours-paged"].truth == Truth.IN
    assert tms.verify(store) == []

    again = agent_sync.sync_agent(store, "a", network, stored)
    assert again.diff.is_empty()
    back = agent_file()  # the first file again: what was gone comes back
    network, stored = load(back)
    restored = agent_sync.sync_agent(store, "a", network, stored)
    assert restored.diff.restored == ["a:old-claim", "a:ops"]
    assert restored.diff.gone == ["a:on-call"]
    assert labels(store, ["a:old-claim", "a:ops"]) == {"a:old-claim": Truth.IN,
                                                       "a:ops": Truth.IN}
    assert tms.verify(store) == []


def test_sync_keeps_a_retraction_of_ours(store):
    network, stored = load(agent_file())
    agents.import_agent(store, "a", network, stored)
    tms.retract(store, "a:ops", "we know better")
    network, stored = load(agent_file(**{"ops": node("Ops owns the service, always.")}))
    report = agent_sync.sync_agent(store, "a", network, stored)
    assert report.diff.changed == ["a:ops"] and report.diff.restored == []
    (ops,) = store.read(lambda tx: tx.get_beliefs(["a:ops"])).values()
    assert ops.retracted and ops.retract_reason == "we know better"
    assert ops.text == "Ops owns the service, always."


def test_a_dry_run_prints_the_diff_and_writes_nothing(store):
    network, stored = load(agent_file())
    agents.import_agent(store, "a", network, stored)
    before = interchange.export_network(store)
    log_before = store.read(lambda tx: tx.seq_before(None))
    network, stored = load(agent_file(**{"ops": None, "new": node("New.")}))
    report = agent_sync.sync_agent(store, "a", network, stored, dry_run=True)
    assert (report.diff.added, report.diff.gone) == (["a:new"], ["a:ops"])
    assert "a:pager" in report.change.went_out  # what the sync would take OUT
    assert interchange.export_network(store) == before
    assert store.read(lambda tx: tx.seq_before(None)) == log_before


def test_a_nogood_is_resolved_against_the_imported_side(store):
    data = agent_file()
    data["nodes"]["region"]["metadata"] = {"beliefs_type": "observation"}
    network, stored = load(data)
    agents.import_agent(store, "a", network, stored)
    tms.add(store, "two-regions", "The service runs in two regions.")
    change = tms.add_nogood(store, ["a:region", "two-regions"], "ng-regions")
    assert change.retracted_by_nogood == ["a:region"]
    assert labels(store, ["two-regions", "a:active", "a:failover-fast"]) == {
        "two-regions": Truth.IN, "a:active": Truth.IN, "a:failover-fast": Truth.OUT}
    assert tms.verify(store) == []


def test_the_agents_own_nogoods_are_enforced(store):
    data = agent_file()
    data["nogoods"] = [{"id": "ng-ops", "nodes": ["ops", "failover-fast"]}]
    network, stored = load(data)
    report = agents.import_agent(store, "a", network, stored)
    assert len(report.retracted_by_nogood) == 1
    assert tms.verify(store) == []


def test_contradictions_between_pairs_only_across_namespaces(store):
    network, stored = load(agent_file())
    agents.import_agent(store, "a", network, stored)
    tms.add(store, "failover-slow", "Failover takes an hour.",
            tms.make_justifications(["a:region"]))
    everything = ContradictionOptions()
    all_pairs, _ = PairSource(None, everything).open_pairs(store)
    assert any(a.startswith("a:") and b.startswith("a:") for a, b, _ in all_pairs)

    between = ContradictionOptions(between=("a",))
    stage = ContradictionsStage(between, PairSource(None, between))
    chat = ScriptedChatModel(script=[json.dumps({"pairs": [{"pair": 1,
                                                            "verdict": "CONTRADICTION"}]})])
    result = run_stage(store, stage, RecordingModelForRound(chat),
                       RunOptions(model="scripted", auto=True, max_rounds=1))
    prompt = chat.received[0][-1].content
    assert "`a:failover-fast`" in prompt and "`failover-slow`" in prompt
    assert "## Pair 2" not in prompt  # the one pair across; none inside the namespace
    assert result.report.totals is not None
    (nogood,) = store.read(lambda tx: tx.nogoods())
    assert set(nogood.members) == {"a:failover-fast", "failover-slow"}
    # the culprit is the agent's premise under both, not ours and not the switch
    assert labels(store, ["a:region", "a:active"]) == {"a:region": Truth.OUT,
                                                       "a:active": Truth.IN}
    assert tms.verify(store) == []


def test_between_a_namespace_that_does_not_exist_is_refused(store):
    options = ContradictionOptions(between=("nobody",))
    with pytest.raises(InvalidInput, match="no namespace 'nobody'"):
        PairSource(None, options).open_pairs(store)


def test_namespace_filters_and_export(store, tmp_path: Path):
    network, stored = load(agent_file())
    agents.import_agent(store, "a", network, stored)
    tms.add(store, "ours", "Ours.")
    part = agents.network_of(interchange.export_network(store), "a")
    assert "ours" not in part.beliefs and "a:active" in part.beliefs
    assert len(part.beliefs) == 6
    with pytest.raises(InvalidInput, match="no namespace 'b'"):
        agents.check_namespace(store, "b")


def test_sync_deletes_nogoods_gone_from_the_file_and_recreates_changed_ones(store):
    data = agent_file()
    data["nogoods"] = [{"id": "ng-gone", "nodes": ["region", "old-claim"]},
                       {"id": "ng-moved", "nodes": ["ops", "failover-fast"]}]
    network, stored = load(data)
    agents.import_agent(store, "a", network, stored)
    tms.add(store, "mine", "We run in two regions.")
    tms.add_nogood(store, ["mine", "a:region"], "ng-mine")  # ours: a sync never touches it
    data = agent_file()
    data["nogoods"] = [{"id": "ng-moved", "nodes": ["ops", "pager"]},
                       {"id": "ng-new", "nodes": ["region", "pager"]}]
    network, stored = load(data)
    report = agent_sync.sync_agent(store, "a", network, stored)
    d = report.diff
    assert (d.nogoods_added, d.nogoods_changed, d.nogoods_removed) == (
        ["a:ng-new"], ["a:ng-moved"], ["a:ng-gone"])
    members = {n.id: n.members for n in store.read(lambda tx: tx.nogoods())}
    assert members == {"a:ng-moved": ("a:ops", "a:pager"), "a:ng-new": ("a:region", "a:pager"),
                       "ng-mine": ("mine", "a:region")}
    assert tms.verify(store) == []
    again = agent_sync.sync_agent(store, "a", network, stored)  # the same file: no change
    assert (again.diff.nogoods_added, again.diff.nogoods_changed,
            again.diff.nogoods_removed) == ([], [], [])
