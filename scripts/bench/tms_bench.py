"""Truth-maintenance benchmarks on the synthetic network, printed as JSON lines.

    .venv/bin/python scripts/bench/tms_bench.py --size 10000 [--size 100000] [--repeat 3]

For each size (N premises + N derived): import, retract the hub premise, re-assert it,
retract a premise with a single dependent, verify. Times are end to end through the library
(one write transaction each, propagation included), measured on this machine.

The floor: one write transaction holding one UNWIND statement (`label_out`, then `label_in`)
over exactly the beliefs the hub retraction changed, their element ids known beforehand;
no propagation can write those labels faster. Each repeat alternates ours and the floor, and
the hub rows print ours / floor.
Targets (issues 3 and 25): 100k+100k hub retraction <= 2x the floor; single-dependent
retraction on the 200k network <= 20 ms; import of 200k beliefs <= 12 s; verify <= 3 s.
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

from synthetic import HUB, generate, single_dependent_premise

from adapters.cypher_files import cypher
from adapters.formats import parse_network
from adapters.neo4j.connection import Neo4jSettings, connect
from adapters.neo4j.store import Neo4jStore
from engine import interchange, tms


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def emit(**fields) -> None:
    print(json.dumps(fields), flush=True)


def wipe(driver, database: str) -> None:
    with driver.session(database=database) as session:
        session.run(cypher("wipe_graph_batched")).consume()


def floor_write(driver, database: str, name: str, elements: list[str]) -> float:
    """Seconds for one bare write transaction running the named label query on `elements`."""
    with driver.session(database=database) as session:
        return timed(lambda: session.execute_write(
            lambda tx: tx.run(cypher(name), elements=elements).consume()))[0]


def element_ids(driver, database: str, ids: list[str]) -> list[str]:
    with driver.session(database=database) as session:
        return [r["element"] for r in session.run(cypher("element_ids_of"), ids=ids)]


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
    floors: dict[str, list[float]] = {"retract_hub": [], "assert_hub": []}
    changed: dict[str, int] = {}
    flipped: list[str] = []  # element ids of what the hub retraction changed
    # Untimed: the server plans each query on first use and reads cold pages; every timed
    # operation below then runs as it does in a process that has served a command before.
    for op, bid in ((tms.retract, premise), (tms.assert_belief, premise)):
        op(store, bid)
    for _ in range(repeat):
        for name, op, bid in (("retract_hub", tms.retract, HUB),
                              ("assert_hub", tms.assert_belief, HUB),
                              ("retract_single_dependent", tms.retract, premise),
                              ("assert_single_dependent", tms.assert_belief, premise)):
            seconds, change = timed(lambda op=op, bid=bid: op(store, bid))
            samples[name].append(seconds)
            changed[name] = len(change.went_in) + len(change.went_out)
            if name == "retract_hub" and not flipped:
                flipped = element_ids(driver, database, change.went_out)
        # The floor, on the same graph (everything IN again): the same flips, written bare.
        floors["retract_hub"].append(floor_write(driver, database, "label_out", flipped))
        floors["assert_hub"].append(floor_write(driver, database, "label_in", flipped))
    for name, values in samples.items():
        ours = statistics.median(values)
        fields = {"workload": name, "size": total, "median_s": round(ours, 4),
                  "min_s": round(min(values), 4), "max_s": round(max(values), 4),
                  "changed": changed[name]}
        if name in floors:
            floor = statistics.median(floors[name])
            fields.update(floor_s=round(floor, 4), ours_over_floor=round(ours / floor, 2))
        emit(**fields)
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
