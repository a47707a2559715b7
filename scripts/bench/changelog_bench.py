"""The change log's cost, printed as JSON lines.

    .venv/bin/python scripts/bench/changelog_bench.py [--size 10000] [--read-size 100000]
                                                      [--changes 10000] [--repeat 15]

1. On the N+N synthetic network (default 10k+10k): a single-dependent retract and its assert,
   interleaved through the store with the log and through one whose writes skip it (the
   difference is the log's cost per write).
2. On the M+M network (default 100k+100k) after `--changes` logged writes (retract / assert
   of single-dependent premises): `log --since` (50 newest) and `diff --since` over them.
Targets (issue 20): the log adds at most 2 ms to a single-dependent retract; diff over a day
of 10k changes under 1 s. It empties the database at NEO4J_URI.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import neo4j
from synthetic import generate, single_dependent_premise

from adapters.cypher_files import cypher
from adapters.formats import parse_network
from adapters.neo4j.connection import Neo4jSettings, connect
from adapters.neo4j.store import Neo4jStore, Neo4jTx
from engine import interchange, tms
from engine.change_records import LogQuery
from engine.memory import changelog


class UnloggedStore(Neo4jStore):
    """The store with the write lock but without the change-log append, to measure what the
    log adds. Never use it for real writes: they would leave no trail."""

    def write(self, work, entry=None):
        tag = self._lock.new_tag()

        @neo4j.unit_of_work(metadata={"eem_write": tag})
        def locked(tx):
            self._lock.take(tx, tag)
            return work(Neo4jTx(tx))

        with self._session(neo4j.WRITE_ACCESS) as session:
            return self._guard(lambda: session.execute_write(locked))


def emit(**fields) -> None:
    print(json.dumps(fields), flush=True)


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def load(size: int, store: Neo4jStore, driver, database: str) -> dict:
    data = generate(size)
    with driver.session(database=database) as session:
        session.run(cypher("wipe_graph_batched")).consume()
    store.init_schema()
    network, stored = parse_network(data)
    seconds, _ = timed(lambda: interchange.import_network(store, network, stored))
    emit(workload="import", size=len(data["nodes"]), seconds=round(seconds, 3))
    return data


def single_dependent_premises(data: dict, limit: int) -> list[str]:
    users: dict[str, set[str]] = defaultdict(set)
    for bid, node in data["nodes"].items():
        for j in node["justifications"]:
            for a in j["antecedents"]:
                users[a].add(bid)
    found = [p for p in sorted(data["nodes"]) if p.startswith("p-") and len(users[p]) == 1
             and not users.get(next(iter(users[p])))]
    return found[:limit]


def write_cost(size: int, repeat: int, logged: Neo4jStore, unlogged: Neo4jStore, driver,
               database: str) -> None:
    data = load(size, logged, driver, database)
    premise = single_dependent_premise(data)
    samples: dict[str, list[float]] = {"logged": [], "unlogged": []}
    for _ in range(repeat):
        for name, store in (("logged", logged), ("unlogged", unlogged)):
            seconds, _ = timed(lambda store=store: tms.retract(store, premise))
            samples[name].append(seconds)
            tms.assert_belief(store, premise)
    med = {k: statistics.median(v) for k, v in samples.items()}
    emit(workload="retract_single_dependent", size=2 * size, repeat=repeat,
         logged_ms=round(med["logged"] * 1000, 2), unlogged_ms=round(med["unlogged"] * 1000, 2),
         log_cost_ms=round((med["logged"] - med["unlogged"]) * 1000, 2),
         logged_min_ms=round(min(samples["logged"]) * 1000, 2),
         unlogged_min_ms=round(min(samples["unlogged"]) * 1000, 2))


def read_timings(store: Neo4jStore, size: int, done: int, since: str) -> None:
    for name, fn in (
            ("log_since", lambda: changelog.log(store, LogQuery(since=since, limit=50))),
            ("log_since_all", lambda: changelog.log(store, LogQuery(since=since))),
            ("diff_since", lambda: changelog.diff(store, since))):
        values = []
        for _ in range(3):
            seconds, rows = timed(fn)
            values.append(seconds)
        emit(workload=name, size=2 * size, changes=done, rows=len(rows),
             median_s=round(statistics.median(values), 3), min_s=round(min(values), 3))


def reuse(store: Neo4jStore, size: int) -> None:
    """Time the reads on the graph a previous run left: since its import."""
    entry = changelog.log(store, LogQuery(op="import", limit=1))[0]
    since = changelog.log(store, LogQuery(after=entry.seq, limit=1, oldest_first=True))[0].at
    done = len(changelog.log(store, LogQuery(after=entry.seq)))
    read_timings(store, size, done, since)


def read_cost(size: int, changes: int, store: Neo4jStore, driver, database: str) -> None:
    data = load(size, store, driver, database)
    premises = single_dependent_premises(data, max(1, changes // 2))
    since = changelog.now_utc()
    start = time.perf_counter()
    done = 0
    while done < changes:
        for p in premises:
            if done >= changes:
                break
            (tms.retract if done // len(premises) % 2 == 0 else tms.assert_belief)(store, p)
            done += 1
    emit(workload="changes_written", size=2 * size, changes=done,
         seconds=round(time.perf_counter() - start, 1))
    read_timings(store, size, done, since)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10000)
    parser.add_argument("--read-size", type=int, default=100000)
    parser.add_argument("--changes", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--reuse", action="store_true",
                        help="only time the reads, on the graph and log a previous run left")
    args = parser.parse_args()
    settings = Neo4jSettings.from_env(os.environ)
    driver = connect(settings)
    logged = Neo4jStore(driver, settings.database, settings.uri, actor="bench")
    unlogged = UnloggedStore(driver, settings.database, settings.uri)
    try:
        if args.reuse:
            reuse(logged, args.read_size)
            return
        write_cost(args.size, args.repeat, logged, unlogged, driver, settings.database)
        if args.read_size:
            read_cost(args.read_size, args.changes, logged, driver, settings.database)
    finally:
        driver.close()


if __name__ == "__main__":
    main()
