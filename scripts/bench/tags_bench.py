"""What access tags cost a write, printed as JSON lines.

    .venv/bin/python scripts/bench/tags_bench.py [--size 10000] [--repeat 9] [--tagged 100]

On the N+N synthetic network: retract + assert of a single-dependent premise and of the
premise with the most direct dependents, median over `--repeat`, first with no belief
tagged (propagation pays one `tags_exist` look-up), then after `--tagged` premises got an
access tag through set-metadata (propagation recomputes effective tags over each region).
It empties the database at NEO4J_URI.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import generate, single_dependent_premise  # noqa: E402

from adapters.cypher_files import cypher  # noqa: E402
from adapters.formats import parse_network  # noqa: E402
from adapters.neo4j.connection import Neo4jSettings, connect  # noqa: E402
from adapters.neo4j.store import Neo4jStore  # noqa: E402
from engine import interchange, tms  # noqa: E402
from engine.memory import editing


def emit(**fields) -> None:
    print(json.dumps(fields), flush=True)


def median_ms(store: Neo4jStore, premise: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        tms.retract(store, premise, "bench")
        tms.assert_belief(store, premise)
        times.append(time.perf_counter() - start)
    return round(statistics.median(times) * 1000, 2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--tagged", type=int, default=100)
    args = parser.parse_args()
    settings = Neo4jSettings.from_env()
    driver = connect(settings)
    store = Neo4jStore(driver, settings.database, settings.uri)
    try:
        data = generate(args.size)
        with driver.session(database=settings.database) as session:
            session.run(cypher("wipe_graph_batched")).consume()
        store.init_schema()
        network, stored = parse_network(data)
        interchange.import_network(store, network, stored)
        uses = Counter(a for node in data["nodes"].values() for j in node["justifications"]
                       for a in j["antecedents"])
        premises = [b for b, n in data["nodes"].items() if not n["justifications"]]
        hub = max(premises, key=lambda b: uses[b])
        single = single_dependent_premise(data)
        for phase in ("untagged", "tagged"):
            if phase == "tagged":
                start = time.perf_counter()
                for bid in premises[:args.tagged]:
                    editing.set_metadata(store, bid, "access_tags", ["bench"])
                emit(workload="set-metadata access_tags", count=args.tagged,
                     ms_each=round((time.perf_counter() - start) * 1000 / args.tagged, 2))
                editing.set_metadata(store, hub, "access_tags", ["bench"])
            for name, premise in (("single-dependent", single), ("hub", hub)):
                emit(workload=f"retract+assert {name}", phase=phase, size=args.size,
                     dependents=uses[premise], ms=median_ms(store, premise, args.repeat))
        emit(workload="verify", ok=tms.verify(store) == [])
    finally:
        driver.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
