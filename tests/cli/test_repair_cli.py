"""`python -m engine.repair` as a user runs it: exit codes, output, files, against the real
store, with a scripted model loaded through the `py:` plug-in back-end."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from engine import tms
from tests.derive_fakes import SCRIPT_ENV
from tests.repair_fakes import defeated_network, repair, reply
from tests.in_process import program

ROOT = Path(__file__).resolve().parents[2]
MODEL = "py:tests.derive_fakes:scripted_from_env"
REPAIRS = reply(repair("solo", 1, "link", bridges=["p5"]), repair("mixed", 1, "abandon"),
                repair("cache", 1, "abandon"),
                repair("gateway", 1, "research", text="Gateway latency is measured."))


def repair_cli(args, *, cwd, settings=None, script=None, timeout=180):
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    env["PYTHONPATH"] = str(ROOT)
    if settings is not None:
        env.update(NEO4J_URI=settings.uri, NEO4J_USER=settings.user,
                   NEO4J_PASSWORD=settings.password or "", NEO4J_DATABASE=settings.database)
    else:
        env["NEO4J_URI"] = "bolt://127.0.0.1:1"  # nothing there: usage errors come first
    if script is not None:
        env[SCRIPT_ENV] = json.dumps(script)
    return program("engine.repair", args, env, cwd=cwd)


@pytest.mark.parametrize("args, message", [
    ([], "--model is required"),
    (["--model", "x", "--budget", "0"], "must be at least 1"),
    (["--model", "x", "--bridges", "-1"], "must be 0 or more"),
    (["--model", "x", "--auto", "-o", "f.md"], "-o/--output is for runs without --auto"),
    (["accept"], "the following arguments are required: FILE"),
    (["gaps", "--limit", "0"], "must be at least 1"),
])
def test_usage_errors_exit_2(tmp_path, args, message):
    r = repair_cli(args, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr and "Traceback" not in r.stderr


@pytest.mark.neo4j
def test_repairs_file_then_accept_then_gaps(store, neo4j_settings, tmp_path):
    net = defeated_network(store)
    dry = repair_cli(["--dry-run", "--no-embeddings"], cwd=tmp_path, settings=neo4j_settings)
    assert dry.returncode == 0 and "### solo justification 1 (belief OUT)" in dry.stdout
    r = repair_cli(["--model", MODEL, "--no-embeddings"], cwd=tmp_path,
                   settings=neo4j_settings, script=[REPAIRS])
    assert r.returncode == 0, r.stderr
    assert "accept proposed-repairs.md" in r.stdout
    assert "### solo, justification 1: link" in (tmp_path / "proposed-repairs.md").read_text()
    assert tms.show(net, "solo")[0].truth.value == "OUT"  # nothing written
    a = repair_cli(["accept", "proposed-repairs.md", "--json"], cwd=tmp_path,
                   settings=neo4j_settings)
    assert a.returncode == 0, a.stderr
    out = json.loads(a.stdout)
    assert sorted(e["action"] for e in out["applied"]) == [
        "abandoned", "abandoned", "linked", "research recorded"]
    assert sorted(out["change"]["went_in"]) == ["solo", "top"]
    assert tms.verify(net) == []
    g = repair_cli(["gaps"], cwd=tmp_path, settings=neo4j_settings)
    assert g.returncode == 0 and "Gateway latency is measured." in g.stdout
    assert "1 of 1 gap(s)" in g.stdout
    bad = tmp_path / "r.md"
    bad.write_text("no repairs here")
    e = repair_cli(["accept", str(bad)], cwd=tmp_path, settings=neo4j_settings)
    assert e.returncode == 2 and e.stderr.startswith("Error: ")
    assert "nothing to accept" in e.stderr
