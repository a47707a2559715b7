"""Propagation of two checkouts alternated on one graph, with the write floor between, as
JSON lines: a before/after figure that holds on a loaded machine.

    .venv/bin/python scripts/bench/tms_vs.py --old DIR --new DIR [--size 10000] [--pairs 4] [--load]

DIR is a checkout of this project (e.g. `git archive COMMIT | tar -x -C DIR`). Each pair
runs one process per checkout, in turn (old, new; then new, old), each timing through the
library, after an untimed single-dependent retract and assert: the hub retraction, its
re-assertion, a single-dependent retraction and its re-assertion. Between pairs, the floor
(scripts/bench/tms_bench.py): one bare write of exactly the hub retraction's flips. The
last lines give each checkout's medians and hub / floor. --load first wipes the database
at NEO4J_URI and imports the synthetic N+N network (otherwise it must be there, hub IN).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parents[1]))
sys.path.insert(0, str(BENCH))

from synthetic import HUB, generate, single_dependent_premise
from tms_bench import element_ids, floor_write, wipe

OPS = ("retract_hub", "assert_hub", "retract_single_dependent", "assert_single_dependent")

# Run in each checkout's own process (its engine/ and cypher/ on PYTHONPATH).
CHILD = """
import json, os, sys, time
from adapters.neo4j.connection import Neo4jSettings, connect
from adapters.neo4j.store import Neo4jStore
from engine import tms
hub, premise = sys.argv[1], sys.argv[2]
settings = Neo4jSettings.from_env(os.environ)
store = Neo4jStore(connect(settings), settings.database, settings.uri)
tms.retract(store, premise)
tms.assert_belief(store, premise)
out = {}
for name, op, bid in (("retract_hub", tms.retract, hub), ("assert_hub", tms.assert_belief, hub),
                      ("retract_single_dependent", tms.retract, premise),
                      ("assert_single_dependent", tms.assert_belief, premise)):
    started = time.perf_counter()
    change = op(store, bid)
    out[name] = time.perf_counter() - started
    if name == "retract_hub":
        out["went_out"] = change.went_out
store.close()
print(json.dumps(out))
"""


def load_average() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True)
    parser.add_argument("--new", type=Path, required=True)
    parser.add_argument("--size", type=int, default=10000, help="N (premises = derived = N)")
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--load", action="store_true", help="wipe and import the network first")
    args = parser.parse_args()
    from adapters.formats import parse_network
    from adapters.neo4j.connection import Neo4jSettings, connect
    from adapters.neo4j.store import Neo4jStore
    from engine import interchange

    data = generate(args.size)
    premise = single_dependent_premise(data)
    settings = Neo4jSettings.from_env(os.environ)
    driver = connect(settings)
    if args.load:
        store = Neo4jStore(driver, settings.database, settings.uri)
        wipe(driver, settings.database)
        store.init_schema()
        interchange.import_network(store, *parse_network(data))
    sides = {"old": args.old.resolve(), "new": args.new.resolve()}
    samples: dict[str, dict[str, list[float]]] = {k: {op: [] for op in OPS} for k in sides}
    floors: dict[str, list[float]] = {"retract_hub": [], "assert_hub": []}
    flipped: list[str] = []
    for pair in range(args.pairs):
        for side in (["old", "new"] if pair % 2 == 0 else ["new", "old"]):
            done = subprocess.run([sys.executable, "-c", CHILD, HUB, premise], check=True,
                                  capture_output=True, text=True,
                                  env={**os.environ, "PYTHONPATH": str(sides[side])})
            timings = json.loads(done.stdout)
            if not flipped:
                flipped = element_ids(driver, settings.database, timings["went_out"])
            for op in OPS:
                samples[side][op].append(timings[op])
            print(json.dumps({"pair": pair, "code": side, "load": load_average(),
                              **{op: round(timings[op], 4) for op in OPS}}), flush=True)
        floors["retract_hub"].append(floor_write(driver, settings.database, "label_out", flipped))
        floors["assert_hub"].append(floor_write(driver, settings.database, "label_in", flipped))
        print(json.dumps({"pair": pair, "floor_retract": round(floors["retract_hub"][-1], 4),
                          "floor_assert": round(floors["assert_hub"][-1], 4),
                          "load": load_average()}), flush=True)
    driver.close()
    for side, path in sides.items():
        medians = {op: statistics.median(v) for op, v in samples[side].items()}
        fields = {"code": side, "dir": str(path), "size": 2 * args.size, "changed": len(flipped),
                  **{op: round(m, 4) for op, m in medians.items()}}
        for op in floors:
            floor = statistics.median(floors[op])
            fields[f"{op}_floor"] = round(floor, 4)
            fields[f"{op}_over_floor"] = round(medians[op] / floor, 2)
        print(json.dumps(fields), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
