"""MCP tool-call latency: ours (`python -m engine.mcp`) against `reasons-mcp` (ftl-reasons 0.57,
its `mcp` extra), and `python -m engine batch` against one CLI process per command.

    .venv/bin/python scripts/bench/mcp_bench.py [--size 10000] [--repeat 7] [--real FILE ...]
                                                 [--old DIR]

WIPES the database at NEO4J_URI (default: the project's server). The peer runs in its own
virtualenv, `.bench-mcp-venv` (git-ignored; made on first use with ftl-reasons[mcp]==0.57.0
and mcp<2: reasons-mcp 0.57 imports `mcp.server.fastmcp`, which the SDK's 2.x line removed).

Each network (the real system-design network from ../shared/data/networks/, and the synthetic
N+N of scripts/bench/synthetic.py) is imported on both sides: ours into Neo4j through the
library, theirs into a SQLite file through their `api.import_json` (scripts/bench/
peer_runner.py, the Merkle fields filled in first as their export writes them). Then both
servers are started over stdio and driven by the same SDK client (mcp 2.x; it speaks the
older handshake to reasons-mcp), each call timed around `call_tool`, the order alternating
per repetition, after one untimed warm-up call of each operation:
- show: a derived belief in full;
- retract (single dependent): a premise whose retraction changes one other belief
  (re-asserted untimed);
- retract (hub): the premise most beliefs rest on (the synthetic network's hub premise),
  re-asserted untimed;
- what-if retract of the hub (nothing written);
- search: two words of the shown belief's text;
- refused call (ours): `show` with an argument it does not take, answered with a tool error
  by the server's middleware before any tool runs: the transport, the SDK's request path and
  the middleware;
- no-op tool (ours): a tool that does nothing on the same server
  (scripts/bench/mcp_noop_server.py): the whole path of a tool call before any work;
- ping (theirs): the protocol's ping, answered by their SDK itself: their transport (our
  SDK 2.x server answers ping "Method not found": the 2026-07-28 protocol removed it).
Per command: the same show / retract / assert / search lines run as one `python -m engine
batch` process (the time per line) against one `python -m engine ...` process per line, and
against their `reasons --db FILE ...` per line.

With --old DIR (another checkout of this project: `git archive COMMIT | tar -x -C DIR`), its
MCP server is a side too ("ours (old)"), alternated with the others, for a before / after.
Output: JSON lines (workload, network, impl, median_s, min_s, max_s, n) and a markdown table
with ours/theirs ratios (targets: under 0.2 on 10k+10k, under 0.5 on the real network).
"""
from __future__ import annotations

import argparse
import asyncio
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

from synthetic import HUB, generate, single_dependent_premise  # noqa: E402

PEER_VENV = ROOT / ".bench-mcp-venv"
PEER_REQUIREMENTS = ["ftl-reasons[mcp]==0.57.0", "mcp<2"]
REAL_DEFAULT = ROOT.parent / "shared" / "data" / "networks" / "system-design-eem.json"
TOOL_OPS = ("show", "retract (single dependent)", "retract (hub)", "what-if (hub)", "search",
            "refused call", "no-op tool", "ping")
PING = "(ping)"  # a call list's tool name for the protocol's ping, which reaches no tool
REFUSED = "refused call"  # an operation whose answer is a tool error, as it should be
OLD = "ours (old)"  # --old: another checkout's server


def say(text: str) -> None:
    print(f"mcp-bench: {text}", file=sys.stderr, flush=True)


def emit(**fields) -> dict:
    print(json.dumps(fields), flush=True)
    return fields


# --- the peer's virtualenv and its import ------------------------------------------------
def peer_venv() -> Path:
    marker = PEER_VENV / ".installed"
    want = " ".join(PEER_REQUIREMENTS)
    if not marker.exists() or marker.read_text() != want:
        say(f"creating {PEER_VENV} with {want}")
        subprocess.run(["python3", "-m", "venv", str(PEER_VENV)], check=True)
        subprocess.run([str(PEER_VENV / "bin" / "pip"), "install", "--quiet",
                        "--disable-pip-version-check", *PEER_REQUIREMENTS], check=True)
        marker.write_text(want)
    return PEER_VENV


def peer_requests(venv: Path, *requests: dict) -> list[dict]:
    """Answers of scripts/bench/peer_runner.py (ftl-reasons) to `requests`, in order."""
    lines = "".join(json.dumps(r) + "\n" for r in [*requests, {"op": "quit"}])
    done = subprocess.run([str(venv / "bin" / "python"), str(BENCH / "peer_runner.py"),
                           "--impl", "ftl-reasons"], input=lines, capture_output=True,
                          text=True, check=True)
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    for a in answers:
        if not a.get("ok"):
            raise RuntimeError(f"peer_runner: {a.get('error')}")
    return answers


# --- the network and the targets --------------------------------------------------------------
def users_of(network: dict) -> dict[str, set[str]]:
    users: dict[str, set[str]] = defaultdict(set)
    for bid, node in network["nodes"].items():
        for j in node.get("justifications", []):
            for a in [*j.get("antecedents", []), *j.get("outlist", [])]:
                users[a].add(bid)
    return users


def resting_on(users: dict[str, set[str]], bid: str) -> int:
    seen, stack = set(), [bid]
    while stack:
        for u in users.get(stack.pop(), ()):
            if u not in seen:
                seen.add(u)
                stack.append(u)
    return len(seen)


def targets(network: dict) -> dict[str, str]:
    nodes = network["nodes"]
    users = users_of(network)
    live_premises = [i for i, n in sorted(nodes.items())
                     if not n.get("justifications") and n.get("truth_value", "IN") == "IN"]
    if HUB in nodes:
        hub, single = HUB, single_dependent_premise(network)
    else:
        hub = max(live_premises, key=lambda i: (resting_on(users, i), i))
        single = next(i for i in live_premises if len(users.get(i, ())) == 1
                      and not users.get(next(iter(users[i]))))
    derived = sorted(i for i, n in nodes.items()
                     if n.get("justifications") and n.get("truth_value", "IN") == "IN")
    shown = derived[len(derived) // 2]
    words = [w.strip(".,;:()'\"").lower() for w in nodes[shown]["text"].split()]
    words = [w for w in words if len(w) > 4 and w.isalpha()][:2] or ["the"]
    return {"show": shown, "single": single, "hub": hub, "words": " ".join(words)}


# --- ours: the store, loaded through the library -------------------------------------------------
def load_ours(path: Path) -> None:
    from adapters.cypher_files import cypher
    from adapters.formats import read_network_file
    from adapters.neo4j.connection import Neo4jSettings, connect
    from adapters.neo4j.store import Neo4jStore
    from engine import interchange, tms

    settings = Neo4jSettings.from_env(os.environ)
    driver = connect(settings)
    store = Neo4jStore(driver, settings.database, settings.uri)
    try:
        tms.reset(store)
        store.init_schema()
        network, stored = read_network_file(str(path))
        interchange.import_network(store, network, stored)
        with driver.session(database=settings.database) as session:  # full-text index filled
            session.run(cypher("await_indexes"), {"seconds": 300}).consume()
    finally:
        store.close()


# --- the MCP calls -------------------------------------------------------------------------
def server_env(extra: dict[str, str], root: Path = ROOT) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k.startswith("NEO4J_")}
    env.update(PYTHONPATH=str(root), **extra)
    return env


class Side:
    """One MCP server and how each operation is called on it."""

    def __init__(self, impl: str, params, calls: dict) -> None:
        self.impl, self.params, self.calls = impl, params, calls


def our_side(t: dict[str, str], root: Path = ROOT, impl: str = "ours") -> Side:
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "engine.mcp"],
                                   env=server_env({}, root), cwd=str(root))
    return Side(impl, params, {
        "show": [("show", {"id": t["show"]})],
        "retract (single dependent)": [("retract", {"id": t["single"]}),
                                       ("assert_belief", {"id": t["single"]})],
        "retract (hub)": [("retract", {"id": t["hub"]}), ("assert_belief", {"id": t["hub"]})],
        "what-if (hub)": [("what_if", {"operation": "retract", "id": t["hub"]})],
        "search": [("search", {"words": t["words"]})],
        REFUSED: [("show", {"id": t["show"], "bogus": 1})],
    })


def noop_side() -> Side:
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable,
                                   args=[str(BENCH / "mcp_noop_server.py")],
                                   env=server_env({}), cwd=str(ROOT))
    return Side("ours", params, {"no-op tool": [("noop", {})]})


def their_side(venv: Path, db: Path, workdir: Path, t: dict[str, str]) -> Side:
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=str(venv / "bin" / "reasons-mcp"),
                                   env={"REASONS_DB": str(db)}, cwd=str(workdir))
    return Side("reasons-mcp", params, {
        "show": [("show", {"node_id": t["show"]})],
        "retract (single dependent)": [("retract", {"node_id": t["single"]}),
                                       ("assert_belief", {"node_id": t["single"]})],
        "retract (hub)": [("retract", {"node_id": t["hub"]}),
                          ("assert_belief", {"node_id": t["hub"]})],
        "what-if (hub)": [("what_if", {"node_id": t["hub"], "action": "retract"})],
        "search": [("search", {"query": t["words"]})],
        "ping": [(PING, {})],
    })


async def measure_tools(sides: list[Side], repeat: int) -> dict[tuple[str, str], list[float]]:
    from contextlib import AsyncExitStack

    from mcp import Client

    samples: dict[tuple[str, str], list[float]] = defaultdict(list)
    async with AsyncExitStack() as stack:
        clients = {id(s): await stack.enter_async_context(
                       Client(s.params, read_timeout_seconds=600))
                   for s in sides}

        async def once(side: Side, op: str) -> float:
            client = clients[id(side)]
            (tool, arguments), *untimed = side.calls[op]
            if tool == PING:
                started = time.perf_counter()
                await client.send_ping()
                return time.perf_counter() - started
            started = time.perf_counter()
            result = await client.call_tool(tool, arguments)
            seconds = time.perf_counter() - started
            if result.is_error != (op == REFUSED):
                raise RuntimeError(f"{side.impl} {tool} {arguments}: {result.content}")
            for tool, arguments in untimed:
                undo = await client.call_tool(tool, arguments)
                if undo.is_error:
                    raise RuntimeError(f"{side.impl} {tool} {arguments}: {undo.content}")
            return seconds

        for op in TOOL_OPS:
            serving = [side for side in sides if op in side.calls]
            for side in serving:
                await once(side, op)  # warm-up: query plans, caches, lazy imports
            for rep in range(repeat):
                for side in (serving if rep % 2 == 0 else serving[::-1]):
                    samples[(op, side.impl)].append(await once(side, op))
    return samples


# --- per command ---------------------------------------------------------------------------
def command_lines(t: dict[str, str]) -> list[list[str]]:
    return [["show", t["show"]], ["retract", t["single"]], ["assert", t["single"]],
            ["search", *t["words"].split()], ["show", t["hub"]]]


def their_command(line: list[str], t: dict[str, str]) -> list[str]:
    verb, *rest = line
    return {"search": ["search", " ".join(rest)]}.get(verb, [verb, *rest])


def measure_commands(t: dict[str, str], venv: Path, db: Path, workdir: Path,
                     repeat: int) -> dict[str, list[float]]:
    lines = command_lines(t)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out: dict[str, list[float]] = defaultdict(list)

    def run(argv, cwd, stdin=None) -> float:
        started = time.perf_counter()
        done = subprocess.run(argv, cwd=cwd, env=env, input=stdin, capture_output=True,
                              text=True)
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            raise RuntimeError(f"{argv} exited {done.returncode}: {done.stderr[-400:]}")
        return seconds

    script = "".join(" ".join(line) + "\n" for line in lines)
    for _ in range(repeat):
        out["batch"].append(run([sys.executable, "-m", "engine", "batch", "-", "--json"], ROOT,
                                script) / len(lines))
        out["one process per command"].append(statistics.mean(
            run([sys.executable, "-m", "engine", *line, "--json"], ROOT) for line in lines))
        out["reasons per command"].append(statistics.mean(
            run([str(venv / "bin" / "reasons"), "--db", str(db), *their_command(line, t)],
                workdir) for line in lines))
    return out


# --- one network ----------------------------------------------------------------------------------
def bench_network(name: str, network: dict, venv: Path, repeat: int, repeat_cli: int,
                  workdir: Path, old: Path | None = None) -> list[dict]:
    beliefs = len(network["nodes"])
    say(f"{name}: {beliefs} beliefs")
    t = targets(network)
    say(f"{name}: targets {t}")
    slug = "".join(c if c.isalnum() else "-" for c in name)
    plain = workdir / f"{slug}.json"
    plain.write_text(json.dumps(network))
    hashed, db = workdir / f"{slug}-hashed.json", workdir / f"{slug}.db"
    peer_requests(venv, {"op": "add_hashes", "file": str(plain), "out": str(hashed)},
                  {"op": "import", "file": str(hashed), "db": str(db)})
    load_ours(plain)
    sides = [our_side(t), their_side(venv, db, workdir, t), noop_side()]
    if old is not None:
        sides.insert(1, our_side(t, old, OLD))
    rows = []
    samples = asyncio.run(measure_tools(sides, repeat))
    for (op, impl), values in samples.items():
        rows.append(emit(workload=op, mode="mcp", network=name, beliefs=beliefs, impl=impl,
                         **stats(values)))
    for impl, values in measure_commands(t, venv, db, workdir, repeat_cli).items():
        rows.append(emit(workload="per command", mode="cli", network=name, beliefs=beliefs,
                         impl=impl, **stats(values)))
    return rows


def stats(values: list[float]) -> dict:
    return {"median_s": statistics.median(values), "min_s": min(values),
            "max_s": max(values), "n": len(values)}


def ms(seconds: float) -> str:
    if seconds < 0.1:
        return f"{seconds * 1000:.2f} ms"
    return f"{seconds * 1000:.1f} ms" if seconds < 10 else f"{seconds:.1f} s"


def table(rows: list[dict]) -> str:
    by = {(r["network"], r["workload"], r["impl"]): r for r in rows}
    networks = list(dict.fromkeys(r["network"] for r in rows))
    with_old = any(r["impl"] == OLD for r in rows)
    lines = ["| network | operation (MCP tool call) | ours | reasons-mcp | ours/theirs |"
             + (" ours (old) | old/theirs |" if with_old else ""),
             "|---|---|---|---|---|" + ("---|---|" if with_old else "")]
    for net in networks:
        for op in TOOL_OPS:
            ours, theirs = by.get((net, op, "ours")), by.get((net, op, "reasons-mcp"))
            if ours and theirs:
                before = by.get((net, op, OLD))
                lines.append(f"| {net} | {op} | {ms(ours['median_s'])} | "
                             f"{ms(theirs['median_s'])} | "
                             f"{ours['median_s'] / theirs['median_s']:.3f} |"
                             + (f" {ms(before['median_s'])} | "
                                f"{before['median_s'] / theirs['median_s']:.3f} |"
                                if before else (" - | - |" if with_old else "")))
            elif ours or theirs:  # measured on one side only
                cells = [ms(x["median_s"]) if x else "-" for x in (ours, theirs)]
                lines.append(f"| {net} | {op} | {cells[0]} | {cells[1]} | - |"
                             + (" - | - |" if with_old else ""))
    lines += ["", "| network | per command (median of the mean per line) | ours: batch | "
              "ours: one process each | reasons: one process each |", "|---|---|---|---|---|"]
    for net in networks:
        cells = [by.get((net, "per command", impl)) for impl in
                 ("batch", "one process per command", "reasons per command")]
        if all(cells):
            lines.append(f"| {net} | show, retract, assert, search, show | "
                         + " | ".join(ms(c["median_s"]) for c in cells) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, action="append",
                        help="synthetic N (N premises + N derived; default 10000)")
    parser.add_argument("--real", action="append", type=Path,
                        help=f"a real network.json (default {REAL_DEFAULT.name} when present)")
    parser.add_argument("--repeat", type=int, default=7, help="timed calls per operation")
    parser.add_argument("--repeat-cli", type=int, default=3,
                        help="timed runs of the per-command lines")
    parser.add_argument("--old", type=Path, help="another checkout: its MCP server too")
    args = parser.parse_args()
    venv = peer_venv()
    networks = []
    for path in args.real or ([REAL_DEFAULT] if REAL_DEFAULT.exists() else []):
        networks.append((path.stem.removesuffix("-eem"), json.loads(path.read_text())))
    for n in [n for n in args.size or [10000] if n > 0]:  # --size 0: the real network only
        networks.append((f"synthetic {n // 1000}k+{n // 1000}k", generate(n)))
    rows = []
    with tempfile.TemporaryDirectory(prefix="mcp-bench-") as tmp:
        for name, network in networks:
            rows += bench_network(name, network, venv, args.repeat, args.repeat_cli,
                                  Path(tmp), args.old.resolve() if args.old else None)
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
