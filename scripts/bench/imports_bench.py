"""What a command that runs in its own process imports before its first query (issue 50):
`python -X importtime -m engine status` with EEM_SERVE=0, its import time summed, by top
package, and the whole command's wall time.

    .venv/bin/python scripts/bench/imports_bench.py [--old DIR] [--runs 9]

The command works on the memory the environment names (NEO4J_URI, or EEM_MEMORY; `status`
reads, writes nothing), from an empty temporary folder. With --old DIR (a copy of another
checkout's engine/, adapters/ and cypher/), the two run alternately, run by run.
"""
from __future__ import annotations

import argparse
import collections
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def once(checkout: Path, folder: str) -> tuple[float, dict[str, float]]:
    env = dict(os.environ, EEM_SERVE="0", PYTHONPATH=str(checkout))
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "engine", "status"],
                          cwd=folder, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"status exited {done.returncode}: {done.stderr[-400:]}")
    by_package: dict[str, float] = collections.Counter()
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            self_us, _, name = line.split(":", 1)[1].split("|")
            by_package[name.strip().split(".")[0]] += int(self_us) / 1000
    return wall, by_package


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, help="another checkout, alternated with this one")
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    sides = {"this": ROOT, **({"old": args.old} if args.old else {})}
    walls: dict[str, list[float]] = collections.defaultdict(list)
    totals: dict[str, list[float]] = collections.defaultdict(list)
    packages: dict[str, dict[str, list[float]]] = collections.defaultdict(
        lambda: collections.defaultdict(list))
    with tempfile.TemporaryDirectory() as folder:
        for run in range(args.runs):
            order = list(sides) if run % 2 == 0 else list(reversed(sides))
            for side in order:
                wall, by_package = once(sides[side], folder)
                walls[side].append(wall)
                totals[side].append(sum(by_package.values()))
                for name, ms in by_package.items():
                    packages[side][name].append(ms)
    load = os.getloadavg()
    print(f"medians of {args.runs} runs; load average {load[0]:.2f} {load[1]:.2f} "
          f"{load[2]:.2f} on {os.cpu_count()} cores")
    for side in sides:
        top = sorted(packages[side].items(), key=lambda kv: -statistics.median(kv[1]))[:8]
        print(f"{side}: wall {statistics.median(walls[side]) * 1000:.0f} ms, imports "
              f"{statistics.median(totals[side]):.0f} ms: " + ", ".join(
                  f"{name} {statistics.median(v):.0f}" for name, v in top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
