"""Whole-network work at scale, each step the `eem` command a user runs, printed as JSON lines.

    .venv/bin/python scripts/bench/scale_bench.py --size 100000          # 100k+100k
    .venv/bin/python scripts/bench/scale_bench.py --size 1000000         # 1M+1M (see below)
    scripts/bench/run --huge                                             # make bench, 1M too

For each size N (N premises + N derived, scripts/bench/synthetic.py's shape): the network.json
written node by node into --dir, the database wiped, then `python -m engine import FILE`,
`verify` and `export -o FILE`, each in its own process, timed end to end, with the process's
peak resident memory (its rusage: the importer's memory, not the server's). Prints the load
average beside every figure: the machine is shared.

Targets (issue 39), at 1M+1M: import at most 2 min with the importer under 4 GB; verify at
most 20 s. The server needs room for 1M+1M: NEO4J_HEAP=6g NEO4J_PAGECACHE=4g or more
(docs/scaling.md); import is one transaction, whose state the heap holds until it commits.
Large sizes are benchmarks only, never in CI. WARNING: it WIPES the database at NEO4J_URI.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import write_file

from adapters.cypher_files import cypher
from adapters.neo4j.connection import Neo4jSettings, connect
from adapters.neo4j.store import Neo4jStore


def emit(**fields) -> None:
    print(json.dumps(fields), flush=True)


def load() -> float:
    return round(os.getloadavg()[0], 2)


# `python -m engine ARGS` that prints its peak resident memory (KB) on stderr as it exits
_MEASURED = ("import atexit, resource, runpy, sys\n"
             "atexit.register(lambda: print('PEAK_KB', resource.getrusage("
             "resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr))\n"
             "sys.argv = ['engine', *sys.argv[1:]]\n"
             "runpy.run_module('engine', run_name='__main__')\n")


def eem(*args: str) -> tuple[float, float, str]:
    """Seconds and peak resident MB of one `python -m engine ARGS` in its own process (run
    here, not by a resident engine, and none started: EEM_SERVE=0), and its stdout; a
    failure stops the benchmark."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "EEM_SERVE": "0"}
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _MEASURED, *args], env=env,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode:
        raise SystemExit(f"Error: eem {' '.join(args)} exited {proc.returncode}: "
                         f"{proc.stderr.strip()[-2000:]}")
    peak = [int(line.split()[1]) for line in proc.stderr.splitlines()
            if line.startswith("PEAK_KB ")]
    return seconds, (peak[-1] if peak else 0) / 1024, proc.stdout


def run(size: int, directory: Path, store: Neo4jStore, driver, database: str,
        keep: bool) -> None:
    path = directory / f"synthetic-{size}.json"
    if not path.exists():
        start = time.perf_counter()
        with open(path, "w", encoding="utf-8") as f:
            write_file(size, f)
        emit(workload="write network.json", size=2 * size, seconds=round(
            time.perf_counter() - start, 1), mb=round(path.stat().st_size / 2**20), load=load())
    with driver.session(database=database) as session:
        session.run(cypher("wipe_graph_batched")).consume()
    store.init_schema()

    before = load()
    seconds, peak, _ = eem("import", str(path))
    emit(workload="import", size=2 * size, seconds=round(seconds, 1), peak_mb=round(peak),
         load_before=before, load_after=load())
    before = load()
    seconds, peak, out = eem("verify")
    emit(workload="verify", size=2 * size, seconds=round(seconds, 1), peak_mb=round(peak),
         load_before=before, load_after=load(), says=out.strip().splitlines()[-1:])
    exported = directory / f"exported-{size}.json"
    before = load()
    seconds, peak, _ = eem("export", "-o", str(exported))
    emit(workload="export", size=2 * size, seconds=round(seconds, 1), peak_mb=round(peak),
         mb=round(exported.stat().st_size / 2**20), load_before=before, load_after=load())
    if not keep:
        exported.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, action="append",
                        help="N (premises = derived = N); default 100000")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/eem-scale-bench"),
                        help="where the network files are written (and reused)")
    parser.add_argument("--keep", action="store_true", help="keep the exported files")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    settings = Neo4jSettings.from_env(os.environ)
    driver = connect(settings)
    store = Neo4jStore(driver, settings.database, settings.uri)
    try:
        for size in args.size or [100000]:
            run(size, args.dir, store, driver, settings.database, args.keep)
    finally:
        store.close()


if __name__ == "__main__":
    main()
