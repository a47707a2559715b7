"""The proposal tools of `python -m engine.mcp` through the SDK's own client, over stdio
against the real Neo4j: an agent proposes (the network does not change), the proposer is the
calling client, a second client accepts or rejects; bad input is the CLI's error line."""
from __future__ import annotations

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from mcp import Client, types  # noqa: E402

from engine import tms  # noqa: E402
from engine.mcp.tools import TOOLS  # noqa: E402
from tests.integration.test_mcp_server import (  # noqa: E402
    _cli_error,
    build,
    call,
    error,
    labels,
    run,
    server_env,
    stdio,
)

pytestmark = pytest.mark.neo4j


def client(neo4j_settings, name: str) -> Client:
    return Client(stdio(server_env(neo4j_settings)),
                  client_info=types.Implementation(name=name, version="1"))


def test_an_agent_proposes_and_a_reviewer_decides(store, neo4j_settings):
    build(store)
    before = labels(store)

    async def go():
        out = {}
        async with client(neo4j_settings, "agent") as agent, \
                client(neo4j_settings, "reviewer") as reviewer:
            tools = {t.name: t for t in (await agent.list_tools()).tools}
            out["tools"] = tools
            out["retract"] = await call(agent, "propose_retract", id="p", reason="stale")
            out["labels_after_propose"] = labels(store)
            out["add"] = await call(agent, "propose_add", id="c", text="from b",
                                    antecedents=["b"], reason="follows from b")
            out["justify"] = await call(agent, "propose_add_justification", id="a",
                                        antecedents=["q"], reason="q also says so")
            out["supersede"] = await call(agent, "propose_supersede", old="q",
                                          text="Another premise, reworded.", reason="clearer")
            out["challenge"] = await call(agent, "propose_challenge", id="b",
                                          reason="measured cold")
            out["assert"] = await call(agent, "propose_assert", id="b", reason="holds anyway")
            out["pending"] = await call(reviewer, "list_proposals", pending=True)
            out["show"] = await call(reviewer, "show_proposal", id=out["retract"]["id"])
            out["not_yours"] = await error(reviewer, "withdraw_proposal",
                                           id=out["add"]["id"])
            out["accept"] = await call(reviewer, "accept_proposal", id=out["retract"]["id"])
            out["again"] = await error(reviewer, "accept_proposal", id=out["retract"]["id"])
            out["reject"] = await call(reviewer, "reject_proposal", id=out["add"]["id"],
                                       reason="not yet")
            out["withdraw"] = await call(agent, "withdraw_proposal", id=out["justify"]["id"])
            out["unknown"] = await error(reviewer, "accept_proposal", id="prop-99")
            out["all"] = await call(reviewer, "list_proposals")
        return out

    out = run(go())
    tools = out["tools"]
    proposal_tools = [spec.name for spec in TOOLS if "propos" in spec.name]
    assert set(proposal_tools) <= set(tools)
    for name in proposal_tools:
        assert "Example: " + name + "(" in " ".join(tools[name].description.split()), name
    assert tools["list_proposals"].annotations.read_only_hint is True
    assert tools["accept_proposal"].annotations.read_only_hint is False
    assert "reason" in tools["propose_retract"].input_schema["required"]

    assert out["labels_after_propose"] == before
    retract = out["retract"]
    assert (retract["status"], retract["proposer"]) == ("pending", "mcp:agent")
    assert retract["impact"]["went_out"] == ["a", "b", "p"]
    assert out["challenge"]["superseded"] == [] and out["assert"]["superseded"] == [
        out["challenge"]["id"]]  # the same target: the newer one supersedes
    assert [p["id"] for p in out["pending"]["proposals"]] == [
        out[k]["id"] for k in ("retract", "add", "justify", "supersede", "assert")]
    assert out["show"]["fresh_impact"]["went_out"] == ["a", "b", "p"]
    assert "only its proposer (mcp:agent)" in out["not_yours"]
    assert out["accept"]["accepted_by"] == "mcp:reviewer"
    assert out["accept"]["went_out"] == ["a", "b", "p"]
    assert "is accepted by mcp:reviewer, not pending" in out["again"]
    assert (out["reject"]["status"], out["reject"]["decided_by"]) == ("rejected", "mcp:reviewer")
    assert out["withdraw"]["status"] == "withdrawn"
    assert out["unknown"] == _cli_error(["accept", "prop-99"], neo4j_settings)
    assert {b.id: b.truth.value for b in tms.list_beliefs(store)} == {
        "p": "OUT", "q": "IN", "a": "OUT", "b": "OUT"}
    statuses = {p["id"]: p["status"] for p in out["all"]["proposals"]}
    assert statuses[out["challenge"]["id"]] == "superseded"
    assert statuses[out["supersede"]["id"]] == "pending"


def test_a_refused_proposal_is_the_clis_error_line_and_writes_nothing(store, neo4j_settings):
    build(store)
    before = labels(store)

    async def go():
        async with client(neo4j_settings, "agent") as agent:
            return {"retract": await error(agent, "propose_retract", id="nope", reason="x"),
                    "no_reason": await error(agent, "propose_assert", id="p", reason=" "),
                    "listed": await call(agent, "list_proposals")}

    out = run(go())
    assert out["retract"] == "Error: no belief with id 'nope'"
    assert out["no_reason"] == "Error: a proposal needs --reason: why"
    assert out["listed"] == {"proposals": []}
    assert labels(store) == before
