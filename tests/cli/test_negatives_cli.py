"""`python -m engine.negatives` as a user runs it against the real Neo4j, with a scripted
model through the `py:` plug-in back-end: a dry run, a run that keeps its verdicts, `list
--negative`, a verdict gone stale with its text, and derive's prompt offering the problem."""
from __future__ import annotations

import json
import os

import pytest

from engine import tms
from tests.cli.test_tms_cli import ROOT
from tests.derive_fakes import SCRIPT_ENV
from tests.in_process import program as in_process

MODEL = "py:tests.derive_fakes:scripted_from_env"


def program_env(settings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    env["PYTHONPATH"] = str(ROOT)
    if settings is None:
        env["NEO4J_URI"] = "bolt://127.0.0.1:1"  # nothing there: usage errors come first
    else:
        env.update(NEO4J_URI=settings.uri, NEO4J_USER=settings.user,
                   NEO4J_PASSWORD=settings.password or "", NEO4J_DATABASE=settings.database)
    return env


def program(module, args, *, cwd, settings=None, script=None):
    env = program_env(settings)
    if script is not None:
        env[SCRIPT_ENV] = json.dumps(script)
    return in_process(module, args, env, cwd=cwd)


def test_help_has_examples_and_usage_errors_exit_2(tmp_path):
    h = program("engine.negatives", ["--help"], cwd=tmp_path)
    assert h.returncode == 0
    for flag in ("--budget", "--ids", "--every", "--all", "--exhaust", "examples:"):
        assert flag in h.stdout
    a = program("engine.negatives", ["accept", "--help"], cwd=tmp_path)
    assert a.returncode == 0 and "example:" in a.stdout
    bad = program("engine.negatives", ["--model", "x", "--budget", "0"], cwd=tmp_path)
    assert bad.returncode == 2 and "must be at least 1" in bad.stderr


@pytest.mark.neo4j
def test_classify_list_negative_and_derive_offers_it(store, driver, neo4j_settings, tmp_path):
    tms.add(store, "auth-keys", "Auth fetches signing keys on every request.")
    tms.add(store, "auth-timeout-bug", "Key fetches fail with a timeout under load.")
    tms.add(store, "auth-retry", "Auth retries a failed fetch three times.")
    dry = program("engine.negatives", ["--dry-run"], cwd=tmp_path, settings=neo4j_settings)
    assert dry.returncode == 0, dry.stderr
    assert "- `auth-timeout-bug`: Key fetches fail" in dry.stdout
    assert "`auth-keys`" not in dry.stdout  # no problem word: not sent
    reply = json.dumps({"verdicts": [
        {"id": "auth-retry", "negative": False, "kind": "", "comment": "designed"},
        {"id": "auth-timeout-bug", "negative": True, "kind": "bug", "comment": "it fails"}]})
    run = program("engine.negatives", ["--model", MODEL, "--auto"], cwd=tmp_path,
                  settings=neo4j_settings, script=[reply])
    assert run.returncode == 0, run.stderr

    listed = program("engine", ["list", "--negative", "--json"], cwd=tmp_path,
                     settings=neo4j_settings)
    assert listed.returncode == 0, listed.stderr
    assert [(b["id"], b["negative"]) for b in json.loads(listed.stdout)["beliefs"]] == [
        ("auth-timeout-bug", "bug")]
    with driver.session(database=neo4j_settings.database) as session:
        edges = session.run("MATCH (r:Round {stage: 'negatives'})-[c:CLASSIFIED]->(b:Belief) "
                            "RETURN b.id AS id, c.kind AS kind, c.negative AS negative "
                            "ORDER BY id").data()
    assert edges == [{"id": "auth-retry", "kind": "", "negative": False},
                     {"id": "auth-timeout-bug", "kind": "bug", "negative": True}]
    after = program("engine.negatives", ["--dry-run"], cwd=tmp_path, settings=neo4j_settings)
    assert after.stdout == "" and "nothing is due (3 IN beliefs: 2 with a verdict" in after.stderr

    derive = program("engine.derive", ["--dry-run", "--budget", "2"], cwd=tmp_path,
                     settings=neo4j_settings)
    assert derive.returncode == 0, derive.stderr
    assert "## Known Problems" in derive.stdout
    assert "- `auth-timeout-bug` (bug): Key fetches fail with a timeout under load." in (
        derive.stdout)

    with driver.session(database=neo4j_settings.database) as session:
        session.run("MATCH (b:Belief {id: 'auth-timeout-bug'}) SET b.text = 'Fetches are "
                    "cached now.'").consume()
    relisted = program("engine", ["list", "--negative"], cwd=tmp_path, settings=neo4j_settings)
    assert relisted.stdout.startswith("no belief is known to state a problem")
