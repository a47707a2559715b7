"""`python -m engine.mcp` through the MCP SDK's own client against the real Neo4j: over stdio
and over streamable HTTP (with and without the bearer token), every tool called and checked,
bad input answered as the CLI answers it with nothing written, two clients at once, and a
Neo4j restart while the server runs (on a Neo4j server of the test's own)."""
from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")

from mcp import Client, MCPError  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from engine import tms  # noqa: E402
from engine.change_records import LogQuery  # noqa: E402
from engine.memory import changelog  # noqa: E402
from engine.mcp.tools import TOOLS  # noqa: E402

pytestmark = pytest.mark.neo4j

ROOT = Path(__file__).resolve().parents[2]
SERVED = {spec.name for spec in TOOLS if not spec.needs_model}  # no ask without --model
SCRIPT = ROOT / "scripts" / "neo4j"
TOKEN = "test-token-0f3c9a"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_env(settings, **extra: str) -> dict[str, str]:
    """A process of the tests' memory: its server, the session's EEM_HOME and resident
    folder, and no resident engine started (a command run with it started one under the
    default ~/.local/share/eem)."""
    env = {"NEO4J_URI": settings.uri, "NEO4J_USER": settings.user,
           "NEO4J_PASSWORD": settings.password or "", "NEO4J_DATABASE": settings.database,
           "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8",
           "EEM_HOME": os.environ["EEM_HOME"], "EEM_SERVE_DIR": os.environ["EEM_SERVE_DIR"],
           "EEM_SERVE": "0"}
    env.update(extra)
    return env


def stdio(env: dict[str, str], report_dir: Path | None = None) -> StdioServerParameters:
    args = ["-m", "engine.mcp"] + (["--report-dir", str(report_dir)] if report_dir else [])
    return StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(ROOT))


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, timeout=240))


async def call(client, tool: str, /, **arguments):
    """A tool's structured result; asserts the call succeeded."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, (tool, arguments, result.content)
    return result.structured_content


async def error(client, tool: str, /, **arguments) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error, (tool, arguments, result.structured_content)
    [content] = result.content
    return content.text


def build(store) -> None:
    tms.add(store, "p", "a premise about the cache", source="notes.md")
    tms.add(store, "q", "another premise")
    tms.add(store, "a", "from p: reads are fast", tms.make_justifications(["p"]))
    tms.add(store, "b", "from a and q", tms.make_justifications(["a", "q"]))


def labels(store) -> dict[str, str]:
    return {b.id: b.truth.value for b in tms.list_beliefs(store)}


def add_stage_run(driver, database: str, run_id: str, stage: str, started_at: str) -> None:
    with driver.session(database=database) as session:
        session.run("CREATE (:Run {id: $id, stage: $stage, model: 'local', "
                    "started_at: $at, params: $params})",
                    {"id": run_id, "stage": stage, "at": started_at,
                     "params": json.dumps({"budget": 50})}).consume()


# --- stdio ----------------------------------------------------------------------------
def test_lists_every_tool_with_a_description_for_a_model_and_the_resources(store,
                                                                            neo4j_settings):
    async def go():
        async with Client(stdio(server_env(neo4j_settings))) as client:
            tools = (await client.list_tools()).tools
            resources = (await client.list_resources()).resources
            pack = await client.read_resource("eem://query-pack")
            status = await client.read_resource("eem://status")
            return tools, resources, pack, status

    build(store)
    tools, resources, pack, status = run(go())
    by_name = {t.name: t for t in tools}
    assert set(by_name) == SERVED and "ask" not in by_name  # no ask without --model
    assert [t.name for t in tools] == [spec.name for spec in TOOLS if spec.name in SERVED]
    for tool in tools:
        assert "Example: " + tool.name + "(" in " ".join(tool.description.split()), tool.name
        assert tool.input_schema["type"] == "object"
    assert by_name["show"].input_schema["required"] == ["id"]
    assert by_name["show"].annotations.read_only_hint is True
    assert by_name["retract"].annotations.read_only_hint is False
    assert {str(r.uri) for r in resources} == {"eem://query-pack", "eem://status",
                                                "eem://compact"}
    queries = {q["name"]: q for q in json.loads(pack.contents[0].text)}
    assert "why_in" in queries and "MATCH" in queries["why_in"]["cypher"]
    assert [p["name"] for p in queries["why_in"]["params"]] == ["id"]
    assert json.loads(status.contents[0].text)["beliefs"] == 4


def test_reading_tools_and_ask_with_a_model(store, neo4j_settings, tmp_path):
    from tests.derive_fakes import SCRIPT_ENV

    reply = json.dumps({"status": "answered", "answer": "Reads are fast.",
                        "citations": [{"id": "a", "role": "supports"}], "gaps": []})
    env = server_env(neo4j_settings, **{SCRIPT_ENV: json.dumps([reply])})
    params = stdio(env, tmp_path)
    params.args += ["--model", "py:tests.derive_fakes:scripted_from_env"]

    async def go():
        async with Client(params) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            context = await call(client, "context_for", question="cache reads", budget=500)
            summary = await call(client, "compact", budget=400)
            resource = await client.read_resource("eem://compact")
            answer = await call(client, "ask", question="are cache reads fast?")
            return names, context, summary, resource, answer

    build(store)
    names, context, summary, resource, answer = run(go())
    assert "ask" in names
    assert context["tokens"] <= 500 and "p" in [e["id"] for e in context["entries"]]
    assert summary["tokens"] <= 400 and summary["text"].startswith("# Memory: 4 beliefs")
    assert resource.contents[0].text.startswith("# Memory: 4 beliefs")
    assert answer["status"] == "answered" and answer["citations"] == [
        {"id": "a", "role": "supports"}]
    assert answer["cited"][0]["text"] == "from p: reads are fast"
    assert list(tmp_path.glob("ask-*.json"))


def test_every_tool_through_stdio(store, neo4j_settings, driver, tmp_path):
    build(store)
    add_stage_run(driver, neo4j_settings.database, "run-old", "derive", "2026-01-01T00:00:00Z")
    add_stage_run(driver, neo4j_settings.database, "run-new", "review", "2026-02-01T00:00:00Z")
    (tmp_path / "derive-20260101T000000Z.json").write_text("{}")

    async def go():
        async with Client(stdio(server_env(neo4j_settings), tmp_path)) as client:
            out = {"status": await call(client, "status"),
                   "show": await call(client, "show", id="b"),
                   "explain": await call(client, "explain", id="b"),
                   "trace": await call(client, "trace", id="b"),
                   "list": await call(client, "list_beliefs", truth="in", kind="premises"),
                   "list_cut": await call(client, "list_beliefs", limit=2),
                   "search": await call(client, "search", words="cache"),
                   "query": await call(client, "query", name="premises", params={"id": "b"}),
                   "runs": await call(client, "stage_runs", limit=5),
                   "what_if": await call(client, "what_if", operation="retract", id="p")}
            out["after_what_if"] = await call(client, "status")
            out["add"] = await call(client, "add", id="c", text="from b unless x",
                                    antecedents=["b"], unless=["x"])
            out["add_j"] = await call(client, "add_justification", id="a",
                                      antecedents=["q"], label="second reason")
            out["retract"] = await call(client, "retract", id="p", reason="stale")
            out["assert"] = await call(client, "assert_belief", id="p")
            out["nogood"] = await call(client, "nogood", ids=["a", "q"], name="ng-aq")
            out["verify"] = await call(client, "verify")
            return out

    out = run(go())
    assert out["status"]["beliefs"] == 4 and out["status"]["in"] == 4
    assert out["show"]["truth"] == "IN" and out["show"]["depth"] == 2
    assert out["show"]["justifications"][0]["antecedents"] == ["a", "q"]
    assert out["explain"]["truth"] == "IN"
    assert {e["id"] for e in out["trace"]["rests_on"]} == {"p", "q"}
    assert [b["id"] for b in out["list"]["beliefs"]] == ["p", "q"]
    assert out["list_cut"] == {"beliefs": out["list_cut"]["beliefs"], "total": 4,
                               "truncated": True} and len(out["list_cut"]["beliefs"]) == 2
    [hit] = out["search"]["hits"]
    assert (hit["id"], hit["truth"], hit["depth"], hit["dependents"]) == ("p", "IN", 0, 1)
    assert out["query"]["columns"] and len(out["query"]["rows"]) == 2
    assert [r["id"] for r in out["runs"]["runs"]] == ["run-new", "run-old"]
    assert out["runs"]["runs"][0]["params"] == {"budget": 50}
    assert out["runs"]["reports"] == [{"path": str(tmp_path / "derive-20260101T000000Z.json"),
                                       "stage": "derive"}]
    assert out["what_if"] == {"went_in": [], "went_out": ["a", "b", "p"]}
    assert out["after_what_if"]["in"] == 4  # nothing written
    assert out["add"] == {"went_in": ["c"], "went_out": []}
    assert out["add_j"] == {"went_in": [], "went_out": []}
    assert out["retract"]["went_out"] == ["p"]  # a still holds by q now
    assert out["assert"]["went_in"] == ["p"]
    assert out["nogood"]["retracted_by_nogood"]
    assert out["verify"]["ok"] is True
    assert labels(store)["c"] in ("IN", "OUT")


def _cli_error(args, neo4j_settings) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    env.update(server_env(neo4j_settings))
    result = subprocess.run([sys.executable, "-m", "engine", *args], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result
    return result.stderr.strip()


def test_bad_input_is_the_clis_error_line_and_writes_nothing(store, neo4j_settings):
    build(store)
    before = labels(store)

    async def go():
        async with Client(stdio(server_env(neo4j_settings))) as client:
            return {
                "show": await error(client, "show", id="nope"),
                "retract": await error(client, "retract", id="nope"),
                "add_dup": await error(client, "add", id="p", text="again"),
                "add_bad_id": await error(client, "add", id="Bad Id", text="x"),
                "add_self": await error(client, "add", id="z", text="x", antecedents=["z"]),
                "query": await error(client, "query", name="why_in"),
                "what_if": await error(client, "what_if", operation="explode", id="p"),
                "search": await error(client, "search", words="  "),
                "missing_argument": await client.call_tool("show", {}),
            }

    out = run(go())
    assert labels(store) == before
    assert out["show"] == _cli_error(["show", "nope"], neo4j_settings)
    assert out["retract"] == _cli_error(["retract", "nope"], neo4j_settings)
    assert out["add_dup"] == _cli_error(["add", "p", "again"], neo4j_settings)
    assert out["add_bad_id"] == _cli_error(["add", "Bad Id", "x"], neo4j_settings)
    assert out["add_self"] == _cli_error(["add", "z", "x", "--sl", "z"], neo4j_settings)
    assert out["query"] == _cli_error(["query", "why_in"], neo4j_settings)
    assert out["what_if"].startswith("Error: what-if takes 'retract' or 'assert'")
    assert out["search"] == "Error: search needs at least one word"
    assert out["missing_argument"].is_error


def test_an_unknown_argument_is_refused_naming_it_and_what_the_tool_takes(store,
                                                                           neo4j_settings):
    build(store)
    before = labels(store)
    log_before = changelog.log(store, LogQuery(limit=1000))

    async def go():
        async with Client(stdio(server_env(neo4j_settings))) as client:
            tools = (await client.list_tools()).tools
            misnamed = await client.call_tool("add", {"id": "s1", "text": "t", "sl": "s1"})
            refused = {t.name: await client.call_tool(t.name, {"not_an_argument": 1})
                       for t in tools}
            two = await client.call_tool("retract", {"id": "p", "why": "x", "force": True})
            return tools, misnamed, refused, two

    tools, misnamed, refused, two = run(go())
    assert misnamed.is_error and misnamed.content[0].text == (
        "Error: tool 'add' takes no argument 'sl'; it takes id, text, antecedents, unless, "
        "any_mode, kind, label, source, source_url, quote")
    assert {t.name for t in tools} == SERVED == set(refused)
    for tool in tools:
        result = refused[tool.name]
        takes = ", ".join(tool.input_schema.get("properties", {})) or "no arguments"
        assert result.is_error, tool.name
        assert result.content[0].text == (f"Error: tool {tool.name!r} takes no argument "
                                           f"'not_an_argument'; it takes {takes}"), tool.name
    assert two.content[0].text == ("Error: tool 'retract' takes no arguments 'force', 'why'; "
                                   "it takes id, reason")
    assert labels(store) == before and "s1" not in labels(store)
    assert changelog.log(store, LogQuery(limit=1000)) == log_before  # nothing written


# --- streamable HTTP ----------------------------------------------------------------------
@pytest.fixture
def http_server(store, neo4j_settings):
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "EEM_"))}
    env.update(EEM_HOME=os.environ["EEM_HOME"], EEM_SERVE="0")  # the session's, no engine
    env.update(server_env(neo4j_settings, EEM_MCP_TOKEN=TOKEN))
    process = subprocess.Popen([sys.executable, "-m", "engine.mcp", "--http", "--port",
                                str(port)], cwd=ROOT, env=env, stderr=subprocess.PIPE,
                               text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            assert process.poll() is None, process.stderr.read()
            time.sleep(0.2)
    else:
        process.kill()
        pytest.fail("the MCP HTTP server did not start")
    yield f"http://127.0.0.1:{port}/mcp"
    process.terminate()
    process.wait(timeout=20)


def http_client(url: str, token: str | None = TOKEN, statuses: list[int] | None = None):
    """An SDK client over streamable HTTP; `statuses` collects the HTTP status of every
    response the server sends it."""
    import httpx2

    async def record(response) -> None:
        if statuses is not None:
            statuses.append(response.status_code)

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300),
                              event_hooks={"response": [record]})
    return http, Client(streamable_http_client(url, http_client=http))


def refused_by_the_server(raised: pytest.ExceptionInfo[BaseException]) -> bool:
    """The SDK client's error for an HTTP error answer, inside the task groups it runs in."""
    return raised.group_contains(MCPError, match="Server returned an error response")


def test_http_needs_the_token(http_server):
    import httpx2

    body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
        answer = httpx2.post(http_server, json=body, headers=headers, timeout=10)
        assert answer.status_code == 401, headers
        assert answer.headers["www-authenticate"].startswith("Bearer")

    statuses: list[int] = []

    async def without_token():
        http, client = http_client(http_server, token=None, statuses=statuses)
        async with http:
            async with client:
                await client.call_tool("status", {})

    with pytest.raises(ExceptionGroup) as raised:
        run(without_token())
    assert refused_by_the_server(raised)
    assert statuses and set(statuses) == {401}  # every request was refused, initialize first


def test_http_with_the_token_serves_the_tools(http_server, store):
    build(store)

    async def go():
        http, client = http_client(http_server)
        async with http, client:
            names = {t.name for t in (await client.list_tools()).tools}
            return names, await call(client, "show", id="a"), await error(client, "show",
                                                                          id="nope")

    names, shown, missing = run(go())
    assert names == SERVED
    assert shown["truth"] == "IN" and shown["dependents"] == ["b"]
    assert missing == "Error: no belief with id 'nope'"


def test_two_clients_writing_at_once_leave_a_consistent_network(http_server, store):
    tms.add(store, "root", "the root premise")

    async def writer(prefix: str, n: int):
        http, client = http_client(http_server)
        async with http, client:
            for i in range(n):
                await call(client, "add", id=f"{prefix}-{i}", text=f"{prefix} {i}",
                           antecedents=["root"] if i == 0 else [f"{prefix}-{i - 1}"])
            await call(client, "retract", id=f"{prefix}-0")
            await call(client, "assert_belief", id=f"{prefix}-0")
            return await call(client, "verify")

    async def both():
        return await asyncio.gather(writer("left", 8), writer("right", 8),
                                    _reader(http_server))

    left, right, reads = run(both())
    assert left["ok"] and right["ok"]
    assert all(r is True for r in reads)
    final = labels(store)
    assert len(final) == 17 and set(final.values()) == {"IN"}
    assert tms.verify(store) == []


async def _reader(url: str) -> list[bool]:
    http, client = http_client(url)
    async with http, client:
        seen = []
        for _ in range(8):
            status = await call(client, "status")
            seen.append(status["beliefs"] == status["in"] + status["out"])
        return seen


# --- a Neo4j restart ----------------------------------------------------------------------
@pytest.fixture
def own_neo4j(tmp_path):
    lib = Path(os.environ.get("NEO4J_LOCAL_HOME") or ROOT / ".neo4j") / "lib"
    if not (lib / ".installed").exists():
        pytest.skip(f"the local server's jars are not installed in {lib} (scripts/neo4j install)")
    home = tmp_path / "neo4j-home"
    home.mkdir()
    (home / "lib").symlink_to(lib)
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    env.update(NEO4J_LOCAL_HOME=str(home), NEO4J_BOLT_PORT=str(_free_port()),
               NEO4J_HTTP_PORT=str(_free_port()), NEO4J_HEAP="512m", NEO4J_PAGECACHE="64m")

    def script(*args: str) -> None:
        done = subprocess.run([str(SCRIPT), *args], env=env, text=True, capture_output=True,
                              timeout=180)
        assert done.returncode == 0, done.stdout + done.stderr

    script("start")
    yield script, env, home
    subprocess.run([str(SCRIPT), "stop"], env=env, capture_output=True, timeout=120)
    shutil.rmtree(home, ignore_errors=True)


def test_the_server_survives_a_neo4j_restart(own_neo4j):
    script, env, home = own_neo4j
    uri = f"bolt://127.0.0.1:{env['NEO4J_BOLT_PORT']}"
    server = {"NEO4J_URI": uri, "NEO4J_USER": "neo4j",
              "NEO4J_PASSWORD": (home / "password").read_text().strip(),
              "PYTHONPATH": str(ROOT)}

    async def go():
        async with Client(stdio(server)) as client:
            await call(client, "add", id="before", text="added before the restart")
            script("stop")
            down = await error(client, "status")
            again = await error(client, "show", id="before")
            script("start")
            return down, again, await call(client, "show", id="before"), \
                await call(client, "add", id="after", text="added after the restart")

    down, again, shown, added = run(go())
    for message in (down, again):
        assert message.startswith("Error: ") and "Neo4j" in message and uri in message
        assert "\n" not in message
    assert shown["truth"] == "IN"
    assert added == {"went_in": ["after"], "went_out": []}
