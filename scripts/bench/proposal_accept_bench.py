"""Accept latency of proposals on the real networks, printed as JSON lines.

    .venv/bin/python scripts/bench/proposal_accept_bench.py [--network NAME] [--count 30]

For each network in ../shared/data/networks/ (EEM_NETWORKS_DIR), or the one named: WIPES the
database at NEO4J_URI, imports it, then for the `--count` IN premises with the most direct
dependents: retract + assert directly (the verb's own cost), then propose retract, accept,
propose assert, accept, each accept timed in-process (the library call, one write
transaction: the drift check, the verb with its propagation, the decision and the change-log
link). Target (issue 23): accept under 50 ms in-process. `verify` runs at the end.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from adapters.cypher_files import cypher
from adapters.formats import parse_network
from adapters.neo4j.connection import Neo4jSettings, connect
from adapters.neo4j.store import Neo4jStore
from engine import interchange, tms
from engine.model import Truth
from engine.proposals import lifecycle
from engine.tms.records import BeliefFilter

NETWORKS = Path(os.environ.get("EEM_NETWORKS_DIR") or ROOT.parent / "shared" / "data" / "networks")
TARGET_MS = 50.0


def emit(**fields) -> None:
    print(json.dumps(fields), flush=True)


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return (time.perf_counter() - start) * 1000, result


def ms(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return {"median_ms": round(statistics.median(ordered), 2), "p95_ms": round(p95, 2),
            "max_ms": round(ordered[-1], 2), "min_ms": round(ordered[0], 2)}


def load(path: Path, store: Neo4jStore, driver, database: str) -> None:
    with driver.session(database=database) as session:
        session.run(cypher("wipe_graph_batched")).consume()
    store.init_schema()
    network, stored = parse_network(json.loads(path.read_text(encoding="utf-8")))
    seconds, report = timed(lambda: interchange.import_network(store, network, stored))
    emit(bench="proposal_accept", network=path.stem, step="import", beliefs=report.beliefs,
         ms=round(seconds, 1))


def targets(store: Neo4jStore, count: int) -> list[str]:
    premises = [b.id for b in tms.list_beliefs(store, BeliefFilter(truth=Truth.IN,
                                                                   premises=True))]
    counts = store.read(lambda tx: tx.dependent_counts(premises))
    return sorted(premises, key=lambda p: (-counts.get(p, 0), p))[:count]


def bench(path: Path, count: int, store: Neo4jStore, driver, database: str) -> None:
    load(path, store, driver, database)
    direct: list[float] = []
    proposing: list[float] = []
    accepting: list[float] = []
    cascade: list[int] = []
    for premise in targets(store, count):
        seconds, change = timed(lambda p=premise: tms.retract(store, p, "bench"))
        direct.append(seconds)
        tms.assert_belief(store, premise)
        for action, args in (("retract", {"id": premise, "reason": "bench"}),
                             ("assert", {"id": premise})):
            seconds, done = timed(lambda a=action, g=args: lifecycle.propose(store, a, g,
                                                                             "bench"))
            proposing.append(seconds)
            seconds, accepted = timed(lambda d=done: lifecycle.accept(store, d.proposal.id))
            accepting.append(seconds)
            cascade.append(len(accepted.change.went_in) + len(accepted.change.went_out))
    problems = tms.verify(store)
    summary = ms(accepting)
    emit(bench="proposal_accept", network=path.stem, accepts=len(accepting),
         cascade_median=statistics.median(cascade), cascade_max=max(cascade),
         accept=summary, propose=ms(proposing), direct_retract=ms(direct),
         accept_over_direct=round(summary["median_ms"] / ms(direct)["median_ms"], 2),
         load_average=round(os.getloadavg()[0], 1),
         target_ms=TARGET_MS, within_target=summary["median_ms"] < TARGET_MS,
         verify_ok=not problems)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--network", help="one network's file name without .json")
    parser.add_argument("--count", type=int, default=30,
                        help="premises to retract and assert through proposals (default 30)")
    args = parser.parse_args()
    paths = sorted(NETWORKS.glob("*.json"))
    if args.network:
        paths = [p for p in paths if p.stem == args.network]
    if not paths:
        sys.exit(f"no network found in {NETWORKS}")
    settings = Neo4jSettings.from_env(os.environ)
    driver = connect(settings)
    store = Neo4jStore(driver, settings.database, settings.uri, actor="bench")
    try:
        for path in paths:
            bench(path, args.count, store, driver, settings.database)
    finally:
        driver.close()


if __name__ == "__main__":
    main()
