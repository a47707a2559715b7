"""`python -m engine.forge` and `python -m engine.pipeline` as a user runs them: exit codes,
output and files against the real store, with fake models loaded through `py:`."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from engine.model import Truth
from engine.tms.records import BeliefFilter
from tests.forge_fakes import write_tree
from tests.in_process import program

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "scripts" / "example-sources"
MODEL = "py:tests.forge_fakes:quoting_model"


def cli(module, args, *, cwd, settings=None, timeout=300):
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    env["PYTHONPATH"] = str(ROOT)
    if settings is not None:
        env.update(NEO4J_URI=settings.uri, NEO4J_USER=settings.user,
                   NEO4J_PASSWORD=settings.password or "", NEO4J_DATABASE=settings.database)
    else:
        env["NEO4J_URI"] = "bolt://127.0.0.1:1"
    return program(module, args, env, cwd=cwd)


def forge_cli(args, **kw):
    return cli("engine.forge", args, **kw)


@pytest.mark.parametrize("args, message", [
    (["docs"], "--model is required"),
    (["docs", "--model", "x", "--auto", "-o", "f.md"], "-o/--output is for runs without --auto"),
    (["docs", "--similar", "1.5", "--dry-run"], "must be in (0, 1]"),
])
def test_usage_errors_exit_2(tmp_path, args, message):
    r = forge_cli(args, cwd=tmp_path)
    assert r.returncode == 2 and message in r.stderr


def test_help_has_examples(tmp_path):
    for sub in ([], ["accept"], ["status"], ["stale"]):
        r = forge_cli([*sub, "--help"], cwd=tmp_path)
        assert r.returncode == 0 and "example" in r.stdout


@pytest.mark.neo4j
def test_a_missing_path_is_one_error_line(store, neo4j_settings, tmp_path):
    r = forge_cli(["nope/", "--dry-run", "--no-embeddings"], cwd=tmp_path, settings=neo4j_settings)
    assert r.returncode == 2 and r.stderr.strip() == "Error: no such file or folder: nope/"


@pytest.mark.neo4j
def test_dry_run_then_proposals_then_accept_then_status_and_stale(store, neo4j_settings,
                                                                  tmp_path):
    shutil.copytree(EXAMPLE, tmp_path / "shop")
    write_tree(tmp_path / "shop", {"logo.png": b"\x89PNG\x00\x00"})
    run = dict(cwd=tmp_path / "shop", settings=neo4j_settings)

    dry = forge_cli([".", "--dry-run", "--no-embeddings"], **run)
    assert dry.returncode == 0, dry.stderr
    assert "skipped logo.png: binary" in dry.stdout
    assert "chunk docs/auth.md:1-" in dry.stdout and "## What to reply" in dry.stdout

    first = forge_cli([".", "--model", MODEL, "--no-embeddings", "--report-dir", "../reports"],
                      **run)
    assert first.returncode == 0, first.stderr
    assert "proposals: proposed-premises.md" in first.stdout
    assert store.read(lambda tx: tx.list_beliefs(BeliefFilter())) == []
    report = json.loads(next((tmp_path / "reports").glob("forge-*.json")).read_text())
    assert report["status"] == "complete" and report["totals"]["valid"] > 10

    acc = forge_cli(["accept", "proposed-premises.md", "--no-embeddings", "--json"], **run)
    assert acc.returncode == 0, acc.stderr
    added = json.loads(acc.stdout)["applied"]
    assert len(added) == report["totals"]["valid"]
    assert all(e["truth_value"] == "IN" for e in added)

    again = forge_cli([".", "--model", MODEL, "--auto", "--no-embeddings", "--no-report"], **run)
    assert again.returncode == 0 and "0 to forge" in again.stdout  # nothing sent again

    auth = tmp_path / "shop" / "docs" / "auth.md"
    auth.write_text(auth.read_text().replace("every five minutes", "every hour"))
    status = forge_cli(["status", "--json"], **run)
    states = {s["path"]: s["status"] for s in json.loads(status.stdout)}
    assert states["docs/auth.md"] == "changed" and states["docs/data.md"] == "unchanged"

    stale = forge_cli(["stale"], **run)
    assert stale.returncode == 0 and "quote gone" in stale.stdout
    gone = forge_cli(["stale", "--retract", "--json"], **run)
    out = json.loads(gone.stdout)
    retracted = set(out["retracted"])
    assert retracted == {s["id"] for s in out["stale"] if s["state"] == "gone"}
    beliefs = store.read(lambda tx: tx.get_beliefs(retracted))
    assert beliefs and all(b.truth == Truth.OUT for b in beliefs.values())
    assert {b.retract_reason for b in beliefs.values()} == {"source changed: docs/auth.md"}


@pytest.mark.neo4j
def test_absolute_paths_outside_the_current_folder_need_no_root(store, neo4j_settings,
                                                                tmp_path):
    shutil.copytree(EXAMPLE / "docs", tmp_path / "shop" / "docs")
    shutil.copytree(EXAMPLE / "src", tmp_path / "shop" / "src")
    (tmp_path / "elsewhere").mkdir()
    paths = [str(tmp_path / "shop" / "docs" / "auth.md"), str(tmp_path / "shop" / "src")]
    r = forge_cli([*paths, "--model", MODEL, "--auto", "--no-embeddings", "--no-report"],
                  cwd=tmp_path / "elsewhere", settings=neo4j_settings)
    assert r.returncode == 0, r.stderr
    stored = {s.path for s in store.read(lambda tx: tx.sources())}
    assert "docs/auth.md" in stored and any(p.startswith("src/") for p in stored)
    assert store.read(lambda tx: tx.project_root()) == str((tmp_path / "shop").resolve())
    # the run recorded its root: status and stale read it from any folder, --root or not
    for extra in ([], ["--root", str(tmp_path / "shop")]):
        status = forge_cli(["status", *extra, "--json"], cwd=tmp_path / "elsewhere",
                           settings=neo4j_settings)
        assert {s["status"] for s in json.loads(status.stdout)} == {"unchanged"}
    stale = forge_cli(["stale", "--json"], cwd=tmp_path, settings=neo4j_settings)
    assert json.loads(stale.stdout) == {"stale": []}


@pytest.mark.neo4j
def test_a_run_and_accept_from_a_subfolder_pin_paths_under_the_recorded_root(
        store, neo4j_settings, tmp_path):
    """`cd docs && forge .` read the files against docs/ (paths `auth.md`), which `sources`
    then called missing under the memory's root."""
    shutil.copytree(EXAMPLE / "docs", tmp_path / "shop" / "docs")
    run = dict(cwd=tmp_path / "shop" / "docs", settings=neo4j_settings)
    init = cli("engine", ["init", "--root", ".."], **run)
    assert init.returncode == 0, init.stderr
    dry = forge_cli([".", "--dry-run", "--no-embeddings"], **run)
    assert dry.returncode == 0, dry.stderr
    assert "chunk docs/auth.md:1-" in dry.stdout and "chunk auth.md" not in dry.stdout
    first = forge_cli([".", "--model", MODEL, "--no-embeddings", "--no-report"], **run)
    assert first.returncode == 0, first.stderr
    acc = forge_cli(["accept", "proposed-premises.md", "--no-embeddings", "--json"], **run)
    assert acc.returncode == 0, acc.stderr
    assert {s.path for s in store.read(lambda tx: tx.sources())} >= {"docs/auth.md"}
    status = cli("engine", ["sources", "status", "--json"], **run)
    rows = json.loads(status.stdout)["beliefs"]
    assert rows and {r["state"] for r in rows} == {"unchanged"}
    assert all(r["path"].startswith("docs/") for r in rows)


@pytest.mark.neo4j
def test_the_pipeline_converges_on_the_example(store, neo4j_settings, tmp_path):
    r = cli("engine.pipeline", [str(EXAMPLE), "--model", "py:tests.forge_fakes:pipeline_model",
                                "--no-embeddings", "--report-dir", str(tmp_path / "reports"),
                                "--root", str(EXAMPLE)],
            cwd=tmp_path, settings=neo4j_settings)
    assert r.returncode == 0, r.stderr
    assert "pipeline: complete, stopped: pass 2 changed nothing" in r.stdout
    assert "not in this build yet" not in r.stdout
    lines = [line for line in r.stderr.splitlines() if line.startswith("pass ")]
    assert lines[0].startswith("pass 0 forge: complete") and len(lines) == 11
    assert lines[1].startswith("pass 1 derive: complete") and ", 1 added," in lines[1]
    assert lines[2].startswith("pass 1 review: complete") and "1 judged" in lines[2]
    # nothing defeated: repair and the review of what it produced have nothing to do
    assert lines[3].startswith("pass 1 repair: complete") and ", 0 repaired," in lines[3]
    assert lines[4].startswith("pass 1 review: complete") and "0 judged" in lines[4]
    assert lines[5].startswith("pass 1 dedup: complete") and ", 0 merged," in lines[5]
    assert ", 0 added," in lines[6] and lines[7].startswith("pass 2 review: complete")
    assert lines[8].startswith("pass 2 repair: complete")
    assert lines[10].startswith("pass 2 dedup: complete")
    derived = store.read(lambda tx: tx.list_beliefs(BeliefFilter(premises=False)))
    assert len(derived) == 1 and derived[0].truth == Truth.IN
    assert {p.name.split("-")[0] for p in (tmp_path / "reports").glob("*.json")} == {
        "forge", "derive", "review", "repair", "dedup"}


@pytest.mark.neo4j
def test_the_pipeline_can_leave_reviews_verdicts_in_a_file(store, neo4j_settings, tmp_path):
    verdicts = tmp_path / "verdicts.md"
    r = cli("engine.pipeline", [str(EXAMPLE), "--model", "py:tests.forge_fakes:pipeline_model",
                                "--no-embeddings", "--report-dir", str(tmp_path / "reports"),
                                "--root", str(EXAMPLE), "--max-passes", "1",
                                "--review-apply", "never", "--review-output", str(verdicts)],
            cwd=tmp_path, settings=neo4j_settings)
    assert r.returncode == 0, r.stderr
    line, after = [x for x in r.stderr.splitlines() if x.startswith("pass 1 review:")]
    assert "skipped: nothing was repaired" in after
    assert ", 0 defeated," in line and "1 verdict(s) in" in line
    assert f"python -m engine.review accept {verdicts}" in line
    assert '"id": "shop-risk-from-' in verdicts.read_text()
    accepted = cli("engine.review", ["accept", str(verdicts)], cwd=tmp_path,
                   settings=neo4j_settings)
    assert accepted.returncode == 0, accepted.stderr


def test_review_apply_takes_only_never_or_auto(tmp_path):
    r = cli("engine.pipeline", [str(EXAMPLE), "--model", MODEL, "--review-apply", "sometimes"],
            cwd=tmp_path)
    assert r.returncode == 2 and "--review-apply" in r.stderr
