"""Roles on the MCP server, through the SDK's own client over streamable HTTP with three
named tokens (read, propose, write) made by `python -m engine.mcp token add`: each is listed
the tools its role reaches, a call above it is a tool error naming the role and writes
nothing, the token's name is the change log's actor, and a missing, wrong or revoked token
is refused. Over stdio, `--role` sets the client's role."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from mcp import Client, MCPError  # noqa: E402

from engine import tms  # noqa: E402
from engine.change_records import LogQuery  # noqa: E402
from engine.mcp import tokens as token_file  # noqa: E402
from engine.mcp.roles import TOOL_ROLES, allows, role_of  # noqa: E402
from engine.memory import changelog  # noqa: E402
from tests.integration.test_mcp_server import (  # noqa: E402
    ROOT,
    SERVED,
    _free_port,
    build,
    call,
    error,
    http_client,
    labels,
    run,
    server_env,
    stdio,
)

pytestmark = pytest.mark.neo4j

DEFAULT_TOKEN = "default-token-7d21"


def tools_of(role: str) -> set[str]:
    return {name for name, has in TOOL_ROLES.items() if has == role}


def token_cli(home, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "EEM_"))}
    env.update(EEM_HOME=os.environ["EEM_HOME"], EEM_SERVE="0")  # the session's, no engine
    env.update(NEO4J_LOCAL_HOME=str(home), PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "engine.mcp", "token", *args], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=60)


def add_token(home, name: str, role: str, visible_to: frozenset[str] | None = None) -> str:
    return token_file.add_token(home / token_file.TOKENS_FILE, name, role, visible_to)[1]


def start_server(neo4j_settings, home, *args: str):
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "EEM_"))}
    env.update(EEM_HOME=os.environ["EEM_HOME"], EEM_SERVE="0")  # the session's, no engine
    env.update(server_env(neo4j_settings, EEM_MCP_TOKEN=DEFAULT_TOKEN,
                          NEO4J_LOCAL_HOME=str(home)))
    process = subprocess.Popen([sys.executable, "-m", "engine.mcp", "--http", "--port",
                                str(port), *args], cwd=ROOT, env=env,
                               stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            assert process.poll() is None, process.stderr.read()
            time.sleep(0.2)
    process.kill()
    pytest.fail("the MCP HTTP server did not start")


@pytest.fixture
def three_tokens(store, neo4j_settings, tmp_path):
    made = {role: add_token(tmp_path, f"{role}-agent", role)
            for role in ("read", "propose", "write")}
    process, url = start_server(neo4j_settings, tmp_path)
    yield url, made, tmp_path
    process.terminate()
    process.wait(timeout=20)


def test_the_role_table_denies_by_default():
    assert role_of("a_tool_added_tomorrow") == "write"
    assert not allows("propose", "a_tool_added_tomorrow")
    assert allows("propose", "propose_retract") and not allows("read", "propose_retract")
    assert not allows("propose", "accept_proposal") and allows("write", "reject_proposal")
    assert not allows("nobody", "status")


@pytest.mark.slow
def test_the_token_file_is_private_and_prints_the_token_once(tmp_path):
    done = token_cli(tmp_path, "add", "ci", "--role", "read", "--visible-to", "hr,eng")
    assert done.returncode == 0
    token = done.stdout.strip().splitlines()[-1]
    path = tmp_path / "mcp-tokens.json"
    assert path.stat().st_mode & 0o777 == 0o600
    assert token not in path.read_text()  # only its digest is kept
    listed = token_cli(tmp_path, "list").stdout
    assert "ci\tread\teng,hr" in listed and token not in listed
    assert token_cli(tmp_path, "add", "ci", "--role", "read").returncode == 2
    bad = token_cli(tmp_path, "add", "x", "--role", "admin")
    assert bad.returncode == 2 and bad.stderr.startswith("Error: role takes read")
    assert token_cli(tmp_path, "revoke", "ci").returncode == 0
    missing = token_cli(tmp_path, "revoke", "ci")
    assert missing.returncode == 2 and missing.stderr.strip() == (
        "Error: no MCP token with id 'ci'")


@pytest.mark.slow
def test_each_role_sees_and_calls_only_its_tools(three_tokens, store):
    url, tokens, _ = three_tokens
    build(store)
    before = labels(store), len(changelog.log(store, LogQuery(limit=50)))

    async def as_role(role: str):
        http, client = http_client(url, tokens[role])
        async with http, client:
            names = {t.name for t in (await client.list_tools()).tools}
            shown = await call(client, "show", id="a")
            refused = {tool: await error(client, tool, **arguments) for tool, arguments in (
                ("retract", {"id": "p", "reason": "stale"}),
                ("add", {"id": "new", "text": "new"}),
                ("set_metadata", {"id": "p", "key": "k", "value": 1}))
                if not allows(role, tool)}
            return names, shown, refused

    async def all_roles():
        return {role: await as_role(role) for role in tokens}

    seen = run(all_roles())
    assert seen["read"][0] == SERVED & tools_of("read")
    assert seen["propose"][0] == SERVED & (tools_of("read") | tools_of("propose"))
    assert seen["write"][0] == SERVED
    for role in tokens:
        assert seen[role][1]["truth"] == "IN"
    assert seen["read"][2]["retract"] == (
        "Error: tool 'retract' needs the write role; token 'read-agent' has the read role")
    assert set(seen["read"][2]) == set(seen["propose"][2]) == {"retract", "add",
                                                               "set_metadata"}
    assert "propose role" in seen["propose"][2]["add"]
    assert seen["write"][2] == {}
    assert (labels(store), len(changelog.log(store, LogQuery(limit=50)))) == before


@pytest.mark.slow
def test_a_writers_token_name_is_the_changes_actor(three_tokens, store):
    url, tokens, _ = three_tokens
    build(store)

    async def go():
        http, client = http_client(url, tokens["write"])
        async with http, client:
            return await call(client, "retract", id="p", reason="stale")

    assert run(go())["went_out"] == ["a", "b", "p"]
    entry = changelog.log(store, LogQuery(limit=1))[0]
    assert entry.actor.startswith("mcp:") and entry.actor.endswith("@write-agent")


@pytest.mark.slow
def test_missing_wrong_and_revoked_tokens_are_refused(three_tokens, store):
    import httpx2

    url, tokens, home = three_tokens
    build(store)
    body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    for headers in ({}, {"Authorization": "Bearer not-a-token"},
                    {"Authorization": tokens["read"]}):  # no scheme
        assert httpx2.post(url, json=body, headers=headers, timeout=10).status_code == 401

    statuses: list[int] = []

    async def revoked_between_calls():
        http, client = http_client(url, tokens["propose"], statuses)
        async with http, client:
            first = await call(client, "status")
            token_file.revoke_token(home / token_file.TOKENS_FILE, "propose-agent")
            answered = len(statuses)
            with pytest.raises(MCPError, match="Server returned an error response"):
                await client.call_tool("status", {})
            return first, answered

    first, answered = run(revoked_between_calls())
    assert first["beliefs"] == 4
    assert 401 not in statuses[:answered] and statuses[answered:] == [401]
    answer = httpx2.post(url, json=body, timeout=10,
                         headers={"Authorization": f"Bearer {tokens['propose']}"})
    assert answer.status_code == 401

    async def others_still_served():
        http, client = http_client(url, tokens["read"])
        async with http, client:
            return await call(client, "status")

    assert run(others_still_served())["beliefs"] == 4


@pytest.mark.slow
def test_the_default_token_keeps_the_write_role(three_tokens, store):
    url, _, _ = three_tokens

    async def go():
        http, client = http_client(url, DEFAULT_TOKEN)
        async with http, client:
            names = {t.name for t in (await client.list_tools()).tools}
            return names, await call(client, "add", id="d", text="by the default token")

    names, added = run(go())
    assert names == SERVED and added["went_in"] == ["d"]
    entry = changelog.log(store, LogQuery(limit=1))[0]
    assert "@" not in entry.actor  # no name: the server's default actor, as before


@pytest.mark.slow
def test_stdio_serves_the_role_of_the_flag(store, neo4j_settings):
    params = stdio(server_env(neo4j_settings))
    params.args += ["--role", "read"]

    async def go():
        async with Client(params) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            return names, await error(client, "add", id="x", text="x")

    names, refused = run(go())
    assert names == SERVED & tools_of("read")
    assert refused == ("Error: tool 'add' needs the write role; this server has the read "
                       "role")
    assert tms.list_beliefs(store) == []


# --- visibility sets -----------------------------------------------------------------------
HIDDEN_FROM_PLAIN = {"hr-doc": "salaries rose four percent", "layoff": "layoffs are planned",
                     "raise": "staff got a raise", "hr-memo": "bonuses are frozen"}
FILTERED = {"show", "explain", "trace", "list_beliefs", "search", "blockers", "compact",
            "context_for"}


def tagged_network(store) -> None:
    J = tms.make_justifications
    tms.add(store, "hr-doc", HIDDEN_FROM_PLAIN["hr-doc"], metadata={"access_tags": ["hr"]})
    tms.add(store, "layoff", HIDDEN_FROM_PLAIN["layoff"],
            metadata={"access_tags": ["finance"]})
    tms.add(store, "news", "the company did well")
    tms.add(store, "raise", HIDDEN_FROM_PLAIN["raise"], J(["hr-doc"]))  # OUT, still hr
    tms.add(store, "cheer", "people cheer", J(["news"], unless=["layoff"]))
    tms.add(store, "gossip", "people talk", J(["hr-doc", "news"], any_mode=True))
    tms.retract(store, "layoff", "not decided")
    tms.retract(store, "hr-doc", "embargoed")  # gossip now holds by news alone: untagged
    tms.assert_belief(store, "hr-doc")  # ... and both again: gossip is hr once more
    tms.retract(store, "hr-doc", "embargoed")
    # a gate closed by a hidden belief, and a visible retracted premise with one dependent
    tms.add(store, "hr-memo", HIDDEN_FROM_PLAIN["hr-memo"], metadata={"access_tags": ["hr"]})
    tms.add(store, "bonus", "a bonus is paid", J(["news"], unless=["hr-memo"]))
    tms.add(store, "rumour", "a rumour spreads")
    tms.add(store, "talk", "the rumour is discussed", J(["rumour"]))
    tms.retract(store, "rumour", "unfounded")


@pytest.fixture
def visibility_tokens(store, neo4j_settings, tmp_path):
    made = {"plain": add_token(tmp_path, "plain", "read", frozenset()),
            "hr": add_token(tmp_path, "hr-reader", "write", frozenset({"hr"}))}
    process, url = start_server(neo4j_settings, tmp_path)
    yield url, made
    process.terminate()
    process.wait(timeout=20)


async def everything_a_client_can_read(url: str, token: str) -> tuple[set[str], list[str]]:
    """Every tool it is offered, called on every id of the network and a few searches:
    (the tool names, each answer's text)."""
    http, client = http_client(url, token)
    answers: list[str] = []
    async with http, client:
        names = {t.name for t in (await client.list_tools()).tools}
        for bid in ("hr-doc", "layoff", "news", "raise", "cheer", "gossip", "nope"):
            for tool in ("show", "explain", "trace"):
                result = await client.call_tool(tool, {"id": bid})
                answers.append(json.dumps(result.structured_content) if not result.is_error
                               else result.content[0].text)
        for arguments in ({}, {"truth": "out"}, {"kind": "premises"}):
            answers.append(json.dumps((await call(client, "list_beliefs", **arguments))))
        for words in ("salaries percent", "layoffs planned", "staff raise", "people"):
            answers.append(json.dumps(await call(client, "search", words=words,
                                                 include_out=True)))
        for tool, arguments in (("compact", {"budget": 2000}), ("blockers", {}),
                                ("context_for", {"question": "salaries bonus layoffs people"})):
            answers.append(json.dumps(await call(client, tool, **arguments)))
        answers.append((await client.read_resource("eem://compact")).contents[0].text)
        for tool in ("query", "status", "log", "changes_since", "what_if", "verify",
                     "retract"):
            result = await client.call_tool(tool, {})
            assert result.is_error, tool
            answers.append(result.content[0].text)
        try:
            answers.append(str(await client.read_resource("eem://status")))
        except Exception as e:  # the SDK raises a resource's error
            answers.append(f"refused: {e}")
    return names, answers


@pytest.mark.slow
def test_a_visibility_set_never_receives_a_belief_it_may_not_see(visibility_tokens, store):
    url, made = visibility_tokens
    tagged_network(store)
    assert [tms.show(store, b)[0].effective_tags for b in ("cheer", "gossip", "raise")] == [
        (), (), ("hr",)]
    names, answers = run(everything_a_client_can_read(url, made["plain"]))
    assert names == FILTERED
    text = "\n".join(answers)
    for bid, belief_text in HIDDEN_FROM_PLAIN.items():
        assert f'"{bid}"' not in text and f"'{bid}'" not in text.replace(
            f"no belief with id '{bid}'", ""), bid
        assert belief_text not in text, bid
    # a hidden id answers exactly as an unknown one
    unknown = [a for a in answers if a.startswith("Error: no belief with id")]
    assert {a.split("'")[1] for a in unknown} == {"hr-doc", "layoff", "raise", "nope"}
    # what it may see names the hidden as hidden, and explain stops there
    cheer = json.loads(answers[3 * 4])  # show cheer
    assert cheer["justifications"][0]["outlist"] == ["(hidden-1)"]
    assert "(hidden-1)" in answers[3 * 4 + 1]  # explain cheer: the hidden outlist member
    assert "not be filtered" in text.replace("\n", " ") or "cannot be filtered" in text
    compact, blockers, context, resource = answers[-12:-8]
    # compact counts what the client sees: news cheer gossip IN; bonus rumour talk OUT
    summary = json.loads(compact)["text"]
    assert summary.startswith("# Memory: 6 beliefs (3 IN, 3 OUT), 0 nogoods")
    assert resource.startswith("# Memory: 6 beliefs (3 IN, 3 OUT)")
    assert "bonus" in summary and "closed by (hidden-" in summary
    # blockers: the gate's hidden closer is a stub; only the visible retracted premise
    found = json.loads(blockers)
    assert [g["closers"] for g in found["blockers"]] == [["(hidden-1)"]]
    assert [(r["id"], r["resting"]) for r in found["retracted_premises"]] == [("rumour", 1)]
    assert "people" in context
    assert answers[-1].startswith("refused")  # eem://status counts everything: refused


@pytest.mark.slow
def test_a_wider_set_sees_its_tags_and_writes_nothing(visibility_tokens, store):
    url, made = visibility_tokens
    tagged_network(store)
    names, answers = run(everything_a_client_can_read(url, made["hr"]))
    text = "\n".join(answers)
    assert HIDDEN_FROM_PLAIN["hr-doc"] in text and HIDDEN_FROM_PLAIN["raise"] in text
    assert HIDDEN_FROM_PLAIN["layoff"] not in text
    assert "retract" not in names  # a write role, but writes cannot be filtered
    assert tms.show(store, "news")[0].truth.value == "IN"


def test_a_proposer_proposes_and_only_a_writer_accepts(three_tokens, store):
    url, tokens, _ = three_tokens
    build(store)

    async def go():
        http, client = http_client(url, tokens["propose"])
        async with http, client:
            proposed = await call(client, "propose_retract", id="p", reason="stale")
            refused = await error(client, "accept_proposal", id=proposed["id"])
        http, client = http_client(url, tokens["write"])
        async with http, client:
            accepted = await call(client, "accept_proposal", id=proposed["id"])
        return proposed, refused, accepted

    proposed, refused, accepted = run(go())
    assert proposed["status"] == "pending"
    assert refused == ("Error: tool 'accept_proposal' needs the write role; token "
                       "'propose-agent' has the propose role")
    assert "p" in accepted["went_out"]
