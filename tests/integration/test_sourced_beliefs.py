"""Sourced beliefs on the real Neo4j: `add --source PATH[:A-B] --quote` pins a belief to its
file (hash, lines, FROM edge) or refuses with nothing written; `sources status|stale
[--retract]` sees an edit, re-pins a moved quote and takes a gone one down with its
dependents; `sources hash` pins imported beliefs late; batch and the MCP `add` tool do the
same. The commands run in this process, from a folder of the test's own."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from adapters.formats import parse_network
from engine import interchange, tms
from engine.change_records import LogQuery
from engine.mcp.tools import AgentTools
from engine.service.context import Context
from engine.cli.main import main
from engine.memory import changelog

pytestmark = pytest.mark.neo4j

AUTH = ("def check(token):\n"
        "    # the auth service validates JWTs\n"
        "    claims = jwt.decode(token, key)\n"
        "    return claims\n")


@pytest.fixture
def folder(tmp_path, monkeypatch, neo4j_settings) -> Path:
    for key, value in (("NEO4J_URI", neo4j_settings.uri), ("NEO4J_USER", neo4j_settings.user),
                       ("NEO4J_PASSWORD", neo4j_settings.password or ""),
                       ("NEO4J_DATABASE", neo4j_settings.database)):
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "auth.py").write_text(AUTH, encoding="utf-8")
    return tmp_path


@pytest.fixture
def engine(store, folder, capsys):
    """`engine(*argv)` runs `python -m engine ARGV` here and asserts its exit code."""

    def run(*argv: str, code: int = 0):
        got = main(list(argv))
        out = capsys.readouterr()
        assert got == code, (argv, out.out, out.err)
        return out

    return run


def error_line(out) -> str:
    lines = out.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), out.err
    return lines[0]


def log_size(store) -> int:
    return len(changelog.log(store, LogQuery()))


def sources(store) -> dict[str, str]:
    return {s.path: s.sha256 for s in store.read(lambda tx: tx.sources())}


def drawn_from(store, path: str) -> list[str]:
    return [b.id for b in store.read(lambda tx: tx.beliefs_from_sources([path]))]


def test_add_pins_the_file_hash_the_quotes_lines_and_a_from_edge(engine, store, folder):
    engine("add", "auth-uses-jwt", "Auth validates JWTs", "--source", "src/auth.py:2-4",
           "--quote", "JWT.decode(token,  KEY)")
    b, _ = tms.show(store, "auth-uses-jwt")
    sha = hashlib.sha256((folder / "src" / "auth.py").read_bytes()).hexdigest()
    assert (b.source, b.source_hash) == ("src/auth.py", sha)
    assert dict(b.metadata) == {"source_type": "add", "quote": "JWT.decode(token,  KEY)",
                                "lines": [3, 3]}
    assert sources(store) == {"src/auth.py": sha}
    assert drawn_from(store, "src/auth.py") == ["auth-uses-jwt"]
    [entry] = changelog.log(store, LogQuery(op="add"))
    assert dict(entry.args) == {"id": "auth-uses-jwt", "source": "src/auth.py:3-3"}


def test_a_quote_not_in_those_lines_is_refused_and_nothing_is_written(engine, store):
    before = log_size(store)
    out = engine("add", "p", "Auth caches keys", "--source", "src/auth.py:1-2", "--quote",
                 "jwt.decode(token", code=2)
    assert "quote does not occur in lines 1-2 of src/auth.py" in error_line(out)
    out = engine("add", "p", "Auth caches keys", "--source", "src/auth.py",
                 "--quote", "keys are cached", code=2)
    assert "quote does not occur in src/auth.py" in error_line(out)
    out = engine("add", "p", "Auth caches keys", "--source", "src/auth.py:3-9", code=2)
    assert "lines 3-9 are not in src/auth.py (4 lines)" in error_line(out)
    assert tms.show_many(store, ["p"]) == {}
    assert sources(store) == {}
    assert log_size(store) == before


def test_a_path_outside_the_root_or_a_missing_file_is_an_error_naming_it(engine, store,
                                                                          folder):
    (folder / "notes.md").write_text("outside src\n", encoding="utf-8")
    out = engine("add", "p", "x", "--source", "../notes.md", "--root", "src", code=2)
    assert "--root" in error_line(out) and "notes.md" in error_line(out)
    out = engine("add", "p", "x", "--source", "../elsewhere.md", code=2)
    assert "--root" in error_line(out)
    out = engine("add", "p", "x", "--source", "src/gone.py", code=2)
    assert "src/gone.py" in error_line(out)
    assert f"relative to the root, {folder}" in error_line(out)  # where it was looked for
    assert tms.show_many(store, ["p"]) == {}
    engine("add", "p", "Checks tokens", "--source", "auth.py", "--root", "src")
    assert tms.show(store, "p")[0].source == "auth.py"  # read against --root, not here


def test_an_edited_file_makes_the_belief_stale_and_retract_takes_its_dependents(engine,
                                                                                 store, folder):
    engine("add", "auth-uses-jwt", "Auth validates JWTs", "--source", "src/auth.py",
           "--quote", "jwt.decode(token, key)")
    engine("add", "auth-stateless", "Auth keeps no sessions", "--sl", "auth-uses-jwt")
    assert json.loads(engine("sources", "stale", "--json").out)["beliefs"] == []
    (folder / "src" / "auth.py").write_text(AUTH.replace("jwt.decode", "sessions.get"),
                                            encoding="utf-8")
    [row] = json.loads(engine("sources", "stale", "--json").out)["beliefs"]
    assert (row["id"], row["state"], row["now"]) == ("auth-uses-jwt", "gone", "quote gone")
    assert "auth-uses-jwt" in engine("sources", "status").out
    done = json.loads(engine("sources", "stale", "--retract", "--json").out)
    assert done["retracted"] == ["auth-uses-jwt"]
    assert sorted(done["change"]["went_out"]) == ["auth-stateless", "auth-uses-jwt"]
    beliefs = tms.show_many(store, ["auth-uses-jwt", "auth-stateless"])
    assert {b.truth.value for b in beliefs.values()} == {"OUT"}
    assert beliefs["auth-uses-jwt"].retract_reason == "source changed: src/auth.py"
    [entry] = changelog.log(store, LogQuery(op="sources-stale-retract"))
    assert entry.reason and "auth-stateless" in entry.went_out


def test_stale_retract_prints_what_it_retracted_with_its_label_after(engine, store, folder):
    """The table printed the belief IN with "quote gone", though it had just been retracted."""
    engine("add", "auth-uses-jwt", "Auth validates JWTs", "--source", "src/auth.py",
           "--quote", "jwt.decode(token, key)")
    engine("add", "auth-stateless", "Auth keeps no sessions", "--sl", "auth-uses-jwt")
    (folder / "src" / "auth.py").write_text(AUTH.replace("jwt.decode", "sessions.get"),
                                            encoding="utf-8")
    out = engine("sources", "stale", "--retract").out
    [row] = [line.split() for line in out.splitlines() if line.startswith("auth-uses-jwt")]
    assert row[:3] == ["auth-uses-jwt", "OUT", "src/auth.py"]
    assert "quote gone (retracted)" in out
    assert "went OUT: 2 (auth-stateless, auth-uses-jwt)" in out
    done = json.loads(engine("sources", "stale", "--json").out)["beliefs"]
    assert [(r["id"], r["truth"], r["now"]) for r in done] == [
        ("auth-uses-jwt", "OUT", "quote gone")]  # a later check says what it finds


def test_a_moved_quote_is_re_pinned_and_a_missing_file_retracted(engine, store, folder):
    (folder / "notes.md").write_text("a note\n", encoding="utf-8")
    engine("add", "auth-uses-jwt", "Auth validates JWTs", "--source", "src/auth.py:3",
           "--quote", "jwt.decode(token, key)")
    engine("add", "noted", "A note", "--source", "notes.md", "--quote", "a note")
    engine("add", "both", "Both hold", "--sl", "auth-uses-jwt,noted")
    (folder / "src" / "auth.py").write_text("import jwt\n\n" + AUTH, encoding="utf-8")
    (folder / "notes.md").unlink()
    rows = {r["id"]: r for r in json.loads(engine("sources", "status", "--json").out)["beliefs"]}
    assert rows["auth-uses-jwt"]["now"] == "quote moved to lines 5-5"
    assert rows["noted"]["now"] == "file missing"
    out = engine("sources", "stale", "--retract").out
    assert "quote moved to lines 5-5 (re-pinned)" in out
    assert "left as they are (their file is missing; `--missing` retracts them): noted" in out
    assert tms.show(store, "noted")[0].truth.value == "IN"
    engine("sources", "stale", "--retract", "--missing")
    b, _ = tms.show(store, "auth-uses-jwt")
    assert (b.truth.value, list(b.metadata["lines"])) == ("IN", [5, 5])
    assert b.source_hash == hashlib.sha256((folder / "src" / "auth.py").read_bytes()).hexdigest()
    assert tms.show(store, "noted")[0].retract_reason == "source missing: notes.md"
    assert tms.show(store, "both")[0].truth.value == "OUT"
    now = {r["id"]: r["now"] for r in json.loads(engine("sources", "status", "--json").out)["beliefs"]}
    assert now["auth-uses-jwt"] == "unchanged, lines 5-5"


def test_batch_adds_with_a_source_and_refuses_a_bad_quote(engine, store, folder):
    script = folder / "commands.txt"
    script.write_text("add p 'Auth validates JWTs' --source src/auth.py --quote 'jwt.decode'\n"
                      "add q 'Not there' --source src/auth.py --quote 'no such words'\n",
                      encoding="utf-8")
    out = engine("batch", str(script), "--keep-going", code=2)
    assert "quote does not occur in src/auth.py" in out.err
    assert drawn_from(store, "src/auth.py") == ["p"]
    assert tms.show_many(store, ["q"]) == {}


def test_sources_hash_pins_imported_beliefs_late(engine, store, folder):
    network, stored = parse_network({"nodes": {
        "lines-given": {"text": "Returns the claims", "source": "src/auth.py:4-4"},
        "quoted": {"text": "Validates JWTs", "source": "src/auth.py",
                   "metadata": {"quote": "claims = jwt.decode"}},
        "nowhere": {"text": "From a notebook", "source": "lab notebook p. 12"},
        "forged": {"text": "Has a hash", "source": "src/auth.py", "source_hash": "abc"}}})
    interchange.import_network(store, network, stored)
    out = json.loads(engine("sources", "hash", "--json").out)
    assert out["hashed"] == [{"id": "lines-given", "source": "src/auth.py:4-4"},
                             {"id": "quoted", "source": "src/auth.py:3-3"}]
    assert [s["id"] for s in out["skipped"]] == ["nowhere"]
    b = tms.show(store, "quoted")[0]
    assert b.metadata["hashed_late"] is True and list(b.metadata["lines"]) == [3, 3]
    assert b.source_hash == hashlib.sha256((folder / "src" / "auth.py").read_bytes()).hexdigest()
    assert drawn_from(store, "src/auth.py") == ["lines-given", "quoted"]
    assert json.loads(engine("sources", "hash", "--json").out)["hashed"] == []  # done once


@pytest.mark.slow
def test_the_mcp_add_tool_pins_a_source_under_the_servers_folder(store, folder,
                                                                 neo4j_settings):
    pytest.importorskip("mcp", reason="the mcp extra is not installed")
    import asyncio
    import sys

    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    from tests.integration.test_mcp_server import ROOT, server_env

    params = StdioServerParameters(command=sys.executable, args=["-m", "engine.mcp"],
                                   env=server_env(neo4j_settings), cwd=str(folder))

    async def go():
        async with Client(params) as client:
            ok = await client.call_tool("add", {"id": "p", "text": "Auth validates JWTs",
                                                "source": "src/auth.py:3", "quote": "jwt.decode"})
            bad = await client.call_tool("add", {"id": "q", "text": "x", "source": "src/auth.py",
                                                 "quote": "not in it"})
            return ok, bad

    ok, bad = asyncio.run(asyncio.wait_for(go(), timeout=240))
    assert not ok.is_error and ok.structured_content["went_in"] == ["p"]
    assert bad.is_error and "quote does not occur" in bad.content[0].text
    assert drawn_from(store, "src/auth.py") == ["p"]
    assert tms.show_many(store, ["q"]) == {}
    assert str(ROOT) != str(folder)


# --- the registry and network.json carry supersessions and source pins -------------------
def _graph_facts(store) -> tuple:
    network = interchange.export_network(store)
    froms = {b.id: (b.source, b.source_hash, tuple(b.metadata.get("lines") or ()))
             for b in store.read(lambda tx: tx.beliefs_from_sources(
                 [s.path for s in tx.sources()]))}
    return (network.supersessions, network.sources, froms,
            {i: (b.truth, b.depth, b.justifications, dict(b.metadata), b.retract_reason)
             for i, b in network.beliefs.items()})


@pytest.mark.parametrize("name", ["network.json", "beliefs.md"])
def test_export_reset_import_gives_the_same_graph_supersessions_and_pins_included(
        engine, store, folder, name):
    engine("add", "auth-uses-jwt", "Auth validates JWTs", "--source", "src/auth.py",
           "--quote", "jwt.decode(token, key)")
    engine("add", "tokens", "Tokens are checked")
    engine("add", "auth-stateless", "Auth keeps no sessions", "--sl", "auth-uses-jwt,tokens")
    engine("add", "new-tokens", "Tokens are checked twice")
    engine("supersede", "auth-uses-jwt", "--text", "Auth validates signed JWTs",
           "--reason", "sharper")
    engine("supersede", "tokens", "new-tokens")
    before = _graph_facts(store)
    assert {r.old for r in before[0]} == {"auth-uses-jwt", "tokens"}
    assert set(before[2]) == {"auth-uses-jwt", "auth-uses-jwt-v2"}
    engine("export", "-o", name)
    first = (folder / name).read_text(encoding="utf-8")
    engine("reset", "--yes")
    engine("import", name)
    assert _graph_facts(store) == before
    engine("export", "-o", "again-" + name)
    assert (folder / ("again-" + name)).read_text(encoding="utf-8") == first
    engine("supersede", "auth-uses-jwt", "--undo")  # the link came back whole: undo works
    b = tms.show(store, "auth-stateless")[0]
    assert b.justifications[0].antecedents == ("auth-uses-jwt", "tokens")
    assert json.loads(engine("sources", "stale", "--json").out)["beliefs"] == []


def test_a_proposed_sourced_add_is_read_now_and_pinned_when_accepted(engine, store, folder):
    """`propose add --source --quote` reads and grounds the file when proposed (refused as
    `add` refuses); accept pins the belief to the file as it was read then."""
    out = engine("propose", "add", "p", "Auth caches keys", "--source", "src/auth.py",
                 "--quote", "keys are cached", "--reason", "read it", code=2)
    assert "quote does not occur in src/auth.py" in error_line(out)
    engine("propose", "add", "auth-uses-jwt", "Auth validates JWTs", "--source",
           "src/auth.py:2-4", "--quote", "JWT.decode(token,  KEY)", "--reason", "read it")
    assert tms.show_many(store, ["auth-uses-jwt"]) == {} and sources(store) == {}
    engine("accept", "prop-1")
    b, _ = tms.show(store, "auth-uses-jwt")
    sha = hashlib.sha256((folder / "src" / "auth.py").read_bytes()).hexdigest()
    assert (b.source, b.source_hash, b.metadata["lines"]) == ("src/auth.py", sha, [3, 3])
    assert sources(store) == {"src/auth.py": sha}
    assert drawn_from(store, "src/auth.py") == ["auth-uses-jwt"]


def test_a_proposed_add_keeps_its_access_tags_when_accepted(engine, store):
    engine("propose", "add", "salaries", "Salaries are paid monthly", "--access-tags", "hr",
           "--reason", "from the handbook")
    engine("accept", "prop-1")
    assert list(tms.show(store, "salaries")[0].metadata["access_tags"]) == ["hr"]


def test_the_mcp_propose_add_tool_pins_a_source_as_add_does(store, folder, tmp_path):
    from engine.errors import InvalidInput

    tools, ctx = AgentTools(report_dir=tmp_path), Context(store, "mcp:test", folder=folder)
    with pytest.raises(InvalidInput, match="quote does not occur"):
        tools.propose_add(ctx, "p", "Auth caches keys", "read it", source="src/auth.py",
                          quote="keys are cached")
    proposed = tools.propose_add(ctx, "auth-uses-jwt", "Auth validates JWTs", "read it",
                                 source="src/auth.py", quote="jwt.decode(token, key)")
    tools.accept_proposal(ctx, proposed["id"])
    b, _ = tms.show(store, "auth-uses-jwt")
    assert (b.source, b.metadata["lines"]) == ("src/auth.py", [3, 3])
    assert drawn_from(store, "src/auth.py") == ["auth-uses-jwt"]


# --- issue 36: the root kept, staleness per belief, missing apart, a large retraction confirmed
def test_init_with_a_root_that_is_not_a_folder_writes_and_prints_nothing_else(engine, store,
                                                                             folder):
    before = log_size(store)
    out = engine("init", "--root", str(folder / "nowhere"), code=2)
    assert out.out == ""  # it printed "schema ready" before refusing the root
    assert error_line(out) == f"Error: --root {folder / 'nowhere'}: not a folder"
    assert log_size(store) == before and store.read(lambda tx: tx.project_root()) == ""


def test_the_mcp_add_tools_read_a_source_under_the_recorded_root(engine, store, folder,
                                                                  monkeypatch, tmp_path):
    """An MCP server started in another folder reads `add`'s and `propose_add`'s source
    against the root `init --root` recorded, as the CLI's add does, never against its own
    folder (where a file of the same name says something else)."""
    from engine.errors import InvalidInput

    project, elsewhere = folder / "project", folder / "elsewhere"
    (project / "docs").mkdir(parents=True)
    (elsewhere / "docs").mkdir(parents=True)
    (project / "docs" / "queue.md").write_text("intro\nThe queue delivers at least once.\n",
                                               encoding="utf-8")
    (elsewhere / "docs" / "queue.md").write_text("other\nnothing about queues\n",
                                                 encoding="utf-8")
    engine("init", "--root", str(project))
    tools = AgentTools(report_dir=tmp_path / "reports")
    ctx = Context(store, "mcp:test", folder=elsewhere)  # the server's folder
    tools.add(ctx, id="once", text="The queue delivers at least once",
              source="docs/queue.md:2", quote="at least once")
    b, _ = tms.show(store, "once")
    sha = hashlib.sha256((project / "docs" / "queue.md").read_bytes()).hexdigest()
    assert (b.source, b.source_hash, b.metadata["lines"]) == ("docs/queue.md", sha, [2, 2])
    with pytest.raises(InvalidInput, match="quote does not occur"):
        tools.add(ctx, id="other", text="x", source="docs/queue.md:2",
                  quote="nothing about queues")
    proposed = tools.propose_add(ctx, "whole", "The queue note", "read it",
                                 source="docs/queue.md")
    tools.accept_proposal(ctx, proposed["id"])
    assert tms.show(store, "whole")[0].source_hash == sha
    rows = json.loads(engine("sources", "status", "--json").out)["beliefs"]
    assert [(r["id"], r["state"]) for r in rows] == [("once", "unchanged"),
                                                     ("whole", "unchanged")]


def test_the_root_is_recorded_and_read_from_any_folder(engine, store, folder, monkeypatch):
    project, elsewhere = folder / "project", folder / "elsewhere"
    (project / "docs").mkdir(parents=True)
    elsewhere.mkdir()
    (project / "docs" / "queue.md").write_text("The queue is FIFO.\nIt holds 100 jobs.\n",
                                               encoding="utf-8")
    monkeypatch.chdir(elsewhere)
    engine("add", "ok", "The queue is FIFO", "--source", "docs/queue.md:1", "--root",
           str(project))  # read against --root, not against the current folder
    assert store.read(lambda tx: tx.project_root()) == str(project.resolve())
    engine("add", "size", "The queue holds 100 jobs", "--source", "docs/queue.md:2")
    assert tms.show(store, "size")[0].source == "docs/queue.md"
    rows = json.loads(engine("sources", "status", "--json").out)["beliefs"]
    assert [(r["id"], r["state"]) for r in rows] == [("ok", "unchanged"), ("size", "unchanged")]
    out = engine("add", "x", "x", "--source", "q.md", "--root", str(elsewhere), code=2)
    assert "is not this memory's root" in error_line(out) and "init --root" in error_line(out)
    moved = folder / "moved"
    project.rename(moved)
    out = engine("sources", "stale", "--retract", "--missing", code=2)
    assert "is not a folder" in error_line(out) and "init --root DIR" in error_line(out)
    assert "(was " in engine("init", "--root", str(moved)).out
    assert {r["state"] for r in json.loads(engine("sources", "status", "--json").out)["beliefs"]} == {
        "unchanged"}


def test_staleness_is_per_belief_and_re_pinning_one_never_clears_another(engine, store, folder):
    (folder / "facts.md").write_text("Redis is single node.\nPostgres has a replica.\n",
                                     encoding="utf-8")
    engine("add", "redis", "Redis is single node", "--source", "facts.md:1", "--quote",
           "Redis is single node")
    engine("add", "pg", "Postgres has a replica", "--source", "facts.md:2")
    (folder / "facts.md").write_text("Redis is a cluster now.\nPostgres has a replica.\n",
                                     encoding="utf-8")
    rows = {r["id"]: r for r in json.loads(engine("sources", "status", "--json").out)["beliefs"]}
    assert (rows["redis"]["state"], rows["redis"]["reason"]) == ("gone", "content_changed")
    assert (rows["pg"]["state"], rows["pg"]["stale"]) == ("still", False)
    assert [r["id"] for r in json.loads(engine("sources", "stale", "--json").out)["beliefs"]] == ["redis"]
    done = json.loads(engine("sources", "stale", "--retract", "--json").out)
    assert (done["repinned"], done["retracted"]) == (["pg"], ["redis"])
    engine("assert", "redis")
    rows = {r["id"]: r for r in json.loads(engine("sources", "status", "--json").out)["beliefs"]}
    assert (rows["redis"]["state"], rows["redis"]["now"]) == ("gone", "quote gone")
    assert rows["pg"]["state"] == "unchanged"
    assert [r["id"] for r in json.loads(engine("sources", "stale", "--json").out)["beliefs"]] == ["redis"]


def test_a_missing_file_is_retracted_only_with_missing_and_what_came_in_is_printed(
        engine, store, folder):
    (folder / "a.md").write_text("Alpha holds.\n", encoding="utf-8")
    engine("add", "alpha", "Alpha holds", "--source", "a.md", "--quote", "Alpha holds")
    engine("add", "beta", "Beta follows", "--sl", "alpha")
    (folder / "a.md").write_text("Gamma.\n", encoding="utf-8")
    engine("sources", "stale", "--retract")
    assert tms.show(store, "beta")[0].truth.value == "OUT"
    (folder / "a.md").write_text("Alpha holds.\n", encoding="utf-8")
    out = engine("sources", "stale", "--retract").out
    assert "restored 1" in out and "came IN: 2 (alpha, beta)" in out
    (folder / "a.md").unlink()
    out = engine("sources", "stale", "--retract").out
    assert "went OUT: 0" in out and "`--missing` retracts them): alpha" in out
    assert tms.show(store, "alpha")[0].truth.value == "IN"
    out = engine("sources", "stale", "--retract", "--missing").out
    assert "went OUT: 2 (alpha, beta)" in out
    assert tms.show(store, "alpha")[0].retract_reason == "source missing: a.md"


def test_a_retraction_taking_more_than_20_out_shows_the_what_if_and_needs_yes(
        engine, store, folder, capsys):
    (folder / "a.md").write_text("Alpha holds.\n", encoding="utf-8")
    engine("add", "alpha", "Alpha holds", "--source", "a.md", "--quote", "Alpha holds")
    for n in range(21):
        tms.add(store, f"d{n}", f"derived {n}", tms.make_justifications(["alpha"]))
    (folder / "a.md").write_text("Gamma.\n", encoding="utf-8")
    before = log_size(store)
    out = engine("sources", "stale", "--retract", code=2)
    assert "what-if (nothing written): 22 beliefs would go OUT" in out.out
    assert "--yes" in error_line(out)
    assert log_size(store) == before and tms.show(store, "alpha")[0].truth.value == "IN"
    assert "`python -m engine sources stale --retract --yes`" in error_line(out)
    assert main(["sources", "stale", "--retract"], prog="eem") == 2  # the name it goes by
    assert "run `eem sources stale --retract --yes` to go ahead" in capsys.readouterr().err
    assert "went OUT: 22" in engine("sources", "stale", "--retract", "--yes").out


# --- issue 38: hash-only beliefs (ftl-reasons' source + source_hash) checked and refreshed ---
def test_their_source_hashes_are_checked_through_the_repos_map_and_refreshed(
        engine, store, folder, tmp_path_factory):
    repo = tmp_path_factory.mktemp("physics")
    (repo / "a.md").write_text("Alpha.\n", encoding="utf-8")
    sha = hashlib.sha256(b"Alpha.\n").hexdigest()
    data = {"nodes": {
        "p": {"text": "Alpha", "truth_value": "IN", "justifications": [],
              "source": "physics/a.md", "source_hash": sha},
        "q": {"text": "Short hash", "truth_value": "IN", "justifications": [],
              "source": "physics/a.md", "source_hash": sha[:16]},
        "d": {"text": "From p", "truth_value": "IN",
              "justifications": [{"type": "SL", "antecedents": ["p"], "outlist": []}]}},
        "repos": {"physics": str(repo)}}
    (folder / "network.json").write_text(json.dumps(data), encoding="utf-8")
    engine("import", "network.json")
    rows = {r["id"]: r for r in json.loads(engine("sources", "status", "--json").out)["beliefs"]}
    assert {i: (r["kind"], r["state"]) for i, r in rows.items()} == {
        "p": ("hash", "unchanged"), "q": ("hash", "unchanged")}
    (repo / "a.md").write_text("Beta.\n", encoding="utf-8")
    stale = json.loads(engine("sources", "stale", "--json").out)["beliefs"]
    assert [(r["id"], r["reason"]) for r in stale] == [("p", "content_changed"),
                                                       ("q", "content_changed")]
    other = tmp_path_factory.mktemp("copy")
    (other / "a.md").write_text("Alpha.\n", encoding="utf-8")
    assert json.loads(engine("sources", "stale", "--json", "--repo",
                             f"physics={other}").out)["beliefs"] == []
    (repo / "a.md").unlink()
    stale = json.loads(engine("sources", "stale", "--json").out)["beliefs"]
    assert {r["reason"] for r in stale} == {"source_deleted"}
    done = json.loads(engine("sources", "stale", "--retract", "--json").out)
    assert done["left_missing"] == ["p", "q"] and done["change"]["went_out"] == []
    (repo / "a.md").write_text("Beta.\n", encoding="utf-8")
    done = json.loads(engine("sources", "stale", "--retract", "--json").out)
    assert done["retracted"] == ["p", "q"] and "d" in done["change"]["went_out"]
    hashed = json.loads(engine("sources", "hash", "--json").out)
    assert [r["id"] for r in hashed["refreshed"]] == ["p", "q"]
    assert tms.show(store, "p")[0].source_hash == hashlib.sha256(b"Beta.\n").hexdigest()
    done = json.loads(engine("sources", "stale", "--retract", "--json").out)
    assert done["restored"] == ["p", "q"] and "d" in done["change"]["went_in"]


def test_an_imported_agents_repos_map_finds_its_beliefs_files(engine, store, folder,
                                                              tmp_path_factory):
    repo = tmp_path_factory.mktemp("billing")
    (repo / "a.md").write_text("Alpha.\n", encoding="utf-8")
    data = {"nodes": {"p": {"text": "Alpha", "truth_value": "IN", "justifications": [],
                            "source": "billing/a.md",
                            "source_hash": hashlib.sha256(b"Alpha.\n").hexdigest()}},
            "repos": {"billing": str(repo)}}
    (folder / "agent.json").write_text(json.dumps(data), encoding="utf-8")
    engine("import-agent", "bill", "agent.json")
    assert [(r["id"], r["state"]) for r in json.loads(engine("sources", "status", "--json").out)["beliefs"]
            ] == [("bill:p", "unchanged")]
    (repo / "a.md").write_text("Beta.\n", encoding="utf-8")
    assert [(r["id"], r["reason"]) for r in json.loads(engine("sources", "stale", "--json").out)["beliefs"]
            ] == [("bill:p", "content_changed")]


def test_the_stale_listing_names_the_retract_command_as_the_program_was_called(
        engine, store, folder, capsys):
    (folder / "a.md").write_text("Alpha holds.\n", encoding="utf-8")
    engine("add", "alpha", "Alpha holds", "--source", "a.md", "--quote", "Alpha holds")
    (folder / "a.md").write_text("Gamma.\n", encoding="utf-8")
    assert "`python -m engine sources stale --retract` re-pins" in engine("sources", "stale").out
    capsys.readouterr()
    assert main(["sources", "stale"], prog="eem") == 0
    assert "`eem sources stale --retract` re-pins or retracts them" in capsys.readouterr().out
