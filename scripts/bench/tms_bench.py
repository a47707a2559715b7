"""Truth-maintenance benchmarks on the synthetic network, printed as JSON lines.

    .venv/bin/python scripts/bench/tms_bench.py --size 10000 [--size 100000] [--repeat 3]

For each size (N premises + N derived): import, retract the hub premise, re-assert it,
retract a premise with a single dependent, verify. Times are end to end through the library
(one write transaction each, propagation included), measured on this machine.
Targets (issue 3): 100k+100k hub retraction <= 1.0 s; single-dependent retraction on the 200k
network <= 20 ms; import of 200k beliefs <= 15 s.
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import HUB, generate, single_dependent_premise  # noqa: E402

from adapters.cypher_files import cypher  # noqa: E402
from adapters.formats import parse_network  # noqa: E402
from adapters.neo4j.connection import Neo4jSettings, connect  # noqa: E402
from adapters.neo4j.store import Neo4jStore  # noqa: E402
from engine import interchange, tms  # noqa: E402


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def emit(**fields) -> None:
    print(json.dumps(fields), flush=True)


def wipe(driver, database: str) -> None:
    with driver.session(database=database) as session:
        session.run(cypher("wipe_graph_batched")).consume()


def run(size: int, repeat: int, store: Neo4jStore, driver, database: str) -> None:
    data = generate(size)
    premise = single_dependent_premise(data)
    total = len(data["nodes"])
    network, stored = parse_network(data)

    wipe(driver, database)
    store.init_schema()
    seconds, _ = timed(lambda: interchange.import_network(store, network, stored))
    emit(workload="import", size=total, seconds=round(seconds, 3))

    samples: dict[str, list[float]] = {"retract_hub": [], "assert_hub": [],
                                       "retract_single_dependent": [],
                                       "assert_single_dependent": []}
    changed: dict[str, int] = {}
    for _ in range(repeat):
        for name, op, bid in (("retract_hub", tms.retract, HUB),
                              ("assert_hub", tms.assert_belief, HUB),
                              ("retract_single_dependent", tms.retract, premise),
                              ("assert_single_dependent", tms.assert_belief, premise)):
            seconds, change = timed(lambda: op(store, bid))
            samples[name].append(seconds)
            changed[name] = len(change.went_in) + len(change.went_out)
    for name, values in samples.items():
        emit(workload=name, size=total, median_s=round(statistics.median(values), 4),
             min_s=round(min(values), 4), max_s=round(max(values), 4), changed=changed[name])
    seconds, problems = timed(lambda: tms.verify(store))
    emit(workload="verify", size=total, seconds=round(seconds, 3), mismatches=len(problems))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, action="append", help="N (premises = derived = N)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    settings = Neo4jSettings.from_env(os.environ)
    driver = connect(settings)
    store = Neo4jStore(driver, settings.database, settings.uri)
    try:
        for size in args.size or [10000]:
            run(size, args.repeat, store, driver, settings.database)
    finally:
        store.close()


if __name__ == "__main__":
    main()
