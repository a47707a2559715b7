"""The defeat tool (issue 38) through the MCP SDK's client against the real Neo4j: a typed
defeater, one with scope beliefs, defend undoing it, and bad input answered as the CLI does."""
from __future__ import annotations

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from mcp import Client  # noqa: E402

from engine import tms  # noqa: E402
from engine.change_records import LogQuery  # noqa: E402
from engine.memory import changelog  # noqa: E402
from tests.integration.test_mcp_server import (  # noqa: E402
    _cli_error,
    call,
    error,
    labels,
    run,
    server_env,
    stdio,
)

pytestmark = pytest.mark.neo4j


def test_defeat_and_defend_through_mcp(store, neo4j_settings):
    for bid in ("p", "q"):
        tms.add(store, bid, f"premise {bid}")
    tms.add(store, "b", "from p and q", tms.make_justifications(["p", "q"]))

    async def go():
        async with Client(stdio(server_env(neo4j_settings))) as client:
            out = {"defeat": await call(client, "defeat", id="b", justification=1,
                                        type="over-generalizes", reason="p and q are narrow")}
            out["defend"] = await call(client, "defend", id="defeat:b:j1", reason="they are not")
            out["scoped"] = await call(client, "defeat", id="b", justification=1,
                                       reason="b claims speed", defeater_id="b-slow",
                                       scopes={"p": "p shows caching, not speed"})
            out["bad_type"] = await error(client, "defeat", id="b", justification=1,
                                          type="wrong", reason="x")
            out["bad_reason_type"] = await error(client, "defeat", id="b", justification=1,
                                                 reason="x", reason_type="vibes")
            out["typed"] = await call(client, "defeat", id="b", justification=1, reason="no",
                                      defeater_id="b-bridge", reason_type="missing-bridge")
            out["premise"] = await error(client, "defeat", id="p", justification=1, reason="x")
            return out

    out = run(go())
    assert out["defeat"] == {"id": "defeat:b:j1", "target": "b", "justification": 1,
                             "type": "over-generalizes", "reason_type": "", "scopes": [],
                             "went_in": ["defeat:b:j1"], "went_out": ["b"]}
    assert out["defend"]["went_in"] == ["b", "defence:defeat:b:j1"]
    assert (out["scoped"]["id"], out["scoped"]["scopes"]) == ("b-slow", ["scope:b:j1:p"])
    assert labels(store)["b"] == "OUT"
    assert out["bad_type"].startswith("Error: --type takes invalid-inference")
    assert out["bad_reason_type"].startswith("Error: --reason-type takes unsupported-conjunct")
    assert out["typed"]["reason_type"] == "missing-bridge"
    assert tms.show(store, "b-bridge")[0].metadata["defeat_reason_type"] == "missing-bridge"
    assert out["premise"] == _cli_error(["defeat", "p", "--justification", "1", "--reason", "x"],
                                        neo4j_settings)
    entries = changelog.log(store, LogQuery(op="defeat"))
    assert len(entries) == 3 and all(e.actor.startswith("mcp:") for e in entries)
