"""What memories cost a laptop (issue 44): one, two and three memories of their own, each a
Neo4j server of its own started on demand (engine/wiring/local_server.py, heap 512m and page
cache 128m unless NEO4J_HEAP / NEO4J_PAGECACHE say otherwise).

    .venv/bin/python scripts/bench/memories_bench.py [--memories 3] [--idle 15]

Everything happens in a temporary EEM_HOME and temporary repositories: `eem init` in each
(which starts its server: the time to a ready memory), a belief added, then --idle seconds of
nothing; then each server's resident memory (VmRSS of its java process, and VmHWM, its
peak) and the heap it was given. All servers are stopped at the end, and the folders removed.
Output: one JSON line per memory, then a markdown table with the machine's load.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EEM = "import sys; from engine.eem import main; sys.exit(main())"


def say(text: str) -> None:
    print(f"memories-bench: {text}", file=sys.stderr, flush=True)


def eem(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-c", EEM, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"eem {' '.join(args)} in {cwd}: {done.stderr.strip()}")
    return done


def status_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def server_pid(home: str) -> int:
    return int((Path(home) / "run" / "neo4j.pid").read_text().strip())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=3)
    parser.add_argument("--idle", type=float, default=15.0,
                        help="seconds of nothing before the resident memory is read")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="memories-bench-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "EEM_"))}
    env.update(EEM_HOME=str(base / "eem-home"), EEM_SERVE="0", PYTHONPATH=str(ROOT))
    repos = [base / f"repo{i + 1}" for i in range(args.memories)]
    rows = []
    try:
        for repo in repos:
            repo.mkdir()
            started = time.perf_counter()
            eem(["init"], env, repo)
            ready = time.perf_counter() - started
            eem(["add", "p", "a premise"], env, repo)
            rows.append({"memory": repo.name, "start_s": round(ready, 1)})
            say(f"{repo.name}: ready in {ready:.1f} s")
        time.sleep(args.idle)
        listed = json.loads(eem(["memories", "--json"], env, repos[0]).stdout)["memories"]
        homes = {m["name"]: m["home"] for m in listed}
        for row in rows:
            pid = server_pid(homes[row["memory"]])
            row.update(rss_mb=status_kb(pid, "VmRSS") // 1024,
                       peak_rss_mb=status_kb(pid, "VmHWM") // 1024,
                       heap=os.environ.get("NEO4J_HEAP", "512m"),
                       pagecache=os.environ.get("NEO4J_PAGECACHE", "128m"))
            print(json.dumps(row), flush=True)
    finally:
        for repo in repos:
            if (repo / ".eem").is_dir():
                subprocess.run([sys.executable, "-c", EEM, "serve", "stop"], cwd=repo,
                               env=env, capture_output=True, timeout=180, check=False)
        shutil.rmtree(base, ignore_errors=True)
    load = os.getloadavg()
    print(f"\nload average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    print("| memories running | start (this one) | its RSS idle | its peak RSS | all RSS |")
    print("|---|---|---|---|---|")
    total = 0
    for n, row in enumerate(rows, 1):
        total += row["rss_mb"]
        print(f"| {n} | {row['start_s']} s | {row['rss_mb']} MB | {row['peak_rss_mb']} MB | "
              f"{total} MB |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
