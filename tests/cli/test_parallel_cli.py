"""`--parallel N` as a user gives it: a bad value is a usage error naming the flag (exit 2,
nothing written) on every stage that has it; a review run records N in its report."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.derive_fakes import load
from tests.parallel_fakes import KEYED_ENV, layered_network
from tests.in_process import program

ROOT = Path(__file__).resolve().parents[2]
MODEL = "py:tests.parallel_fakes:keyed_critic_from_env"


def stage_cli(module, args, *, cwd, settings=None, critic=None, timeout=120):
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    env["PYTHONPATH"] = str(ROOT)
    if settings is not None:
        env.update(NEO4J_URI=settings.uri, NEO4J_USER=settings.user,
                   NEO4J_PASSWORD=settings.password or "", NEO4J_DATABASE=settings.database)
    else:
        env["NEO4J_URI"] = "bolt://127.0.0.1:1"  # nothing there: usage errors come first
    if critic is not None:
        env[KEYED_ENV] = json.dumps(critic)
    return program(module, args, env, cwd=cwd)


STAGES = [("engine.review", []), ("engine.dedup", []), ("engine.contradictions", []),
          ("engine.forge", ["notes.md"])]


BAD = [("0", "must be at least 1, got 0"), ("-3", "must be at least 1, got -3"),
       ("2.5", "not a whole number: '2.5'"), ("many", "not a whole number: 'many'")]


@pytest.mark.parametrize("module, first, value, message",
                         [("engine.review", [], *bad) for bad in BAD]
                         + [(module, first, *BAD[0]) for module, first in STAGES[1:]])
def test_a_bad_parallel_value_is_a_usage_error(tmp_path, module, first, value, message):
    r = stage_cli(module, [*first, "--model", "x", "--auto", "--parallel", value], cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    (line,) = [ln for ln in r.stderr.splitlines() if "error:" in ln]
    assert f"argument --parallel: {message}" in line and "Traceback" not in r.stderr
    assert list(tmp_path.iterdir()) == []  # no report, no proposals file


def test_every_parallel_stage_documents_the_flag_and_derive_has_none(tmp_path):
    for module, _ in STAGES:
        r = stage_cli(module, ["--help"], cwd=tmp_path)
        assert r.returncode == 0 and "--parallel N" in r.stdout, module
    d = stage_cli("engine.derive", ["--model", "x", "--parallel", "2"], cwd=tmp_path)
    assert d.returncode == 2 and "unrecognized arguments: --parallel" in d.stderr


@pytest.mark.neo4j
@pytest.mark.slow
def test_a_parallel_review_run_records_n_in_its_report(store, neo4j_settings, tmp_path):
    load(store, layered_network(width=4, layers=1))
    r = stage_cli("engine.review", ["--model", MODEL, "--exhaust", "--parallel", "3", "--json"],
                  cwd=tmp_path, settings=neo4j_settings, critic={"seconds": 0.2})
    assert r.returncode == 0, r.stderr
    printed = json.loads(r.stdout)
    assert printed["status"] == "complete" and printed["totals"]["applied"] == 4
    report = json.loads(Path(tmp_path, printed["report"]).read_text())
    assert report["parallel"] == 3 and report["params"]["parallel"] == 3
    assert report["totals"]["rate_limited"] == 0
