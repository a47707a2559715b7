"""`python -m engine.review` as a user runs it: exit codes, output, files, against the real
store, with a scripted model loaded through the `py:` plug-in back-end."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from engine import tms
from engine.review.verdicts import defeater_id
from tests.derive_fakes import SCRIPT_ENV
from tests.review_fakes import loaded, reply, verdict
from tests.in_process import program

ROOT = Path(__file__).resolve().parents[2]
MODEL = "py:tests.derive_fakes:scripted_from_env"
ROUND1 = reply(verdict("either", 1, mode="ANY"), verdict("either", 2, mode="ANY"),
               verdict("mixed", 1, False),
               verdict("mixed", 2), verdict("solo", 1, False))
ROUND2 = reply(verdict("chain", 1))


def review_cli(args, *, cwd, settings=None, script=None, timeout=120):
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    env["PYTHONPATH"] = str(ROOT)
    if settings is not None:
        env.update(NEO4J_URI=settings.uri, NEO4J_USER=settings.user,
                   NEO4J_PASSWORD=settings.password or "", NEO4J_DATABASE=settings.database)
    else:
        env["NEO4J_URI"] = "bolt://127.0.0.1:1"  # nothing there: usage errors come first
    if script is not None:
        env[SCRIPT_ENV] = json.dumps(script)
    return program("engine.review", args, env, cwd=cwd)


def test_help_has_examples(tmp_path):
    r = review_cli(["--help"], cwd=tmp_path)
    assert r.returncode == 0
    for flag in ("--budget", "--ids", "--min-depth", "--all", "--apply-suggestions",
                 "--exhaust", "--structured", "examples:"):
        assert flag in r.stdout
    a = review_cli(["accept", "--help"], cwd=tmp_path)
    assert a.returncode == 0 and "example:" in a.stdout and "--apply-suggestions" in a.stdout


@pytest.mark.parametrize("args, message", [
    ([], "--model is required"),
    (["--model", "x", "--budget", "0"], "must be at least 1"),
    (["--model", "x", "--ids", "Bad Id"], "invalid belief id"),
    (["--model", "x", "--ids", ","], "give belief ids separated by commas"),
    (["--model", "x", "--min-depth", "-1"], "must be 0 or more"),
    (["--model", "x", "--auto", "-o", "f.md"], "-o/--output is for runs without --auto"),
    (["accept"], "the following arguments are required: FILE"),
])
def test_usage_errors_exit_2(tmp_path, args, message):
    r = review_cli(args, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("args, message", [
    (["--premises", "--min-depth", "2"], "Error: --min-depth is for derived beliefs: every "
                                         "premise is at depth 0"),
    (["--premises", "--min-depth", "0"], "Error: --min-depth is for derived beliefs"),
    (["--premises", "--no-wait"], "Error: --no-wait is for derived beliefs"),
])
@pytest.mark.parametrize("mode", [["--model", "x"], ["--dry-run"]])
def test_derived_only_flags_with_premises_are_one_error_line(tmp_path, args, message, mode):
    """--min-depth was silently ignored with --premises (every premise is at depth 0)."""
    r = review_cli([*mode, *args], cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(message), r.stderr
    assert r.stdout == "" and list(tmp_path.iterdir()) == []


@pytest.fixture
def network(store):
    return loaded(store)


@pytest.mark.neo4j
def test_dry_run_prints_the_prompt(network, neo4j_settings, tmp_path):
    r = review_cli(["--dry-run", "--budget", "2"], cwd=tmp_path, settings=neo4j_settings)
    assert r.returncode == 0, r.stderr
    assert "### either (depth 1)" in r.stdout and "### mixed (depth 1)" in r.stdout
    assert "### solo" not in r.stdout and "2 of 3 beliefs due for review" in r.stdout
    assert not (tmp_path / "reports").exists()


@pytest.mark.neo4j
def test_verdicts_file_then_accept(network, neo4j_settings, tmp_path):
    r = review_cli(["--model", MODEL], cwd=tmp_path, settings=neo4j_settings, script=[ROUND1])
    assert r.returncode == 0, r.stderr
    assert "accept proposed-review.md" in r.stdout
    assert "### solo, justification 1: NOT VALID" in (tmp_path / "proposed-review.md").read_text()
    assert tms.show(network, "solo")[0].truth.value == "IN"  # nothing written
    a = review_cli(["accept", "proposed-review.md", "--json"], cwd=tmp_path,
                   settings=neo4j_settings)
    assert a.returncode == 0, a.stderr
    out = json.loads(a.stdout)
    assert [e["action"] for e in out["applied"]] == [
        "valid", "valid", "defeated", "valid", "defeated"]
    assert out["change"]["went_out"] == ["solo", "top"]
    assert tms.verify(network) == []


@pytest.mark.neo4j
def test_auto_exhaust_reviews_everything_due(network, neo4j_settings, tmp_path):
    r = review_cli(["--model", MODEL, "--exhaust"], cwd=tmp_path, settings=neo4j_settings,
                   script=[ROUND1, ROUND2])
    assert r.returncode == 0, r.stderr
    assert "round 1: proposed: 3 shown" in r.stderr and "round 2: proposed: 1 shown" in r.stderr
    assert "round 3: empty" in r.stderr
    (path,) = (tmp_path / "reports").glob("review-*.json")
    report = json.loads(path.read_text())
    assert report["stage"] == "review" and report["status"] == "complete"
    assert tms.show(network, defeater_id("solo", 1))[0].truth.value == "IN"
    assert tms.verify(network) == []


@pytest.mark.neo4j
def test_an_unusable_verdicts_file_is_one_line_and_exit_2(network, neo4j_settings, tmp_path):
    (tmp_path / "v.md").write_text("no verdicts here")
    r = review_cli(["accept", "v.md"], cwd=tmp_path, settings=neo4j_settings)
    assert r.returncode == 2 and r.stderr.startswith("Error: ") and "nothing to accept" in r.stderr
