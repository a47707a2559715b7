"""`python -m engine.derive` as a user runs it: exit codes, output, files, against the real
store, with a scripted model loaded through the `py:` plug-in back-end (and `replay:`)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine import tms
from engine.model import Truth
from tests.derive_fakes import SCRIPT_ENV, block, load, premise, reply
from tests.in_process import program

ROOT = Path(__file__).resolve().parents[2]
MODEL = "py:tests.derive_fakes:scripted_from_env"
PREMISES = [premise("auth-jwt", "Auth validates JWTs."), premise("auth-refresh", "One thread."),
            premise("db-pool", "Pool of 10."), premise("db-sync", "Sync writes.")]
GOOD = reply(block("auth-slow", ["auth-jwt", "auth-refresh"]),
             block("db-slow", ["db-pool", "db-sync"], mode="ANY"))


def derive_cli(args, *, cwd, settings=None, script=None, timeout=120):
    # the graph NEO4J_URI names (the tests' memory set aside: it would come first)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "EEM_MEMORY"))}
    env["PYTHONPATH"] = str(ROOT)
    if settings is not None:
        env.update(NEO4J_URI=settings.uri, NEO4J_USER=settings.user,
                   NEO4J_PASSWORD=settings.password or "", NEO4J_DATABASE=settings.database)
    else:
        # nothing there: usage errors come first
        env.update(NEO4J_URI="bolt://127.0.0.1:1", NEO4J_PASSWORD="none-needed")
    if script is not None:
        env[SCRIPT_ENV] = json.dumps(script)
    return program("engine.derive", args, env, cwd=cwd)


# --- usage: no server needed -----------------------------------------------------------
def test_help_has_examples(tmp_path):
    r = derive_cli(["--help"], cwd=tmp_path)
    assert r.returncode == 0
    assert "examples:" in r.stdout and "--exhaust" in r.stdout and "accept" in r.stdout
    a = derive_cli(["accept", "--help"], cwd=tmp_path)
    assert a.returncode == 0 and "example:" in a.stdout and "FILE" in a.stdout


@pytest.mark.parametrize("args, message", [
    (["--model", "x", "--bogus"], "unrecognized arguments: --bogus"),
    (["--model", "x", "--sample", "--cluster"], "--sample and --cluster/--intra-cluster"),
    (["--model", "x", "--sample", "--intra-cluster"], "--sample and --cluster/--intra-cluster"),
    ([], "--model is required"),
    (["--model", "x", "--budget", "0"], "must be at least 1"),
    (["--model", "x", "--out-similarity", "1.5"], "must be in (0, 1]"),
    (["--model", "x", "--n-clusters", "4"], "need --cluster or --intra-cluster"),
    (["--model", "x", "--auto", "-o", "f.md"], "-o/--output is for runs without --auto"),
    (["--model", "x", "--dry-rounds", "2"], "--dry-rounds needs --exhaust"),
    (["accept"], "the following arguments are required: FILE"),
    (["accept", "f.md", "--bogus"], "unrecognized arguments"),
])
def test_usage_errors_exit_2(tmp_path, args, message):
    r = derive_cli(args, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "reports").exists()


def test_an_unknown_model_is_refused_before_any_work(tmp_path):
    r = derive_cli(["--model", "nosuch:thing", "--auto"], cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.startswith("Error: unknown model 'nosuch:thing'")
    assert not (tmp_path / "reports").exists()


def test_an_unreachable_store_is_one_line(tmp_path):
    r = derive_cli(["--dry-run"], cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.startswith("Error: cannot reach Neo4j")
    assert "Traceback" not in r.stderr


def test_importing_derive_loads_no_heavy_package():
    code = (
        "import sys\n"
        "import engine.cli.derive, engine.derive.run, engine.stages.rounds, engine.derive.accept\n"
        "import engine.derive.sampling, engine.derive.prompt, engine.derive.parser\n"
        "from engine.cli.derive import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = ['torch', 'sentence_transformers', 'sklearn', 'llama_cpp', 'langchain_openai',"
        " 'langchain_anthropic', 'langchain_ollama', 'openai', 'anthropic', 'ollama', 'neo4j']\n"
        "print([m for m in heavy if m in sys.modules])\n"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "[]"


# --- against the real store ------------------------------------------------------------
pytestmark_neo4j = pytest.mark.neo4j


@pytest.fixture
def network(store):
    load(store, PREMISES)
    return store


@pytestmark_neo4j
def test_dry_run_prints_the_prompt_and_calls_no_model(network, neo4j_settings, tmp_path):
    r = derive_cli(["--dry-run", "--budget", "2", "--domain", "a web shop"], cwd=tmp_path,
                   settings=neo4j_settings)
    assert r.returncode == 0, r.stderr
    assert "## Existing Beliefs" in r.stdout and "### auth (2 beliefs, showing 2)" in r.stdout
    assert "The beliefs in this network are about: a web shop" in r.stdout
    assert not (tmp_path / "reports").exists()


@pytestmark_neo4j
def test_auto_run_applies_and_reports(network, neo4j_settings, tmp_path):
    r = derive_cli(["--model", MODEL, "--auto"], cwd=tmp_path, settings=neo4j_settings,
                   script=[GOOD])
    assert r.returncode == 0, r.stderr
    assert "round 1: proposed: 4 shown, 2 proposed, 2 valid, 2 applied" in r.stderr
    assert "round" in r.stdout and "total" in r.stdout  # the summary table
    (path,) = (tmp_path / "reports").glob("derive-*.json")
    assert f"report: {Path('reports') / path.name}" in r.stdout
    report = json.loads(path.read_text())
    assert report["status"] == "complete" and report["model"] == MODEL
    assert report["params"]["auto"] is True and report["params"]["strategy"] == "alphabetical"
    assert report["totals"]["applied"] == 2
    beliefs = network.read(lambda tx: tx.get_beliefs(["auth-slow", "db-slow"]))
    assert {i: b.truth for i, b in beliefs.items()} == {"auth-slow": Truth.IN,
                                                        "db-slow": Truth.IN}


@pytestmark_neo4j
def test_a_failing_model_exits_1_with_nothing_applied(network, neo4j_settings, tmp_path):
    r = derive_cli(["--model", MODEL, "--exhaust", "--json"], cwd=tmp_path,
                   settings=neo4j_settings,
                   script=[{"raise": "ValueError", "message": "400 invalid request"}])
    assert r.returncode == 1
    assert "Error: the model failed: ValueError: 400 invalid request" in r.stderr
    out = json.loads(r.stdout)
    assert out["status"] == "error" and out["totals"]["applied"] == 0
    report = json.loads(Path(tmp_path, out["report"]).read_text())
    assert report["status"] == "error" and report["rounds"][0]["outcome"] == "error"
    assert tms.status(network).derived == 0


@pytestmark_neo4j
def test_garbage_replies_are_diagnosed_not_fatal(network, neo4j_settings, tmp_path):
    r = derive_cli(["--model", MODEL, "--exhaust", "--max-rounds", "2", "--no-report"],
                   cwd=tmp_path, settings=neo4j_settings,
                   script=["", "}}}{{{", "\x00" * 50, "NO PROPOSALS"])
    assert r.returncode == 0, r.stderr
    assert "round 1: format_failure" in r.stderr and "round 2: dry" in r.stderr
    assert not (tmp_path / "reports").exists()


@pytestmark_neo4j
def test_proposals_file_then_accept(network, neo4j_settings, tmp_path):
    r = derive_cli(["--model", MODEL], cwd=tmp_path, settings=neo4j_settings, script=[GOOD])
    assert r.returncode == 0, r.stderr
    proposals = tmp_path / "proposed-derivations.md"
    assert "### DERIVE auth-slow" in proposals.read_text()
    assert "accept proposed-derivations.md" in r.stdout
    assert tms.status(network).derived == 0
    a = derive_cli(["accept", "proposed-derivations.md", "--json"], cwd=tmp_path,
                   settings=neo4j_settings)
    assert a.returncode == 0, a.stderr
    out = json.loads(a.stdout)
    assert out["applied"] == [{"id": "auth-slow", "truth_value": "IN"},
                              {"id": "db-slow", "truth_value": "IN"}]
    again = derive_cli(["accept", "proposed-derivations.md"], cwd=tmp_path,
                       settings=neo4j_settings)
    assert again.returncode == 0 and "skipped auth-slow: already exists" in again.stdout
    missing = derive_cli(["accept", "nope.md"], cwd=tmp_path, settings=neo4j_settings)
    assert missing.returncode == 2 and missing.stderr.startswith("Error: cannot read nope.md")


@pytestmark_neo4j
def test_replay_re_runs_a_recorded_run(network, store, neo4j_settings, tmp_path):
    first = derive_cli(["--model", MODEL, "--exhaust"], cwd=tmp_path, settings=neo4j_settings,
                       script=["not the format", GOOD, "NO PROPOSALS"])
    assert first.returncode == 0, first.stderr
    (path,) = (tmp_path / "reports").glob("derive-*.json")
    before = {b.id: b.truth for b in tms.list_beliefs(network)}
    tms.reset(store)
    load(store, PREMISES)
    again = derive_cli(["--model", f"replay:{path}", "--exhaust", "--no-report"], cwd=tmp_path,
                       settings=neo4j_settings)
    assert again.returncode == 0, again.stderr
    assert {b.id: b.truth for b in tms.list_beliefs(store)} == before


# --- in process, on the in-memory store (the same main(), its outside things swapped) ----
def wiring_for(fake_store, script):
    """main's `context` (the in-memory store) and `parts` (a scripted model)."""
    from engine.service.context import Context
    from engine.stages.contract import ModelBinding, unconstrained
    from engine.wiring.parts import StageParts
    from tests.derive_fakes import ScriptedChatModel

    chat = ScriptedChatModel(script=script)
    return {"context": Context(fake_store), "parts": StageParts(
        model=lambda spec: ModelBinding(unconstrained(chat), is_transient=lambda e: False))}


def test_in_process_run_and_exit_codes(tmp_path, capsys, monkeypatch):
    from engine.cli.derive import main
    from tests.fakes import FakeStore

    monkeypatch.chdir(tmp_path)
    fake = FakeStore()
    load(fake, PREMISES)
    assert main(["--model", "fake", "--exhaust", "--no-report"],
                **wiring_for(fake, [GOOD, "NO PROPOSALS"])) == 0
    out, err = capsys.readouterr()
    assert "stopped: 1 consecutive dry round(s)" in out
    assert "round 1/10: asking the model..." in err
    assert fake.state.beliefs["auth-slow"].truth == Truth.IN

    assert main(["--model", "fake", "--exhaust", "--no-report", "--quiet"],
                **wiring_for(fake, [ConnectionError("refused")])) == 1
    assert capsys.readouterr().err.startswith("Error: the model failed: ConnectionError: refused")
