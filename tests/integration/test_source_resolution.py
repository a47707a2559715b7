"""How sources are resolved, on the real Neo4j (issue 46, what the peers' own tests expect):
`sources stale` lists OUT beliefs as well as IN ones; a `NAME/path` source is looked up in
the folder before the repos map; `sources hash` pins only files under the root, and hashes
a `NAME/path` through the repos map whole, as the peers do; an imported agent's sources
resolve through the repo named after the agent; `sources repos` lists the repos map."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from engine import tms
from engine.cli.main import main

pytestmark = pytest.mark.neo4j


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.fixture
def folder(tmp_path, monkeypatch, neo4j_settings) -> Path:
    for key, value in (("NEO4J_URI", neo4j_settings.uri), ("NEO4J_USER", neo4j_settings.user),
                       ("NEO4J_PASSWORD", neo4j_settings.password or ""),
                       ("NEO4J_DATABASE", neo4j_settings.database)):
        monkeypatch.setenv(key, value)
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    return here


@pytest.fixture
def engine(store, folder, capsys):
    def run(*argv: str, code: int = 0):
        got = main(list(argv))
        out = capsys.readouterr()
        assert got == code, (argv, out.out, out.err)
        return out

    return run


def imported(engine, folder: Path, nodes: dict, repos: dict, name: str = "net.json",
             agent: str = "") -> None:
    (folder / name).write_text(json.dumps({"nodes": nodes, "repos": repos}), encoding="utf-8")
    if agent:
        engine("import-agent", agent, name)
    else:
        engine("init", "--root", ".")
        engine("import", name)


def node(text: str, source: str, source_hash: str = "", antecedents: tuple = ()) -> dict:
    return {"text": text, "truth_value": "IN", "source": source, "source_hash": source_hash,
            "justifications": ([{"type": "SL", "antecedents": list(antecedents),
                                 "outlist": []}] if antecedents else [])}


def test_stale_lists_out_beliefs_as_well_as_in_ones(engine, store, folder):
    (folder / "a.md").write_text("Alpha.\n", encoding="utf-8")
    (folder / "b.md").write_text("Beta holds.\n", encoding="utf-8")
    imported(engine, folder, {"p": node("Alpha", "a.md", sha("Alpha.\n")),
                              "q": node("Also alpha", "a.md", sha("Alpha.\n"))}, {})
    engine("add", "beta", "Beta holds", "--source", "b.md", "--quote", "Beta holds")
    engine("retract", "q")
    engine("retract", "beta")
    (folder / "a.md").write_text("Gamma.\n", encoding="utf-8")
    (folder / "b.md").write_text("Delta.\n", encoding="utf-8")
    rows = json.loads(engine("sources", "stale", "--json").out)["beliefs"]
    assert {r["id"]: (r["truth"], r["stale"]) for r in rows} == {
        "beta": ("OUT", True), "p": ("IN", True), "q": ("OUT", True)}


def test_a_name_path_source_is_looked_up_in_the_folder_before_the_repos_map(
        engine, store, folder, tmp_path):
    repo = tmp_path / "physics"
    repo.mkdir()
    (repo / "a.md").write_text("In the repo.\n", encoding="utf-8")
    (folder / "physics").mkdir()
    (folder / "physics" / "a.md").write_text("In the folder.\n", encoding="utf-8")
    imported(engine, folder, {"p": node("Here", "physics/a.md", sha("In the folder.\n")),
                              "r": node("There", "physics/a.md", sha("In the repo.\n"))},
             {"physics": str(repo)})
    rows = json.loads(engine("sources", "status", "--json").out)["beliefs"]
    assert {r["id"]: r["state"] for r in rows} == {"p": "unchanged", "r": "changed"}
    (folder / "physics" / "a.md").unlink()  # not in the folder: the repos map's
    rows = json.loads(engine("sources", "status", "--json").out)["beliefs"]
    assert {r["id"]: r["state"] for r in rows} == {"p": "changed", "r": "unchanged"}


def test_sources_hash_pins_files_under_the_root_and_hashes_name_path_whole(
        engine, store, folder, tmp_path):
    repo = tmp_path / "physics"
    repo.mkdir()
    (repo / "far.md").write_text("Far away.\n", encoding="utf-8")
    (folder / "near.md").write_text("Close by.\n", encoding="utf-8")
    imported(engine, folder, {"near": node("Close", "near.md"),
                              "far": node("Far", "physics/far.md"),
                              "nowhere": node("Gone", "physics/gone.md")},
             {"physics": str(repo)})
    done = json.loads(engine("sources", "hash", "--json").out)
    assert [h["id"] for h in done["hashed"]] == ["near"]
    assert done["whole_file"] == [{"id": "far", "file": str(repo / "far.md")}]
    assert [s["id"] for s in done["skipped"]] == ["nowhere"]
    near, far = tms.show(store, "near")[0], tms.show(store, "far")[0]
    assert [b.id for b in store.read(lambda tx: tx.beliefs_from_sources(["near.md"]))] == [
        "near"]  # pinned: a FROM edge, lines
    assert near.metadata["lines"] == [1, 1] and near.metadata["hashed_late"] is True
    assert far.source_hash == sha("Far away.\n") and "lines" not in far.metadata
    assert not store.read(lambda tx: tx.beliefs_from_sources(["physics/far.md"]))
    rows = json.loads(engine("sources", "status", "--json").out)["beliefs"]
    assert {r["id"]: (r["kind"], r["state"]) for r in rows} == {
        "far": ("hash", "unchanged"), "near": ("pinned", "unchanged")}
    (repo / "far.md").write_text("Moved on.\n", encoding="utf-8")
    assert [r["id"] for r in json.loads(engine("sources", "stale", "--json").out)["beliefs"]
            ] == ["far"]


def test_an_imported_agents_sources_resolve_through_the_repo_named_after_it(
        engine, store, folder, tmp_path):
    theirs = tmp_path / "bob-repo"
    theirs.mkdir()
    (theirs / "notes.md").write_text("Bob's notes.\n", encoding="utf-8")
    (folder / "notes.md").write_text("Our notes, another text.\n", encoding="utf-8")
    engine("init", "--root", ".")
    imported(engine, folder, {"n": node("Bob noted", "notes.md", sha("Bob's notes.\n"))},
             {"bob": str(theirs)}, name="bob.json", agent="bob")
    rows = json.loads(engine("sources", "status", "--json").out)["beliefs"]
    assert [(r["id"], r["state"]) for r in rows] == [("bob:n", "unchanged")]
    (theirs / "notes.md").write_text("Bob changed his mind.\n", encoding="utf-8")
    rows = json.loads(engine("sources", "stale", "--json").out)["beliefs"]
    assert [(r["id"], r["reason"]) for r in rows] == [("bob:n", "content_changed")]


def test_sources_repos_lists_the_repos_map(engine, store, folder, tmp_path):
    imported(engine, folder, {"p": node("P", "physics/a.md")},
             {"physics": "/srv/physics", "maths": "/srv/maths"})
    assert json.loads(engine("sources", "repos", "--json").out) == {"repos": [
        {"name": "maths", "path": "/srv/maths", "from": "imported"},
        {"name": "physics", "path": "/srv/physics", "from": "imported"}]}
    out = engine("sources", "repos", "--repo", f"physics={tmp_path}").out.splitlines()
    assert out[0].split() == ["repo", "path", "from"]
    assert [line.split() for line in out[2:]] == [
        ["maths", "/srv/maths", "imported"], ["physics", str(tmp_path), "--repo"]]
