"""Proposals on the command line: propose with the verb's own arguments, proposals /
proposal / accept / reject / withdraw, the actor from EEM_ACTOR, exit codes (2 bad input,
1 drift refused), and two processes accepting one proposal at once."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.cli.test_tms_cli import ROOT, assert_one_error_line, env  # noqa: F401  (fixture)
from tests.in_process import eem

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]  # a process per command


def engine(env, *args: str, actor: str = "alice", code: int = 0  # noqa: F811
           ) -> subprocess.CompletedProcess:
    result = eem(args, {**env, "EEM_ACTOR": actor})
    assert result.returncode == code, (args, result.stdout, result.stderr)
    return result


def engine_json(env, *args: str, actor: str = "alice"):  # noqa: F811
    return json.loads(engine(env, *args, "--json", actor=actor).stdout)


def network(env) -> None:  # noqa: F811
    for line in (["add", "p", "A premise."], ["add", "q", "Another."],
                 ["add", "a", "From p.", "--sl", "p"]):
        engine(env, *line)


def test_propose_then_accept_with_each_verbs_own_arguments(store, env):  # noqa: F811
    network(env)
    out = engine(env, "propose", "add", "b", "From a unless q.", "--sl", "a", "--unless",
                 "q", "--reason", "seen in the logs").stdout
    assert out.startswith("prop-1  [pending]  add b")
    assert "proposed by alice" in out and "no label would change" in out
    assert "nothing changed in the network; accept with: python -m engine accept prop-1" in out
    assert "b" not in {r["id"] for r in engine_json(env, "list")["beliefs"]}
    proposed = engine_json(env, "propose", "supersede", "p", "--text", "A premise, reworded.",
                           "--reason", "clearer")
    assert proposed["args"]["text"] == "A premise, reworded." and proposed["target"] == "p"
    listed = engine(env, "proposals", "--pending").stdout
    assert "prop-1" in listed and "prop-2" in listed and "supersede" in listed
    shown = engine(env, "proposal", "prop-2").stdout
    assert "impact now (what-if, nothing written):" in shown
    assert "changed since proposed: nothing" in shown

    accepted = engine(env, "accept", "prop-2", actor="bob").stdout
    assert accepted.startswith("prop-2 accepted by bob: supersede p")
    assert "IN  p-v2" in accepted and "OUT p" in accepted
    [entry] = engine_json(env, "log", "--op", "supersede")["entries"]
    assert (entry["actor"], entry["args"]["proposal"], entry["args"]["proposer"]) == (
        "bob", "prop-2", "alice")
    assert engine_json(env, "proposal", "prop-2")["change_seq"] == entry["seq"]


def test_drift_is_refused_with_exit_1_and_force_applies(store, env):  # noqa: F811
    network(env)
    engine(env, "propose", "retract", "a", "--reason", "doubt")
    engine(env, "retract", "p", "--reason", "meanwhile")
    refused = engine(env, "accept", "prop-1", actor="bob", code=1)
    [line] = refused.stderr.strip().splitlines()
    assert line == ("Error: proposal 'prop-1' is out of date: target 'a' was IN, is OUT now "
                    "(`python -m engine accept prop-1 --force` applies it anyway)")
    assert engine_json(env, "proposal", "prop-1")["status"] == "pending"
    forced = engine(env, "accept", "prop-1", "--force", actor="bob").stdout
    assert "forced past: target 'a' was IN, is OUT now" in forced
    assert engine_json(env, "proposal", "prop-1")["forced"] is True


def test_reject_and_withdraw(store, env):  # noqa: F811
    network(env)
    engine(env, "propose", "assert", "a", "--reason", "holds")
    engine(env, "propose", "challenge", "p", "--reason", "measured cold")
    assert engine(env, "reject", "prop-1", "--reason", "no", actor="bob").stdout == (
        "prop-1 rejected by bob\n")
    assert_one_error_line(engine(env, "withdraw", "prop-2", actor="bob", code=2),
                          "only its proposer (alice)")
    assert engine(env, "withdraw", "prop-2").stdout == "prop-2 withdrawn by alice\n"
    assert engine(env, "proposals", "--pending").stdout == "no proposals pending\n"


@pytest.mark.parametrize("args, fragment", [
    (["accept", "prop-7"], "no proposal with id 'prop-7'"),
    (["proposal", "prop-7"], "no proposal with id 'prop-7'"),
    (["propose", "retract", "nope", "--reason", "x"], "no belief with id 'nope'"),
    (["propose", "retract", "a"], "needs --reason"),
    (["propose", "supersede", "a", "--undo", "--reason", "x"], "no --undo"),
    (["reject", "prop-1", "--reason", " "], "reject needs --reason"),
])
def test_bad_input_is_one_error_line_exit_2_and_writes_nothing(store, env, args,  # noqa: F811
                                                              fragment):
    network(env)
    engine(env, "propose", "retract", "p", "--reason", "stale")
    before = engine(env, "log", "--limit", "1").stdout
    assert_one_error_line(engine(env, *args, code=2), fragment)
    assert engine(env, "log", "--limit", "1").stdout == before


def test_accepting_a_rejected_proposal_is_exit_2_and_writes_nothing(store, env):  # noqa: F811
    network(env)
    engine(env, "propose", "retract", "p", "--reason", "stale")
    engine(env, "reject", "prop-1", "--reason", "p holds")
    before = engine(env, "log", "--limit", "1").stdout
    assert_one_error_line(engine(env, "accept", "prop-1", code=2),
                          "proposal 'prop-1' is rejected by alice, not pending")
    assert engine(env, "log", "--limit", "1").stdout == before
    assert [r["truth"] for r in engine_json(env, "list")["beliefs"] if r["id"] == "p"] == ["IN"]


def test_two_processes_accepting_one_proposal_apply_it_once(store, env):  # noqa: F811
    network(env)
    engine(env, "propose", "retract", "q", "--reason", "stale")
    runs = [subprocess.Popen([sys.executable, "-m", "engine", "accept", "prop-1"], cwd=ROOT,
                             env={**env, "EEM_ACTOR": name}, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for name in ("ann", "ben")]
    results = [(r.wait(timeout=120), r.stdout.read(), r.stderr.read()) for r in runs]
    for r in runs:
        r.stdout.close()
        r.stderr.close()
    assert sorted(code for code, _, _ in results) == [0, 2], results
    [loser] = [err for code, _, err in results if code == 2]
    assert "not pending: nothing to accept" in loser
    applied = [e for e in engine_json(env, "log", "--op", "retract")["entries"]
               if e["args"].get("proposal") == "prop-1"]
    assert len(applied) == 1


def test_a_retraction_of_a_belief_already_retracted_is_refused_saying_why(store, env):  # noqa: F811
    network(env)
    engine(env, "retract", "p", "--reason", "the premise no longer holds")
    before = engine(env, "log", "--limit", "1").stdout
    line = assert_one_error_line(engine(env, "propose", "retract", "p", "--reason", "stale",
                                        code=2),
                                 "'p' is already retracted", "the premise no longer holds",
                                 "would change nothing")
    assert line.startswith("Error: ")
    assert engine(env, "proposals").stdout == "no proposals\n"
    assert engine(env, "log", "--limit", "1").stdout == before
    engine(env, "propose", "retract", "a", "--reason", "pin it OUT")  # OUT, not retracted: pins


def test_reset_rejects_the_pending_proposals_and_keeps_the_decided(store, env):  # noqa: F811
    network(env)
    engine(env, "propose", "retract", "q", "--reason", "stale")
    engine(env, "accept", "prop-1", actor="bob")
    engine(env, "propose", "add", "b", "From a.", "--sl", "a", "--reason", "seen")
    engine(env, "propose", "challenge", "p", "--reason", "measured cold")
    out = engine(env, "reset", "--yes").stdout
    assert out == ("graph emptied\npending proposals rejected (what they named is gone): "
                   "prop-2, prop-3\n")
    assert engine(env, "proposals", "--pending").stdout == "no proposals pending\n"
    by_id = {p["id"]: p for p in engine_json(env, "proposals")["proposals"]}
    assert by_id["prop-1"]["status"] == "accepted"
    assert {by_id[i]["status"] for i in ("prop-2", "prop-3")} == {"rejected"}
    assert by_id["prop-2"]["decision_reason"] == "the graph was reset: what it named is gone"
