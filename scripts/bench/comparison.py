"""This engine side by side with ftl-reasons and reasonsforge, on the same work in one run.

    scripts/bench/run [--large] [--repeat N] [--repeat-cli N] [--only GROUP ...]
        [--size N ...] [--impl NAME ...] [--out DIR]

(scripts/bench/run makes .bench-venv and starts Neo4j, then runs this with .venv's python.)
WIPES the database at NEO4J_URI. Peers run in .bench-venv through scripts/bench/peer_runner.py
(in-process) or their console scripts (per command); our side runs here.

The network: scripts/bench/synthetic.py's N premises + N derived in 10 layers (N = 10k, and
100k with --large), the same file for everyone. It carries the peers' Merkle fields
(`text_hash`, `content_hash`), as their own `export` writes them: without those, their import
recomputes each node's whole ancestry hash afresh, which on this 10-layer network grows far
faster than the network (the `unhashed` group shows it at 2k+2k). Our import ignores them.

Groups (--only; all by default). Each workload runs on each implementation in turn,
repetition by repetition, the order rotating, so a load spike hits every implementation alike:
- in-process: import, retract the hub premise, re-assert it, retract a premise with a single
  dependent (re-asserted untimed), verify; --warmup untimed repetitions first (query plans,
  caches), then --repeat timed ones. Ours: the library call on a connected store (one write
  transaction each, committed; import = read_network_file + interchange.import_network on an
  emptied graph). Theirs: `api.import_json` (reads the file, writes SQLite), then their
  in-memory `Network` methods (`retract`, `assert_node`, `recompute_all`; nothing saved).
- per-command: the same as a user runs it, Python start-up included, --repeat-cli times:
  `python -m engine import|retract|assert|verify ... --json` against `reasons|reasonsforge
  --db FILE import-json|retract|assert|propagate` (each loads the SQLite database and saves it
  back; each repetition starts from a copy of the freshly imported database).
- derive: on the same network, 10 rounds of each sampling strategy (alphabetical = the
  default, random = --sample, cluster, intra-cluster), budget 300, seed 7. Timed: one round's
  prompt from the store (ours: engine.derive.view.read_view + prompt.build_prompt; reasonsforge:
  api.export_network + derive.build_prompt, as its `derive` does each round). reasonsforge's
  cluster rounds refit KMeans (n_init=10) every round; only the first --rf-cluster-rounds are
  timed, the others reuse the identical fit (peer_runner.RememberedKMeans) and count for
  coverage only. Coverage (no model): the share of IN premises listed in at least one of the
  10 prompts (lines with null timings). Embeddings cached on both sides, before round 1: the
  same vectors (prompt_build.RandomUnitEmbedder's seeded unit vectors) stored in Neo4j and in
  our memory cache, and in reasonsforge's ClusterCache.
- real: each ../shared/data/networks/*.json (skipped when absent): import (--repeat-real),
  where the labels differ and why (our import report), the median over 20 random IN premises
  retracted (each re-asserted untimed), and the derive group with all-MiniLM-L6-v2 vectors
  (sampling_coverage's file cache; random vectors when the model is not installed).
- unhashed: the peers' import of the generator output without their Merkle fields, at
  --unhashed-size (2k+2k), once each.

`changed` is the number of beliefs whose label changed, the target included (imports: beliefs
imported; verify: labels found wrong, 0 when clean). On the acyclic synthetic network it must
agree across implementations; any disagreement is a `check` line and marked in the table.
An implementation that fails (say a half-edited build) gets a `failed` check and rows with an
`error` field, and sits out the rest of that group; the other rows are still measured.

Output: one JSON line per measurement (workload, mode, size = beliefs, impl, median_s, min_s,
max_s, changed, repeat, ...) on stdout and in reports/bench/bench-<time>.jsonl, other lines
(machine, check, skipped) without a `workload` key; then a markdown table with the ours/theirs
ratios (> 1: we are slower), also in reports/bench/bench-<time>.md (and latest.jsonl/latest.md).

The parts: comparison_record.py (JSON lines, repetitions, the agreement check),
comparison_sides.py (ours, the peers, the command lines), comparison_bench.py (a run's state),
comparison_tms.py, comparison_derive.py and comparison_real.py (the workloads),
comparison_report.py (the table); this file is the command line.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from comparison_bench import Bench  # noqa: E402
from comparison_derive import derive  # noqa: E402
from comparison_real import real  # noqa: E402
from comparison_record import Recorder, say, size_label  # noqa: E402
from comparison_report import markdown  # noqa: E402
from comparison_sides import IMPLS  # noqa: E402
from comparison_tms import in_process, per_command, unhashed  # noqa: E402
from synthetic import single_dependent_premise  # noqa: E402

from adapters.neo4j.connection import Neo4jSettings  # noqa: E402

GROUPS = ("in-process", "per-command", "derive", "real", "unhashed")


# --- main ---------------------------------------------------------------------------------
def versions(bench_python: str) -> dict:
    code = ("import json; from importlib import metadata as m; print(json.dumps("
            "{p: m.version(p) for p in ('ftl-reasons', 'reasonsforge')}))")
    try:
        return json.loads(subprocess.run([bench_python, "-c", code], capture_output=True,
                                         text=True, check=True).stdout)
    except (subprocess.CalledProcessError, json.JSONDecodeError, OSError):
        return {}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench-python", default=str(ROOT / ".bench-venv" / "bin" / "python"))
    parser.add_argument("--large", action="store_true", help="also 100k+100k")
    parser.add_argument("--size", type=int, action="append",
                        help="N (premises = derived = N) instead of 10k (and 100k)")
    parser.add_argument("--repeat", type=int, default=5, help="in-process repetitions")
    parser.add_argument("--warmup", type=int, default=1,
                        help="untimed in-process repetitions first (query plans, caches)")
    parser.add_argument("--repeat-cli", type=int, default=3, help="per-command repetitions")
    parser.add_argument("--repeat-real", type=int, default=3, help="real-network imports")
    parser.add_argument("--unhashed-size", type=int, default=2000)
    parser.add_argument("--rf-cluster-rounds", type=int, default=None,
                        help="reasonsforge cluster rounds timed (default 2, 1 above 10k+10k): "
                             "each refits KMeans with n_init=10, about 45 s at 10k premises on "
                             "2 loaded cores; the later rounds reuse the identical fit and "
                             "count for coverage only")
    parser.add_argument("--only", choices=GROUPS, action="append")
    parser.add_argument("--impl", choices=IMPLS, action="append")
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "bench")
    args = parser.parse_args()
    args.impl = args.impl or list(IMPLS)
    groups = args.only or list(GROUPS)
    sizes = args.size or ([10_000, 100_000] if args.large else [10_000])

    args.out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    rec = Recorder(args.out / f"bench-{stamp}.jsonl")
    machine = dict(started=datetime.now().isoformat(timespec="seconds"), cpus=os.cpu_count(),
                   load_start=[round(x, 2) for x in os.getloadavg()],
                   python=platform.python_version(), peers=versions(args.bench_python),
                   neo4j_uri=os.environ.get("NEO4J_URI") or Neo4jSettings().uri,
                   eem_engine=metadata.version("eem-engine") if _installed("eem-engine") else None,
                   sizes=sizes, groups=groups, repeat=args.repeat, repeat_cli=args.repeat_cli)
    rec.line({"machine": machine})
    workdir = Path(tempfile.mkdtemp(prefix="eem-bench-"))
    bench = Bench.start(args, rec, workdir)
    started = time.perf_counter()
    def group(name: str, work) -> None:
        try:
            work()
        except Exception as e:  # one broken group must not cost the others
            rec.check(check="group failed", group=name, error=f"{type(e).__name__}: {e}"[:600])
            say(f"group {name} failed: {type(e).__name__}: {e}")

    try:
        for n in sizes:
            say(f"network {size_label(2 * n)}: generating")
            _, hashed, data = bench.network_files(n)
            size = len(data["nodes"])
            single = single_dependent_premise(data)
            if "in-process" in groups:
                group("in-process", lambda: in_process(bench, hashed, size, single))
            if "derive" in groups:
                group("derive", lambda: derive(bench, hashed, size, "synthetic", "random"))
            if "per-command" in groups:
                group("per-command", lambda: per_command(bench, hashed, size, single))
        if "real" in groups:
            group("real", lambda: real(bench))
        if "unhashed" in groups:
            group("unhashed", lambda: unhashed(bench))
    finally:
        bench.close()
        if any(c.get("check") in ("failed", "group failed") for c in rec.checks):
            say(f"something failed: kept {workdir} (peer runner logs, databases, files)")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    machine["load_end"] = [round(x, 2) for x in os.getloadavg()]
    machine["seconds"] = round(time.perf_counter() - started, 1)
    rec.line({"machine_end": {"load_end": machine["load_end"], "seconds": machine["seconds"]}})
    rec.file.close()
    table = markdown(rec, machine)
    md = rec.path.with_suffix(".md")
    md.write_text(table, encoding="utf-8")
    shutil.copyfile(rec.path, args.out / "latest.jsonl")
    shutil.copyfile(md, args.out / "latest.md")
    print()
    print(table)
    say(f"done in {machine['seconds']} s: {rec.path} and {md}")
    return 0


def _installed(name: str) -> bool:
    try:
        metadata.version(name)
        return True
    except metadata.PackageNotFoundError:
        return False


if __name__ == "__main__":
    sys.exit(main())
