"""`python -m engine.dedup` and `python -m engine.contradictions` as a user runs them: exit
codes, output, files, against the real store, with a scripted model through the `py:` plug-in
and id-token candidates (--by-id: no embedding model in a subprocess)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from engine import tms
from engine.model import Truth
from tests.derive_fakes import SCRIPT_ENV, derived, load, premise
from tests.in_process import program

ROOT = Path(__file__).resolve().parents[2]
MODEL = "py:tests.derive_fakes:scripted_from_env"
NETWORK = [premise("cache-reads-stale", "Cached reads can be stale."),
           premise("cache-reads-stale-sometimes", "Reads from the cache are sometimes stale."),
           premise("queue-durable", "The queue is durable."),
           derived("needs-invalidation", ["cache-reads-stale-sometimes", "queue-durable"],
                   text="Invalidation is needed.")]
SAME = json.dumps({"verdicts": [{"cluster": 1, "verdict": "SAME", "keep": "cache-reads-stale",
                                 "same": ["cache-reads-stale", "cache-reads-stale-sometimes"]}]})


def cli(module, args, *, cwd, settings=None, script=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    env["PYTHONPATH"] = str(ROOT)
    if settings is not None:
        env.update(NEO4J_URI=settings.uri, NEO4J_USER=settings.user,
                   NEO4J_PASSWORD=settings.password or "", NEO4J_DATABASE=settings.database)
    else:
        env["NEO4J_URI"] = "bolt://127.0.0.1:1"
    if script is not None:
        env[SCRIPT_ENV] = json.dumps(script)
    return program(module, args, env, cwd=cwd)


@pytest.mark.parametrize("module, sub", [("engine.dedup", []), ("engine.dedup", ["accept"]),
                                         ("engine.dedup", ["undo"]),
                                         ("engine.contradictions", []),
                                         ("engine.contradictions", ["accept"])])
def test_help_has_examples(tmp_path, module, sub):
    r = cli(module, [*sub, "--help"], cwd=tmp_path)
    assert r.returncode == 0 and "example" in r.stdout


@pytest.mark.parametrize("module, args, message", [
    ("engine.dedup", [], "--model is required"),
    ("engine.dedup", ["--model", "x", "--k", "0"], "must be at least 1"),
    ("engine.dedup", ["--model", "x", "--auto", "-o", "f.md"], "-o/--output is for runs"),
    ("engine.dedup", ["undo"], "the following arguments are required: ID"),
    ("engine.contradictions", ["--model", "x", "--no-meaning", "--no-siblings"],
     "leave no candidate pairs"),
])
def test_usage_errors_exit_2(tmp_path, module, args, message):
    r = cli(module, args, cwd=tmp_path)
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr


@pytest.mark.neo4j
def test_a_bad_threshold_is_one_line_and_exit_2(tmp_path, store, neo4j_settings):
    r = cli("engine.dedup", ["--candidates", "--by-id", "--threshold", "1.5"], cwd=tmp_path,
            settings=neo4j_settings)
    assert r.returncode == 2 and r.stderr.startswith("Error: --threshold must be in")


@pytest.mark.neo4j
def test_candidates_lists_clusters_and_writes_nothing(tmp_path, store, neo4j_settings):
    load(store, NETWORK)
    r = cli("engine.dedup", ["--candidates", "--by-id", "--threshold", "0.6", "--json"],
            cwd=tmp_path, settings=neo4j_settings)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["clusters"] == [
        {"members": ["cache-reads-stale", "cache-reads-stale-sometimes"], "score": 0.75}]
    assert store.read(lambda tx: tx.pair_verdicts("dedup")) == []


@pytest.mark.neo4j
def test_propose_accept_undo(tmp_path, store, neo4j_settings):
    load(store, NETWORK)
    r = cli("engine.dedup", ["--model", MODEL, "--by-id", "--threshold", "0.6", "--no-report"],
            cwd=tmp_path, settings=neo4j_settings, script=[SAME])
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "proposed-dedup.md").is_file()
    assert store.read(lambda tx: tx.pair_verdicts("dedup")) == []
    a = cli("engine.dedup", ["accept", "proposed-dedup.md"], cwd=tmp_path,
            settings=neo4j_settings)
    assert a.returncode == 0, a.stderr
    assert "applied cache-reads-stale-sometimes" in a.stdout
    got = store.read(lambda tx: tx.get_beliefs(["cache-reads-stale-sometimes",
                                                 "needs-invalidation"]))
    assert got["cache-reads-stale-sometimes"].truth == Truth.OUT
    assert got["needs-invalidation"].justifications[0].antecedents[0] == "cache-reads-stale"
    assert tms.verify(store) == []
    u = cli("engine.dedup", ["undo", "cache-reads-stale-sometimes", "--json"], cwd=tmp_path,
            settings=neo4j_settings)
    assert u.returncode == 0 and "cache-reads-stale-sometimes" in json.loads(u.stdout)["went_in"]
    again = cli("engine.dedup", ["undo", "cache-reads-stale-sometimes"], cwd=tmp_path,
                settings=neo4j_settings)
    assert again.returncode == 2 and again.stderr.startswith("Error: no merge of belief")


@pytest.mark.neo4j
def test_auto_exhaust_with_the_retry(tmp_path, store, neo4j_settings):
    load(store, NETWORK)
    r = cli("engine.dedup", ["--model", MODEL, "--by-id", "--threshold", "0.6", "--exhaust",
                             "--json"], cwd=tmp_path, settings=neo4j_settings,
            script=["They are the same.", SAME])
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["status"] == "complete"
    report = json.loads(Path(tmp_path, out["report"]).read_text())
    assert report["stage"] == "dedup"
    rows = store.read(lambda tx: tx.run_pack_query("merged", {})).rows
    assert [(row[0], row[1]) for row in rows] == [("cache-reads-stale-sometimes",
                                                   "cache-reads-stale")]


@pytest.mark.neo4j
def test_contradictions_auto_records_a_nogood(tmp_path, store, neo4j_settings):
    load(store, [premise("base"), derived("failover-instant", ["base"]),
                 derived("failover-slow", ["base"])])
    reply = json.dumps({"pairs": [{"pair": 1, "verdict": "CONTRADICTION", "comment": "x"}]})
    r = cli("engine.contradictions", ["--model", MODEL, "--no-meaning", "--auto",
                                      "--no-report"], cwd=tmp_path, settings=neo4j_settings,
            script=[reply])
    assert r.returncode == 0, r.stderr
    rows = store.read(lambda tx: tx.run_pack_query("contradictions", {})).rows
    assert [(row[0], row[2]) for row in rows] == [
        ("contradiction:failover-instant:failover-slow", "contradictions")]
    assert store.read(lambda tx: tx.get_beliefs(["base"]))["base"].truth == Truth.OUT
