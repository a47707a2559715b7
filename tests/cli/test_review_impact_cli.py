"""`python -m engine.review --order impact` on the real Neo4j, as a user runs it: with
budget 10 on a network where three unreviewed beliefs carry most of the rest, the first
round reviews those three (dependency order would spend it on ten leaves); turns still hold
(a carrier the model passes over goes behind the rest, what rests on it waits and is shown
once when the carrier is given up); refused with --premises."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_parallel_cli import MODEL, stage_cli
from tests.derive_fakes import load
from tests.review_fakes import CARRIERS, carried_network

LEAVES = [f"a{i:02}" for i in range(12)]


def review_run(store, settings, tmp_path: Path, *extra: str, critic=None):
    load(store, carried_network())
    r = stage_cli("engine.review", ["--model", MODEL, "--auto", "--budget", "10", *extra],
                  cwd=tmp_path, settings=settings, critic=critic or {}, timeout=300)
    assert r.returncode == 0, r.stderr
    (path,) = (tmp_path / "reports").glob("review-*.json")
    return r, json.loads(path.read_text(encoding="utf-8"))


def reviewed(store) -> set[str]:
    return {c.id for c in store.read(lambda tx: tx.review_candidates()) if c.review_sha256}


@pytest.mark.neo4j
def test_budget_10_reviews_the_three_carriers_in_its_first_round(store, neo4j_settings,
                                                                   tmp_path):
    r, report = review_run(store, neo4j_settings, tmp_path, "--order", "impact")
    (first,) = report["rounds"]
    assert first["shown"][:3] == list(CARRIERS)
    assert first["shown"][3:] == LEAVES[:7]
    assert first["strategy"] == "impact order"
    assert reviewed(store) == set(CARRIERS) | set(LEAVES[:7])


@pytest.mark.neo4j
def test_dependency_order_spends_the_same_round_on_leaves(store, neo4j_settings, tmp_path):
    _, report = review_run(store, neo4j_settings, tmp_path)
    assert report["rounds"][0]["shown"] == LEAVES[:10]
    assert not reviewed(store) & set(CARRIERS)


@pytest.mark.neo4j
@pytest.mark.slow
def test_turns_hold_in_impact_order(store, neo4j_settings, tmp_path):
    r, report = review_run(store, neo4j_settings, tmp_path, "--order", "impact", "--exhaust",
                           "--max-rounds", "30", critic={"skip": ["k2"]})
    rounds = report["rounds"]
    first = {}
    for n, x in enumerate(rounds, 1):
        for b in x["shown"]:
            first.setdefault(b, n)
    # k2 passed over in round 1 goes behind every other due belief before it is shown again
    assert rounds[0]["shown"][:3] == list(CARRIERS)
    again = next(n for n, x in enumerate(rounds[1:], 2) if "k2" in x["shown"])
    assert all(first[b] <= again for b in LEAVES)
    assert report["unanswered"] == {"k2": 2}
    # what rests on k1 and k3 was reviewed once they were; what rests on k2 waited, then
    # was shown once when k2 was given up
    done = reviewed(store)
    assert {f"c{k}-{j}" for k in ("k1", "k3") for j in range(10)} <= done
    assert "k2" not in done
    held = {f"ck2-{j}" for j in range(10)}
    assert all(first[b] > again for b in held)
    assert report["status"] == "complete"


def test_order_is_documented_and_refused_with_premises(tmp_path):
    h = stage_cli("engine.review", ["--help"], cwd=tmp_path)
    assert h.returncode == 0 and "--order {dependency,impact}" in h.stdout
    r = stage_cli("engine.review", ["--model", "x", "--premises", "--order", "impact"],
                  cwd=tmp_path)
    assert r.returncode == 2 and "Error: --order is for derived beliefs" in r.stderr
    assert "Traceback" not in r.stderr and list(tmp_path.iterdir()) == []
