"""Per command from the shell: `python -m engine` through the resident engine, the same
command in its own process, and ftl-reasons 0.57's `reasons --db FILE` (issue 25).

    .venv/bin/python scripts/bench/serve_bench.py [--size 10000] [--repeat 7] [--old DIR]

WIPES the database at NEO4J_URI. The peer comes from scripts/bench/mcp_bench.py's virtualenv
(`.bench-mcp-venv`, ftl-reasons[mcp]==0.57.0). For each network (the real system-design
network, then the synthetic N+N with its hub) both sides load the same file; a resident
engine is started for the run (`serve start` in a temporary EEM_SERVE_DIR) and stopped at the
end; "in-process" runs with EEM_SERVE=0 (no engine started) and an empty EEM_SERVE_DIR. Each
repetition runs every side in turn, the order rotating, every command a whole process timed
from spawn to exit:
- show: a derived belief;
- retract + assert: of a premise with one dependent, the mean of the two commands;
- search: two words of the shown belief's text;
- hub retract (synthetic only): the hub premise, re-asserted untimed.
With --old DIR (another checkout of this project, e.g. `git archive COMMIT | tar -x -C
DIR`), a fourth side: that checkout's resident engine (its own EEM_SERVE_DIR), alternated
with the others, for a before / after figure that holds on a loaded machine.
Output: JSON lines (workload, network, impl, median_s, min_s, max_s, n), then a markdown
table with resident / reasons and resident / in-process ratios (target: at most 0.5 against
reasons), and resident / old resident with --old.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(BENCH))

from mcp_bench import REAL_DEFAULT, load_ours, peer_requests, peer_venv, targets
from synthetic import generate

IMPLS = ("resident", "in-process", "reasons")
OLD = "resident (old)"


def say(text: str) -> None:
    print(f"serve-bench: {text}", file=sys.stderr, flush=True)


def emit(**fields) -> dict:
    print(json.dumps(fields), flush=True)
    return fields


class Sides:
    """How each implementation runs one command line."""

    def __init__(self, venv: Path, db: Path, workdir: Path, serve_dir: str, none_dir: str,
                 old: tuple[Path, str] | None = None):
        base = {k: v for k, v in os.environ.items() if not k.startswith("EEM_")}
        base["PYTHONPATH"] = str(ROOT)
        self.env = {"resident": dict(base, EEM_SERVE_DIR=serve_dir),
                    "in-process": dict(base, EEM_SERVE_DIR=none_dir, EEM_SERVE="0")}
        self.cwd = {"resident": ROOT, "in-process": ROOT}
        if old is not None:
            self.env[OLD] = dict(base, EEM_SERVE_DIR=old[1], PYTHONPATH=str(old[0]))
            self.cwd[OLD] = old[0]
        self.venv, self.db, self.workdir = venv, db, workdir
        self.impls = (*IMPLS, OLD) if old is not None else IMPLS

    def argv(self, impl: str, line: list[str]) -> tuple[list[str], Path, dict[str, str]]:
        if impl == "reasons":
            verb, *rest = line
            their = ["search", " ".join(rest)] if verb == "search" else line
            return ([str(self.venv / "bin" / "reasons"), "--db", str(self.db), *their],
                    self.workdir, dict(os.environ))
        return [sys.executable, "-m", "engine", *line], self.cwd[impl], self.env[impl]

    def run(self, impl: str, line: list[str]) -> float:
        argv, cwd, env = self.argv(impl, line)
        started = time.perf_counter()
        done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                              check=False)
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            raise RuntimeError(f"{impl}: {line} exited {done.returncode}: {done.stderr[-400:]}")
        return seconds


def workloads(t: dict[str, str], synthetic: bool) -> dict[str, tuple[list[list[str]], list]]:
    """name -> (the timed lines, averaged; the untimed lines that undo them)."""
    found = {
        "show": ([["show", t["show"]]], []),
        "retract + assert (one dependent)": ([["retract", t["single"]], ["assert", t["single"]]],
                                             []),
        "search": ([["search", *t["words"].split()]], []),
    }
    if synthetic:
        found["hub retract"] = ([["retract", t["hub"]]], [["assert", t["hub"]]])
    return found


def bench_network(name: str, network: dict, venv: Path, repeat: int, workdir: Path,
                  sides_dirs: tuple[str, str], old: tuple[Path, str] | None = None
                  ) -> list[dict]:
    say(f"{name}: {len(network['nodes'])} beliefs")
    t = targets(network)
    slug = "".join(c if c.isalnum() else "-" for c in name)
    plain, hashed, db = (workdir / f"{slug}.json", workdir / f"{slug}-hashed.json",
                         workdir / f"{slug}.db")
    plain.write_text(json.dumps(network))
    peer_requests(venv, {"op": "add_hashes", "file": str(plain), "out": str(hashed)},
                  {"op": "import", "file": str(hashed), "db": str(db)})
    load_ours(plain)
    sides = Sides(venv, db, workdir, *sides_dirs, old=old)
    impls = sides.impls
    samples: dict[tuple[str, str], list[float]] = defaultdict(list)
    for workload, (lines, undo) in workloads(t, name.startswith("synthetic")).items():
        for rep in range(repeat + 1):  # the first round is a warm-up
            turn = rep % len(impls)
            order = impls[turn:] + impls[:turn]
            for impl in order:
                seconds = statistics.mean(sides.run(impl, line) for line in lines)
                for line in undo:
                    sides.run(impl, line)
                if rep:
                    samples[(workload, impl)].append(seconds)
    return [emit(workload=w, network=name, beliefs=len(network["nodes"]), impl=impl,
                 median_s=statistics.median(v), min_s=min(v), max_s=max(v), n=len(v))
            for (w, impl), v in samples.items()]


def table(rows: list[dict]) -> str:
    by = {(r["network"], r["workload"], r["impl"]): r["median_s"] for r in rows}
    old = any(r["impl"] == OLD for r in rows)
    lines = [("| network | per command | resident | in-process | reasons 0.57 | resident/reasons"
              " | resident/in-process |" + (" resident (old) | resident/old |" if old else "")),
             "|---|---|---|---|---|---|---|" + ("---|---|" if old else "")]
    for net, workload in dict.fromkeys((r["network"], r["workload"]) for r in rows):
        resident, here, theirs = (by[(net, workload, i)] for i in IMPLS)
        line = (f"| {net} | {workload} | {resident:.3f} s | {here:.3f} s | {theirs:.3f} s |"
                f" {resident / theirs:.2f} | {resident / here:.2f} |")
        if old:
            before = by[(net, workload, OLD)]
            line += f" {before:.3f} s | {resident / before:.2f} |"
        lines.append(line)
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, action="append",
                        help="synthetic N (default 10000; 0: the real network only)")
    parser.add_argument("--real", action="append", type=Path,
                        help=f"a real network.json (default {REAL_DEFAULT.name} when present)")
    parser.add_argument("--repeat", type=int, default=7, help="timed runs per side")
    parser.add_argument("--old", type=Path, help="another checkout: its resident engine too")
    args = parser.parse_args()
    venv = peer_venv()
    networks = [(p.stem.removesuffix("-eem"), json.loads(p.read_text()))
                for p in args.real or ([REAL_DEFAULT] if REAL_DEFAULT.exists() else [])]
    networks += [(f"synthetic {n // 1000}k+{n // 1000}k", generate(n))
                 for n in args.size or [10000] if n > 0]
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="serve-bench-", dir="/tmp") as tmp:
        serve_dir, none_dir = os.path.join(tmp, "s"), os.path.join(tmp, "n")
        os.makedirs(none_dir)
        old = (args.old.resolve(), os.path.join(tmp, "o")) if args.old else None
        engines = [(ROOT, serve_dir)] + ([old] if old else [])
        control = [sys.executable, "-m", "engine", "serve"]
        for checkout, directory in engines:
            subprocess.run([*control, "start"], cwd=checkout, check=True,
                           env=dict(os.environ, EEM_SERVE_DIR=directory,
                                    PYTHONPATH=str(checkout)), stdout=subprocess.DEVNULL)
        try:
            for name, network in networks:
                rows += bench_network(name, network, venv, args.repeat, Path(tmp),
                                      (serve_dir, none_dir), old)
        finally:
            for checkout, directory in engines:
                subprocess.run([*control, "stop"], cwd=checkout, stdout=subprocess.DEVNULL,
                               env=dict(os.environ, EEM_SERVE_DIR=directory,
                                        PYTHONPATH=str(checkout)), check=False)
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
