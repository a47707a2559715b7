"""Going back through the MCP server, with the SDK's own client against the real Neo4j: the
belief resources and a subscriber told of a change another process made, the read tools'
as_of, and a server pinned to a release (reads as of it, writes refused with one line)."""
from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from mcp import Client  # noqa: E402

from engine.memory import history  # noqa: E402
from tests.integration.test_mcp_server import (  # noqa: E402
    ROOT,
    build,
    call,
    error,
    run,
    server_env,
    stdio,
)

pytestmark = pytest.mark.neo4j


async def engine(env, *args: str) -> None:
    """A command in another process (another writer), to its end."""
    await asyncio.to_thread(subprocess.run, [sys.executable, "-m", "engine", *args],
                            cwd=ROOT, env=env, check=True, capture_output=True)


def test_a_subscriber_is_told_when_another_process_changes_the_belief(store, neo4j_settings):
    build(store)
    env = server_env(neo4j_settings)

    async def go():
        async with Client(stdio(env)) as client:
            templates = [str(t.uri_template) for t in
                         (await client.list_resource_templates()).resource_templates]
            shown = json.loads((await client.read_resource("eem://belief/a")).contents[0].text)
            async with client.listen(resource_subscriptions=["eem://belief/a",
                                                             "eem://belief/q"]) as sub:
                # the server's watch is live once it tells of a change to q made after the
                # subscription: make one until it does (bounded), whatever a start costs
                deadline = time.monotonic() + 120
                while True:
                    await engine(env, "set-metadata", "q", "ping", "1")
                    try:
                        ping = await asyncio.wait_for(sub.__anext__(), timeout=5)
                        break
                    except asyncio.TimeoutError:
                        assert time.monotonic() < deadline, "no notification in 2 minutes"
                assert str(ping.uri) == "eem://belief/q"
                await engine(env, "retract", "p")
                committed = time.monotonic()
                event = await asyncio.wait_for(sub.__anext__(), timeout=20)
                while str(event.uri) == "eem://belief/q":  # a ping told of late
                    event = await asyncio.wait_for(sub.__anext__(), timeout=20)
                return templates, shown, event, time.monotonic() - committed

    templates, shown, event, seconds = run(go())
    assert "eem://belief/{id}" in templates
    assert shown["id"] == "a" and shown["truth"] == "IN"
    assert event.uri == "eem://belief/a"  # a went OUT with p: a change touched it
    print(f"notified {seconds:.3f} s after the other process committed")


def test_read_tools_take_as_of(store, neo4j_settings):
    build(store)
    history.make_release(store, "v1")
    from engine import tms

    tms.retract(store, "p", "later")

    async def go():
        async with Client(stdio(server_env(neo4j_settings))) as client:
            then = await call(client, "show", id="a", as_of="v1")
            now = await call(client, "show", id="a")
            status = await call(client, "status", as_of="v1")
            listed = await call(client, "list_beliefs", truth="in", as_of="v1")
            bad = await error(client, "show", id="a", as_of="nope")
            return then, now, status, listed, bad

    then, now, status, listed, bad = run(go())
    assert then["truth"] == "IN" and now["truth"] == "OUT"
    assert status["in"] == 4 and listed["total"] == 4
    assert bad.startswith("Error: point 'nope' is not a seq")


def test_a_server_pinned_to_a_release_reads_it_and_refuses_writes(store, neo4j_settings):
    build(store)
    history.make_release(store, "v1", note="stable")
    from engine import tms

    tms.retract(store, "p", "after the release")
    params = stdio(server_env(neo4j_settings))
    params.args += ["--release", "v1"]

    async def go():
        async with Client(params) as client:
            shown = await call(client, "show", id="a")
            status = await call(client, "status")
            refused = await error(client, "retract", id="q", reason="x")
            proposed = await error(client, "propose_retract", id="q", reason="x")
            return shown, status, refused, proposed

    shown, status, refused, proposed = run(go())
    assert shown["truth"] == "IN" and status["in"] == 4
    assert refused.startswith("Error: this memory is read as of release v1")
    assert "takes no writes" in refused and proposed == refused
    assert tms.show(store, "q")[0].retracted is False


def test_an_unknown_release_is_refused_before_the_server_starts(store, neo4j_settings):
    result = subprocess.run([sys.executable, "-m", "engine.mcp", "--release", "nope"],
                            cwd=ROOT, env=server_env(neo4j_settings), capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 2
    assert result.stderr.strip() == ("Error: no release named 'nope' (`releases` lists them)")
