"""Benchmark of `eem health`: the whole screen without the duplicate step at 100k+100k (the
synthetic network, a tenth of its derived beliefs given a review stamp, one premise's
dependents updated after it so that some reviews are outdated), and the duplicate step timed
apart on the real networks (the packaged embedding model over every IN text, through an
empty embedding cache, then again with the cache warm).

    .venv/bin/python scripts/bench/health_bench.py              # real networks, then 100k+100k
    .venv/bin/python scripts/bench/health_bench.py --size 0     # the real networks only

The real networks are read from EEM_NETWORKS_DIR (default ../shared/data/networks beside
the checkout). It EMPTIES the database at NEO4J_URI (give Neo4j a heap above 2 GB for --size
100000: one import transaction of 200k beliefs). Target: under 10 s at 100k+100k without the
duplicate step. Prints one JSON line per measurement: the median and the best of --repeat
runs, after one warm-up run (which plans the queries), and the load average when it ran.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
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
from engine.clock import now_iso
from engine.review.records import ReviewStamp
from engine.service import health
from engine.service.context import Context

NETWORKS = Path(os.environ.get("EEM_NETWORKS_DIR") or ROOT.parent / "shared" / "data" / "networks")
REAL = ["system-design-eem.json", "data-intensive-applications-eem.json"]
STAMPED = 10  # one derived belief in STAMPED gets a review stamp


def emit(**fields) -> None:
    print(json.dumps({**fields, "load": round(os.getloadavg()[0], 2)}), flush=True)


def timed(fn, repeat: int) -> tuple[float, float, object]:
    fn()
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return round(statistics.median(times), 2), round(min(times), 2), result


def load(store, driver, settings, network, stored) -> float:
    with driver.session(database=settings.database) as session:
        session.run(cypher("wipe_graph_batched")).consume()
    store.init_schema()
    start = time.perf_counter()
    interchange.import_network(store, network, stored)
    return round(time.perf_counter() - start, 1)


def stamp_reviews(store, n: int) -> int:
    """A review stamp on every STAMPED-th derived belief of layer 1 up, then an edit to the
    premises some of them rest on (after the stamps): those reviews are outdated."""
    ids = [f"d{layer:02d}-{i:06d}" for layer in range(1, 11) for i in range(n // 10)
           if i % STAMPED == 0]
    at = now_iso()
    for start in range(0, len(ids), 5000):
        chunk = ids[start:start + 5000]
        store.write(lambda tx, c=chunk: tx.stamp_reviews([ReviewStamp(i, at, "x", "bench")
                                                          for i in c]))
    time.sleep(1.1)  # the edit's updated_at after the stamps' second
    from engine.memory import editing

    for k in range(0, min(n - 1, 200)):
        editing.set_metadata(store, f"p-{k:06d}", "bench", "edited after the reviews")
    return len(ids)


def parts(store, label: str, repeat: int) -> None:
    """Where the time goes: each read of the screen alone."""
    from engine.proposals.records import Status as ProposalStatus
    from engine.reading.health import POOL, TOP
    from engine.reading.impact import impacts

    facts = store.read(lambda tx: tx.health_facts(POOL, TOP))
    steps = {
        "facts (review, circular, loose, nogoods)": lambda: store.read(
            lambda tx: tx.health_facts(POOL, TOP)),
        "status": lambda: store.read(lambda tx: tx.status()),
        "proposals": lambda: store.read(lambda tx: tx.proposals(ProposalStatus.PENDING)),
        "sources' id scans": lambda: store.read(lambda tx: (
            tx.sources(), tx.hashed_unpinned_ids(), tx.unpinned_sourced_ids())),
        f"impact of the review pool ({POOL})": lambda: impacts(
            store, [i for i, _, _ in facts.review.pool]),
    }
    for name, step in steps.items():
        median, best, _ = timed(step, repeat)
        emit(bench="health part", network=label, part=name, median_s=median, best_s=best)


def measure(store, label: str, repeat: int, duplicates: bool) -> None:
    from engine.wiring.context import SharedEmbedder

    with tempfile.TemporaryDirectory() as cache:
        ctx = Context(store, "bench", embedder=SharedEmbedder() if duplicates else None,
                      cache_folder=Path(cache))
        median, best, found = timed(
            lambda: health.health(ctx, health.HealthOptions(duplicates=False)), repeat)
        review = found.figure("review").numbers  # type: ignore[attr-defined]
        emit(bench="health", network=label, duplicates=False, median_s=median, best_s=best,
             derived=review["derived"], current=review["current"], never=review["never"],
             outdated=review["outdated"],
             circular=found.number("circular", "out"))  # type: ignore[attr-defined]
        if duplicates:
            for cache_state in ("cold", "warm"):
                start = time.perf_counter()
                found = health.health(ctx, health.HealthOptions(duplicates=True))
                d = found.figure("duplicates").numbers  # type: ignore[attr-defined]
                emit(bench="health", network=label, duplicates=True, cache=cache_state,
                     total_s=round(time.perf_counter() - start, 2), duplicate_step_s=d["seconds"],
                     pairs=d["pairs"], threshold=d["threshold"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    settings = Neo4jSettings.from_env(os.environ)
    driver = connect(settings)
    store = Neo4jStore(driver, settings.database, settings.uri)
    try:
        for name in REAL:
            path = NETWORKS / name
            if path.exists():
                network, stored = read_network_file(path)
                seconds = load(store, driver, settings, network, stored)
                emit(bench="setup", network=name, beliefs=len(network.beliefs),
                     import_s=seconds)
                measure(store, name, args.repeat, duplicates=True)
        if args.size:
            network, stored = parse_network(generate(args.size))
            seconds = load(store, driver, settings, network, stored)
            stamped = stamp_reviews(store, args.size)
            emit(bench="setup", network=f"synthetic {args.size}+{args.size}",
                 beliefs=len(network.beliefs), import_s=seconds, stamped=stamped)
            measure(store, f"synthetic {args.size}+{args.size}", args.repeat, duplicates=False)
            parts(store, f"synthetic {args.size}+{args.size}", args.repeat)
    finally:
        store.close()


if __name__ == "__main__":
    main()
