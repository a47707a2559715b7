"""Whole-network work at scale, each step the `eem` command a user runs, printed as JSON lines.

    .venv/bin/python scripts/bench/scale_bench.py --size 100000          # 100k+100k
    .venv/bin/python scripts/bench/scale_bench.py --size 1000000         # 1M+1M (see below)
    scripts/bench/run --huge                                             # make bench, 1M too

For each size N (N premises + N derived, scripts/bench/synthetic.py's shape): the network.json
written node by node into --dir, the database wiped, then, each in its own process timed end
to end with the process's peak resident memory (its rusage: the client's memory):
- `python -m engine import FILE` (in parts when the file holds more than one part's beliefs:
  engine/import_parts.py), `verify`, `export -o FILE`;
- `retract` of the hub premise (about three quarters of the derived beliefs go OUT) and
  `assert` of it again, each against the floor: one bare write transaction labelling exactly
  the beliefs it changed (`label_out`, `label_in` by element id), on the same graph;
- `retract` and `assert` of a premise with a single dependent;
then, with the network in place, `show` and `search` through the resident engine (`serve
start`: each a client process; the engine's resident memory) and through the MCP server
(`python -m engine.mcp` over stdio, the SDK's client; the server's resident memory), the
medians of --calls each after one warm-up.
Beside each step, the server's side: the largest heap the JVM had in use and the largest
transaction (Neo4j's estimate of its heap), sampled every 0.25 s while the step ran (the
server's own transaction memory cap is `dbms.memory.transaction.total.max`, 70% of the heap),
and the CPU seconds the client process and the server used: on a shared machine the wall
time swings with the load, the CPU seconds much less. The load average is printed with every
figure.

Targets (issue 47), at 1M+1M: import at most 10 minutes with the importer under 4 GB; verify
clean, at most 60 s; the hub retraction against the floor. Large sizes are benchmarks only,
never in CI. WARNING: it WIPES the database at NEO4J_URI.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import HUB, derived_id, nodes, single_dependent_of, write_file

from adapters.cypher_files import cypher
from adapters.neo4j.connection import Neo4jSettings, connect
from adapters.neo4j.store import Neo4jStore


def emit(**fields) -> None:
    print(json.dumps(fields), flush=True)


def load() -> float:
    return round(os.getloadavg()[0], 2)


# `python -m engine ARGS` that prints its peak resident memory (KB) and the CPU seconds it
# used on stderr as it exits
_MEASURED = ("import atexit, resource, runpy, sys\n"
             "def said():\n"
             "    r = resource.getrusage(resource.RUSAGE_SELF)\n"
             "    print('PEAK_KB', r.ru_maxrss, r.ru_utime + r.ru_stime, file=sys.stderr)\n"
             "atexit.register(said)\n"
             "sys.argv = ['engine', *sys.argv[1:]]\n"
             "runpy.run_module('engine', run_name='__main__')\n")
CPU: dict[str, float] = {}  # the CPU seconds of the last `eem` process


def eem(*args: str, env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Seconds and peak resident MB of one `python -m engine ARGS` in its own process (run
    here, not by a resident engine, and none started: EEM_SERVE=0, unless `env` names one),
    and its stdout (its CPU seconds in CPU["client"]); a failure stops the benchmark."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "EEM_SERVE": "0", **(env or {})}
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _MEASURED, *args], env=env,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode:
        raise SystemExit(f"Error: eem {' '.join(args)} exited {proc.returncode}: "
                         f"{proc.stderr.strip()[-2000:]}")
    said = [line.split() for line in proc.stderr.splitlines() if line.startswith("PEAK_KB ")]
    CPU["client"] = float(said[-1][2]) if said else 0.0
    return seconds, (int(said[-1][1]) if said else 0) / 1024, proc.stdout


def server_cpu_seconds() -> float:
    """The CPU seconds the local server's process has used (user + system; scripts/neo4j's
    pid file); 0 when it cannot be read."""
    home = Path(os.environ.get("NEO4J_LOCAL_HOME") or ROOT / ".neo4j")
    try:
        pid = (home / "run" / "neo4j.pid").read_text().strip()
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class ServerWatch:
    """Samples the server every 0.25 s while a step runs: the JVM's heap in use (JMX) and
    the largest running transaction's estimated heap."""

    def __init__(self, driver, database: str):
        self._driver, self._database = driver, database
        self.heap = self.transaction = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        with self._driver.session(database=self._database) as session:
            while not self._stop.is_set():
                try:
                    heap = session.run(cypher("server_heap_in_use")).single()
                    self.heap = max(self.heap, int(heap["used"]) if heap else 0)
                    for r in session.run(cypher("transactions_heap")):
                        self.transaction = max(self.transaction, int(r["used"] or 0))
                except Exception:  # noqa: BLE001 - a sample missed is a sample missed
                    pass
                self._stop.wait(0.25)

    def __enter__(self) -> "ServerWatch":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def fields(self) -> dict:
        return {"server_heap_peak_mb": round(self.heap / 2**20),
                "server_tx_peak_mb": round(self.transaction / 2**20)}


def server_rss_mb() -> dict:
    """The local server's resident memory now and at its peak (scripts/neo4j's pid file)."""
    home = Path(os.environ.get("NEO4J_LOCAL_HOME") or ROOT / ".neo4j")
    try:
        pid = (home / "run" / "neo4j.pid").read_text().strip()
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return {}
    got = {k: int(v.split()[0]) // 1024 for k, v in
           re.findall(r"^(VmRSS|VmHWM):\s+(.*)$", status, re.MULTILINE)}
    return {"server_rss_mb": got.get("VmRSS"), "server_rss_peak_mb": got.get("VmHWM")}


def process_rss_mb(pid: int) -> dict:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return {}
    got = {k: int(v.split()[0]) // 1024 for k, v in
           re.findall(r"^(VmRSS|VmHWM):\s+(.*)$", status, re.MULTILINE)}
    return {"rss_mb": got.get("VmRSS"), "rss_peak_mb": got.get("VmHWM")}


def step(driver, database: str, name: str, size: int, *args: str, **extra) -> dict:
    """One `eem ARGS` process, its server side sampled; emits and returns its fields."""
    before, server_cpu = load(), server_cpu_seconds()
    with ServerWatch(driver, database) as watch:
        seconds, peak, out = eem(*args)
    fields = {"workload": name, "size": 2 * size, "seconds": round(seconds, 2),
              "client_peak_mb": round(peak), "client_cpu_s": round(CPU["client"], 1),
              "server_cpu_s": round(server_cpu_seconds() - server_cpu, 1), **watch.fields(),
              **extra, "load_before": before, "load_after": load()}
    emit(**fields)
    fields["stdout"] = out
    return fields


def floor_write(driver, database: str, name: str, elements: list[str]) -> float:
    """Seconds for one bare write transaction running the named label query on `elements`."""
    with driver.session(database=database) as session:
        start = time.perf_counter()
        session.execute_write(lambda tx: tx.run(cypher(name), elements=elements).consume())
        return time.perf_counter() - start


def hub_against_floor(store: Neo4jStore, driver, database: str, size: int) -> None:
    retracted = step(driver, database, "retract hub", size, "retract", HUB)
    changed = store.read(lambda tx: tx.out_belief_ids())  # everything was IN before
    with driver.session(database=database) as session:
        elements = [r["element"] for r in session.run(cypher("element_ids_of"), ids=changed)]
    asserted = step(driver, database, "assert hub", size, "assert", HUB)
    before = load()
    floor_out = floor_write(driver, database, "label_out", elements)
    floor_in = floor_write(driver, database, "label_in", elements)
    emit(workload="hub floor", size=2 * size, changed=len(elements),
         floor_out_s=round(floor_out, 2), floor_in_s=round(floor_in, 2),
         retract_over_floor=round(retracted["seconds"] / floor_out, 2),
         assert_over_floor=round(asserted["seconds"] / floor_in, 2),
         load_before=before, load_after=load())


def resident_reads(size: int, shown: str, words: str, single: str, calls: int) -> None:
    """show, search and retract + assert of one dependent through a resident engine."""
    with tempfile.TemporaryDirectory(prefix="scale-serve-") as serve_dir:
        env = {"EEM_SERVE_DIR": serve_dir}
        eem("serve", "start", env=env)
        try:
            status = eem("serve", "status", env=env)[2]
            pid = int(re.search(r"pid (\d+)", status).group(1))  # type: ignore[union-attr]
            for name, lines in (("show", [["show", shown]]), ("search", [["search", words]]),
                                ("retract + assert (one dependent)",
                                 [["retract", single], ["assert", single]])):
                for line in lines:
                    eem(*line, env=env)  # warm-up
                before = load()
                samples = [statistics.mean(eem(*line, env=env)[0] for line in lines)
                           for _ in range(calls)]
                emit(workload=f"{name} (resident engine, a client process each)",
                     size=2 * size, median_s=round(statistics.median(samples), 4),
                     min_s=round(min(samples), 4), n=calls, **{
                         f"engine_{k}": v for k, v in process_rss_mb(pid).items()},
                     load_before=before, load_after=load())
        finally:
            eem("serve", "stop", env=env)


def mcp_reads(size: int, shown: str, words: str, calls: int) -> None:
    """show and search through the MCP server over stdio (the SDK's client, as an agent)."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    env = {k: v for k, v in os.environ.items() if k.startswith("NEO4J_")}
    params = StdioServerParameters(command=sys.executable, args=["-m", "engine.mcp"],
                                   env={**env, "PYTHONPATH": str(ROOT)}, cwd=str(ROOT))

    async def measure() -> None:
        async with Client(params, read_timeout_seconds=600) as client:
            children = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()
                        and _parent(int(p.name)) == os.getpid()]
            for tool, arguments in (("show", {"id": shown}), ("search", {"words": words})):
                await client.call_tool(tool, arguments)  # warm-up
                before, samples = load(), []
                for _ in range(calls):
                    started = time.perf_counter()
                    result = await client.call_tool(tool, arguments)
                    samples.append(time.perf_counter() - started)
                    if result.is_error:
                        raise SystemExit(f"Error: MCP {tool}: {result.content}")
                server = next((process_rss_mb(c) for c in children
                               if b"engine.mcp" in Path(f"/proc/{c}/cmdline").read_bytes()), {})
                emit(workload=f"{tool} (MCP tool call)", size=2 * size,
                     median_ms=round(statistics.median(samples) * 1000, 2),
                     min_ms=round(min(samples) * 1000, 2), n=calls,
                     **{f"mcp_server_{k}": v for k, v in server.items()},
                     load_before=before, load_after=load())

    asyncio.run(measure())


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return -1


STEPS = ("import", "verify", "export", "hub", "single", "resident", "mcp")


def run(size: int, directory: Path, store: Neo4jStore, driver, database: str,
        keep: bool, calls: int, steps: frozenset[str] = frozenset(STEPS)) -> None:
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

    step(driver, database, "import", size, "import", str(path))
    if "verify" in steps:
        verified = step(driver, database, "verify", size, "verify")
        emit(workload="verify says", size=2 * size,
             says=verified["stdout"].strip().splitlines()[-1:])
    if "export" in steps:
        exported = directory / f"exported-{size}.json"
        step(driver, database, "export", size, "export", "-o", str(exported))
        emit(workload="exported", size=2 * size, mb=round(exported.stat().st_size / 2**20))
        if not keep:
            exported.unlink()
    if "hub" in steps:
        hub_against_floor(store, driver, database, size)
    single = single_dependent_of(nodes(size))
    if "single" in steps:
        step(driver, database, "retract (one dependent)", size, "retract", single)
        step(driver, database, "assert (one dependent)", size, "assert", single)
    shown = derived_id(5, size // 20)
    words = "conclusion"
    if "resident" in steps:
        resident_reads(size, shown, words, single, calls)
    if "mcp" in steps:
        mcp_reads(size, shown, words, calls)
    emit(workload="server memory", size=2 * size, **server_rss_mb(), load=load())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, action="append",
                        help="N (premises = derived = N); default 100000")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/eem-scale-bench"),
                        help="where the network files are written (and reused)")
    parser.add_argument("--keep", action="store_true", help="keep the exported files")
    parser.add_argument("--calls", type=int, default=9,
                        help="timed show / search calls through each of the resident "
                             "engine and MCP")
    parser.add_argument("--steps", default=",".join(STEPS),
                        help=f"which steps after the import, comma-separated (default all:"
                             f" {','.join(STEPS)})")
    args = parser.parse_args()
    steps = frozenset(args.steps.split(","))
    if steps - set(STEPS):
        parser.error(f"--steps: unknown {', '.join(sorted(steps - set(STEPS)))}")
    args.dir.mkdir(parents=True, exist_ok=True)
    settings = Neo4jSettings.from_env(os.environ)
    driver = connect(settings)
    store = Neo4jStore(driver, settings.database, settings.uri)
    try:
        for size in args.size or [100000]:
            run(size, args.dir, store, driver, settings.database, args.keep, args.calls,
                steps)
    finally:
        store.close()


if __name__ == "__main__":
    main()
