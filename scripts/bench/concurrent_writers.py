"""What the write lock costs: concurrent writers on the synthetic network, as JSON lines.

    .venv/bin/python scripts/bench/concurrent_writers.py [--size 10000] [--ops 200] [--writers 4]

Imports the N+N synthetic network (it empties the database at NEO4J_URI), then:
- throughput: one writer, then `--writers` writers in processes of their own (each with its own
  driver and its own premise), each retracting and re-asserting a premise that has a single
  dependent, `--ops` operations per writer; operations per second over the wall time;
- latency: the median single retract / assert with the write lock and without it (a store
  that skips the lock, for this measurement only), interleaved so drift hits both alike, and
  an empty write transaction with and without the lock.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import neo4j  # noqa: E402
from synthetic import generate  # noqa: E402

from adapters.cypher_files import cypher  # noqa: E402
from adapters.formats import parse_network  # noqa: E402
from adapters.neo4j.connection import Neo4jSettings, connect  # noqa: E402
from adapters.neo4j.store import Neo4jStore, Neo4jTx  # noqa: E402
from engine import interchange, tms  # noqa: E402


class UnlockedStore(Neo4jStore):
    """The store without the write lock, to measure what the lock adds. Never use it to
    write for real: concurrent writers through it can leave wrong labels."""

    def write(self, work, entry=None):
        with self._session(neo4j.WRITE_ACCESS) as session:
            return self._guard(lambda: session.execute_write(lambda tx: work(Neo4jTx(tx))))


def emit(**fields) -> None:
    print(json.dumps(fields), flush=True)


def single_dependent_premises(network: dict, count: int) -> list[str]:
    """Premises whose only dependent is one derived belief, each dependent used once."""
    users: dict[str, set[str]] = defaultdict(set)
    for bid, node in network["nodes"].items():
        for j in node["justifications"]:
            for a in j["antecedents"]:
                users[a].add(bid)
    chosen, taken = [], set()
    for pid in sorted(network["nodes"]):
        if pid.startswith("p-") and len(users.get(pid, ())) == 1:
            (only,) = users[pid]
            if only not in taken and not users.get(only):
                chosen.append(pid)
                taken.add(only)
        if len(chosen) == count:
            return chosen
    raise SystemExit(f"only {len(chosen)} single-dependent premises found")


def toggle(store, premise: str, ops: int) -> None:
    for k in range(ops):
        if k % 2 == 0:
            tms.retract(store, premise)
        else:
            tms.assert_belief(store, premise)


def writer_process(settings: Neo4jSettings, premise: str, ops: int, barrier) -> tuple:
    driver = connect(settings)
    try:
        store = Neo4jStore(driver, settings.database, settings.uri)
        barrier.wait()
        start = time.perf_counter()
        toggle(store, premise, ops)
        return start, time.perf_counter()
    finally:
        driver.close()


def throughput(settings: Neo4jSettings, premises: list[str], ops: int) -> float:
    """Operations per second of len(premises) writers in processes of their own."""
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager, context.Pool(len(premises)) as pool:
        barrier = manager.Barrier(len(premises))
        pending = [pool.apply_async(writer_process, (settings, p, ops, barrier))
                   for p in premises]
        spans = [p.get() for p in pending]
    wall = max(end for _, end in spans) - min(start for start, _ in spans)
    return len(premises) * ops / wall


def median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 2)


def latency(locked: Neo4jStore, unlocked: Neo4jStore, premise: str, repeat: int) -> None:
    times: dict[str, list[float]] = defaultdict(list)
    for _ in range(repeat):
        for name, store in (("with_lock", locked), ("without_lock", unlocked)):
            for op, fn in (("retract", tms.retract), ("assert", tms.assert_belief)):
                start = time.perf_counter()
                fn(store, premise)
                times[f"{op}_{name}"].append(time.perf_counter() - start)
            start = time.perf_counter()
            store.write(lambda tx: None)
            times[f"empty_write_{name}"].append(time.perf_counter() - start)
    emit(workload="single_op_latency", repeat=repeat,
         **{f"{key}_median_ms": median_ms(values) for key, values in sorted(times.items())})
    added = [statistics.median(times[f"{op}_with_lock"])
             - statistics.median(times[f"{op}_without_lock"])
             for op in ("retract", "assert", "empty_write")]
    emit(workload="lock_added_latency", retract_ms=round(added[0] * 1000, 2),
         assert_ms=round(added[1] * 1000, 2), empty_write_ms=round(added[2] * 1000, 2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10000, help="N (premises = derived = N)")
    parser.add_argument("--ops", type=int, default=200, help="operations per writer")
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=100, help="latency samples")
    args = parser.parse_args()
    settings = Neo4jSettings.from_env(os.environ)
    driver = connect(settings)
    store = Neo4jStore(driver, settings.database, settings.uri)
    try:
        data = generate(args.size)
        premises = single_dependent_premises(data, args.writers)
        with driver.session(database=settings.database) as session:
            session.run(cypher("wipe_graph_batched")).consume()
        store.init_schema()
        network, stored = parse_network(data)
        interchange.import_network(store, network, stored)
        changed = tms.retract(store, premises[0])
        tms.assert_belief(store, premises[0])
        emit(workload="network", beliefs=len(data["nodes"]), premises=premises,
             changed_per_retract=len(changed.went_in) + len(changed.went_out))

        one = throughput(settings, premises[:1], args.ops)
        many = throughput(settings, premises, args.ops)
        emit(workload="throughput", writers_1_ops_per_s=round(one, 1),
             **{f"writers_{args.writers}_ops_per_s": round(many, 1)},
             ratio=round(many / one, 2), ops_per_writer=args.ops)

        latency(store, UnlockedStore(driver, settings.database, settings.uri), premises[0],
                args.repeat)
        problems = tms.verify(store)
        emit(workload="verify", mismatches=len(problems))
    finally:
        store.close()


if __name__ == "__main__":
    main()
