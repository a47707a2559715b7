"""A memory per repository (issue 44), as a new user walks it: `eem init` in two repositories,
a belief added in each, and each `list`, `sources status`, resident engine and MCP server
seeing only its own, from the root and from a subfolder. Each repository's memory is a Neo4j
server of its own (engine/wiring/local_server.py), made in this module's own EEM_HOME and
stopped at its end; nothing here reads the tests' server or a user's."""
from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
EEM = "import sys; from engine.eem import main; sys.exit(main())"  # the console script


def eem(args: list[str], env: dict[str, str], cwd: Path,
        stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", EEM, *args], cwd=cwd, env=env, input=stdin,
                          capture_output=True, text=True, timeout=400, check=False)


def user_shell(home: Path, serve: str) -> dict[str, str]:
    """A user's shell: no NEO4J_* or EEM_* of the test session, this module's EEM_HOME, and
    no graph of a server from before memories (NEO4J_LOCAL_HOME: none there, whatever the
    checkout has)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "EEM_"))}
    env.update(EEM_HOME=str(home), EEM_SERVE="0", EEM_SERVE_DIR=serve,
               PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8",
               NEO4J_LOCAL_HOME=str(home / "no-server-before-memories"))
    return env


class Repos:
    def __init__(self, base: Path, env: dict[str, str]) -> None:
        self.a, self.b, self.env = base / "repoA", base / "repoB", env


@pytest.fixture(scope="module")
def repos():
    base = Path(tempfile.mkdtemp(prefix="eem-repos-"))
    serve = tempfile.mkdtemp(prefix="eem-s-", dir="/tmp")  # a socket path stays short
    env = user_shell(base / "eem-home", serve)
    r = Repos(base, env)
    for repo, file, line in ((r.a, "a.md", "Service A uses Postgres."),
                             (r.b, "b.md", "Service B uses Redis.")):
        (repo / "docs" / "deep").mkdir(parents=True)
        (repo / "docs" / file).write_text(f"# {repo.name}\n\n{line}\n", encoding="utf-8")
    try:
        for repo in (r.a, r.b):
            done = eem(["init"], env, repo)
            assert done.returncode == 0, done.stderr
        added_a = eem(["add", "a-uses-pg", "Service A uses Postgres", "--source",
                       "docs/a.md:3", "--quote", "Service A uses Postgres."], env, r.a)
        added_b = eem(["add", "b-uses-redis", "Service B uses Redis", "--source",
                       "docs/b.md:3", "--quote", "Service B uses Redis."], env, r.b)
        assert added_a.returncode == 0, added_a.stderr
        assert added_b.returncode == 0, added_b.stderr
        yield r
    finally:
        for repo in (r.a, r.b):
            eem(["serve", "stop"], env, repo)  # its engine and its memory's server
        shutil.rmtree(base, ignore_errors=True)
        shutil.rmtree(serve, ignore_errors=True)


def listed(repos: Repos, folder: Path, env: dict[str, str] | None = None) -> set[str]:
    done = eem(["list", "--json"], env or repos.env, folder)
    assert done.returncode == 0, done.stderr
    return {row["id"] for row in json.loads(done.stdout)["beliefs"]}


def sourced(repos: Repos, folder: Path, env: dict[str, str] | None = None) -> dict[str, str]:
    done = eem(["sources", "status", "--json"], env or repos.env, folder)
    assert done.returncode == 0, done.stderr
    return {row["id"]: row["state"] for row in json.loads(done.stdout)["beliefs"]}


def test_two_repositories_keep_two_memories(repos):
    a_marker = json.loads((repos.a / ".eem" / "memory.json").read_text())
    b_marker = json.loads((repos.b / ".eem" / "memory.json").read_text())
    assert a_marker == {"name": "repoa"} and b_marker == {"name": "repob"}
    for folder in (repos.a, repos.a / "docs" / "deep"):
        assert listed(repos, folder) == {"a-uses-pg"}
        assert sourced(repos, folder) == {"a-uses-pg": "unchanged"}
    for folder in (repos.b, repos.b / "docs"):
        assert listed(repos, folder) == {"b-uses-redis"}
        assert sourced(repos, folder) == {"b-uses-redis": "unchanged"}
    # each its own server, on ports of its own
    shown = eem(["memories", "--json"], repos.env, repos.a)
    assert shown.returncode == 0, shown.stderr
    rows = {m["name"]: m for m in json.loads(shown.stdout)["memories"]}
    assert set(rows) == {"repoa", "repob"}
    assert rows["repoa"]["root"] == str(repos.a) and rows["repob"]["root"] == str(repos.b)
    assert rows["repoa"]["beliefs"] == 1 and rows["repob"]["beliefs"] == 1
    assert rows["repoa"]["bolt_port"] != rows["repob"]["bolt_port"]


def test_the_mcp_server_serves_the_memory_of_the_folder_it_starts_in(repos):
    from mcp import Client, StdioServerParameters

    async def beliefs(folder: Path) -> set[str]:
        server = StdioServerParameters(command=sys.executable, args=["-m", "engine.mcp"],
                                       env=repos.env, cwd=str(folder))
        async with Client(server) as client:
            result = await client.call_tool("list_beliefs", {})
            assert not result.is_error, result.content
            return {b["id"] for b in result.structured_content["beliefs"]}

    async def both() -> tuple[set[str], set[str]]:
        return await beliefs(repos.a / "docs"), await beliefs(repos.b)

    assert asyncio.run(asyncio.wait_for(both(), timeout=300)) == ({"a-uses-pg"},
                                                                   {"b-uses-redis"})


# --- a user's memory is left as it was ---------------------------------------------------------
def _user_reach(repos: Repos) -> dict[str, str]:
    """Repository A's memory, as a user's shell may also name it: NEO4J_URI at its server."""
    shown = eem(["memories", "--json"], repos.env, repos.a)
    assert shown.returncode == 0, shown.stderr
    [row] = [m for m in json.loads(shown.stdout)["memories"] if m["name"] == "repoa"]
    password = (Path(row["home"]) / "password").read_text().strip()
    return {"NEO4J_URI": f"bolt://127.0.0.1:{row['bolt_port']}", "NEO4J_PASSWORD": password}


def exported(repos: Repos) -> str:
    done = eem(["export"], repos.env, repos.a)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_test_suites_fixtures_leave_a_users_memory_as_it_was(repos):
    """`make test` from a shell whose NEO4J_URI names a user's memory, in that memory's
    repository: the fixtures (which empty their graph before each test) empty their own."""
    before = exported(repos)
    assert '"a-uses-pg"' in before
    shell = dict(repos.env, **_user_reach(repos),
                 **{k: v for k, v in os.environ.items() if k.startswith("EEM_TEST_")})
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir",
         str(ROOT), str(ROOT / "tests" / "cli" / "test_tms_cli.py"), "-k",
         "test_init_is_idempotent or test_retract_and_assert"],
        cwd=repos.a, env=shell, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "2 passed" in done.stdout
    assert exported(repos) == before


def test_each_repository_has_its_resident_engine(repos):
    """Last in the module: `serve stop` stops an engine and its memory's server."""
    env = dict(repos.env)
    env.pop("EEM_SERVE")
    try:
        for repo in (repos.a, repos.b):
            started = eem(["serve", "start"], env, repo)
            assert started.returncode == 0, started.stderr
        for folder, own in ((repos.a / "docs", "a-uses-pg"), (repos.b, "b-uses-redis")):
            assert listed(repos, folder, env) == {own}
            assert sourced(repos, folder, env) == {own: "unchanged"}
        for repo in (repos.a, repos.b):  # each engine ran its own repository's two commands
            status = eem(["serve", "status"], env, repo)
            assert status.returncode == 0, status.stdout
            assert f"memory '{repo.name.lower()}'" in status.stdout
            assert ": 2 commands served" in status.stdout
        sockets = list(Path(env["EEM_SERVE_DIR"]).glob("engine-*.sock"))
        assert len(sockets) == 2
    finally:
        for repo in (repos.a, repos.b):
            eem(["serve", "stop"], env, repo)
