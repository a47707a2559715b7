"""Benchmark of reading the memory: `ask --context-only` (the retrieval bundle: search,
support, dependents, packed to 3000 tokens) and `compact` (800 tokens), in-process against
the Neo4j at NEO4J_URI (password from NEO4J_PASSWORD or the local server's .neo4j/password).

    .venv/bin/python scripts/bench/reading_bench.py             # the real network, then 100k+100k
    .venv/bin/python scripts/bench/reading_bench.py --size 0    # the real network only

It EMPTIES the database. Targets: context < 300 ms on the real network and < 3 s at 100k;
compact < 1 s on the real network and < 5 s at 100k. Prints one JSON line per measurement:
the median and the best of --repeat runs (after one warm-up run, which plans the queries).
Give Neo4j a heap of 4 GB for --size 100000 (one import transaction of 200k beliefs).
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

from synthetic import generate

from adapters.cypher_files import cypher
from adapters.formats import parse_network, read_network_file
from adapters.neo4j.connection import Neo4jSettings, connect
from adapters.neo4j.store import Neo4jStore
from engine import interchange
from engine.ask.retrieval import retrieve
from engine.reading.compact import CompactOptions, compact

NETWORKS = ROOT.parent / "shared" / "data" / "networks"
QUESTIONS = {
    "real": ["why does replication lag cause stale reads?", "how is load balanced?",
             "what makes a cache consistent?"],
    "synthetic": ["conclusion d05-000123", "observed fact p-004242", "hub premise"],
}


def emit(**fields) -> None:
    print(json.dumps(fields), flush=True)


def timed(fn, repeat: int) -> tuple[float, float, object]:
    fn()  # warm-up: query plans
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return round(statistics.median(times), 3), round(min(times), 3), result


def load(store, driver, settings, network, stored) -> float:
    with driver.session(database=settings.database) as session:
        session.run(cypher("wipe_graph_batched")).consume()
    store.init_schema()
    start = time.perf_counter()
    interchange.import_network(store, network, stored)
    return round(time.perf_counter() - start, 1)


def measure(store, label: str, questions: list[str], repeat: int) -> None:
    for q in questions:
        median, best, bundle = timed(lambda q=q: retrieve(store, q, budget=3000), repeat)
        emit(bench="ask_context_only", network=label, question=q, median_s=median,
             best_s=best, entries=len(bundle.entries), tokens=bundle.tokens)
    median, best, out = timed(lambda: compact(store, CompactOptions(budget=800)), repeat)
    emit(bench="compact", network=label, budget=800, median_s=median, best_s=best,
         tokens=out.tokens, lines=sum(len(s.shown) for s in out.sections))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--network", default="system-design-eem.json")
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    settings = Neo4jSettings.from_env(os.environ)
    driver = connect(settings)
    store = Neo4jStore(driver, settings.database, settings.uri)
    try:
        path = NETWORKS / args.network
        if path.exists():
            network, stored = read_network_file(path)
            seconds = load(store, driver, settings, network, stored)
            emit(bench="setup", network=args.network, beliefs=len(network.beliefs),
                 import_s=seconds)
            measure(store, args.network, QUESTIONS["real"], args.repeat)
        if args.size:
            network, stored = parse_network(generate(args.size))
            seconds = load(store, driver, settings, network, stored)
            emit(bench="setup", network=f"synthetic {args.size}+{args.size}",
                 beliefs=len(network.beliefs), import_s=seconds)
            measure(store, f"synthetic {args.size}+{args.size}", QUESTIONS["synthetic"],
                    args.repeat)
    finally:
        store.close()


if __name__ == "__main__":
    main()
