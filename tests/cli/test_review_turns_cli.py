"""`python -m engine.review --exhaust` on the real Neo4j with a model that passes over a
fixed set of beliefs (issue 40), as a user runs it: at --budget 10, smaller than that set,
every other due belief is judged, the run stops on k dry rounds and says so, the console and
the report name what was held back and the belief each waits on and what was never judged,
and the network ends as a --budget 200 run leaves it; --no-wait is documented, and refused
with --premises."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import tms
from tests.cli.test_parallel_cli import MODEL, stage_cli
from tests.derive_fakes import load
from tests.parallel_fakes import skipping_network
from tests.unit.review.test_turns import HELD, INVALID, SKIP

CRITIC = {"invalid": sorted(INVALID), "skip": sorted(SKIP)}


def review_run(store, settings, tmp_path: Path, budget: int, *extra: str):
    load(store, skipping_network())
    r = stage_cli("engine.review", ["--model", MODEL, "--exhaust", "--budget", str(budget),
                                    "--max-rounds", "30", *extra],
                  cwd=tmp_path, settings=settings, critic=CRITIC, timeout=300)
    assert r.returncode == 0, r.stderr
    (path,) = (tmp_path / "reports").glob("review-*.json")
    report = json.loads(path.read_text(encoding="utf-8"))
    state = {b.id: (b.truth.value, b.id in reviewed(store)) for b in tms.list_beliefs(store)}
    return r, report, state


def reviewed(store) -> set[str]:
    """The IN derived beliefs with a review."""
    return {c.id for c in store.read(lambda tx: tx.review_candidates()) if c.review_sha256}


def applied(report) -> set[tuple[str, bool]]:
    return {(a["id"], a["valid"]) for r in report["rounds"] for a in r["applied"]}


@pytest.mark.neo4j
@pytest.mark.slow
def test_budget_10_judges_all_but_the_skipped_and_ends_as_budget_200(
        store, driver, neo4j_settings, tmp_path):
    from tests.conftest import empty_graph

    small = tmp_path / "small"
    small.mkdir()
    r, report, state = review_run(store, neo4j_settings, small, 10)

    assert "stopped: 2 consecutive dry round(s)" in r.stdout
    assert report["stop_reason"] == "dry rounds" and report["status"] == "complete"
    assert report["unanswered"] == {b: (1 if b == "d1-23" else 2) for b in sorted(SKIP)}
    assert ("shown and never judged: 24: d1-00 (2x), d1-01 (2x), d1-02 (2x), d1-03 (2x), "
            "d1-04 (2x), d1-05 (2x), d1-06 (2x), d1-07 (2x) (+16 more)") in r.stdout.splitlines()
    # the console, per round: what was passed over, what is held back and on what
    assert ("round 1: passed over (no answer; shown again after the rest): d1-00#1, d1-01#1"
            in r.stderr)
    assert ("4 held back until what they rest on is reviewed, waiting on d1-20: d2-10; "
            "on d1-21: d2-11; on d1-22: d2-12; on d1-23: d2-13") in r.stderr
    assert "held back only by unanswered beliefs, shown once anyway: d2-10, d2-11" in r.stderr
    # the report, per round, names every held-back belief and what it waits on
    last_dry = [x for x in report["rounds"] if x["outcome"] == "dry"][-1]
    assert last_dry["waiting_on"] == HELD and last_dry["first_shown"] == 0
    judged = {a["belief"] for x in report["rounds"] for a in x["applied"]}
    layer1 = {f"d1-{i:02}" for i in range(40)}
    assert judged == (layer1 - SKIP) | {f"d2-0{i}" for i in range(8)} - {"d2-03"} | set(HELD)
    # the valid ones stay IN with a current review; the invalid ones and d2-03 are OUT
    assert {b for b, (_, done) in state.items() if done} == judged - INVALID
    assert {b for b, (truth, _) in state.items() if truth == "OUT"} == INVALID | {"d2-03"}
    rounds = len(report["rounds"])

    empty_graph(driver, neo4j_settings.database)
    big = tmp_path / "big"
    big.mkdir()
    r200, report200, state200 = review_run(store, neo4j_settings, big, 200)
    assert "stopped: nothing left to show" in r200.stdout
    assert applied(report200) == applied(report) and len(applied(report)) == 27
    assert state200 == state  # the same labels, the same beliefs reviewed
    assert rounds == 9 and len(report200["rounds"]) == 4


def test_no_wait_is_documented_and_refused_with_premises(tmp_path):
    h = stage_cli("engine.review", ["--help"], cwd=tmp_path)
    assert h.returncode == 0 and "--no-wait" in h.stdout
    assert "show nothing for the first time (default 2" in " ".join(h.stdout.split())
    r = stage_cli("engine.review", ["--model", "x", "--premises", "--no-wait"], cwd=tmp_path)
    assert r.returncode == 2 and "Error: --no-wait is for derived beliefs" in r.stderr
    assert "Traceback" not in r.stderr and list(tmp_path.iterdir()) == []
