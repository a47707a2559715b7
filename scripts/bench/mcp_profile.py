"""Where an MCP read tool call spends its time outside the store (issue 25), layer by layer.

    .venv/bin/python scripts/bench/mcp_profile.py [--calls 200] [--profile]

WIPES the database at NEO4J_URI and loads the real system-design network. For `show` and
`search` (the targets of scripts/bench/mcp_bench.py), the median over --calls of:
- store: the library call (tms.show / search.search) on the server's store, and the number of
  Cypher statements and transactions it ran;
- tool: AgentTools' method (the library call and the JSON-ready dict);
- shaping: the result as the SDK shapes it (the tool's convert_result: structured content
  and its JSON text), without the call;
- thread hop: anyio.to_thread.run_sync of a function that does nothing, as the SDK runs a
  sync tool;
- SDK in memory: client.call_tool through the SDK's in-memory transport (no stdio, no
  subprocess), the tool's own time inside it (clocked on the worker thread), and the SDK's
  path: each call's total minus its tool's time.
--profile prints cProfile's top functions over the SDK calls of each tool.
"""
from __future__ import annotations

import argparse
import asyncio
import cProfile
import functools
import io
import json
import os
import pstats
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(BENCH))

from mcp_bench import REAL_DEFAULT, load_ours, targets


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def timed(call, n: int) -> list[float]:
    call()
    out = []
    for _ in range(n):
        started = time.perf_counter()
        call()
        out.append(time.perf_counter() - started)
    return out


class StatementCounter:
    """Counts Cypher statements the driver runs, in transactions and auto-committed (the
    driver's run methods patched for the count)."""

    def __init__(self) -> None:
        from neo4j._sync.work import session, transaction

        self.statements = 0
        self._patched = [(transaction.TransactionBase, transaction.TransactionBase.run),
                         (session.Session, session.Session.run)]
        counter = self
        for owner, original in self._patched:
            def run(self, query, parameters=None, _original=original, **kwargs):
                counter.statements += 1
                return _original(self, query, parameters, **kwargs)

            owner.run = run  # type: ignore[method-assign]

    def close(self) -> None:
        for owner, original in self._patched:
            owner.run = original  # type: ignore[method-assign]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--real", type=Path, default=REAL_DEFAULT)
    args = parser.parse_args()
    network = json.loads(args.real.read_text())
    t = targets(network)
    load_ours(args.real)

    import anyio.to_thread
    from mcp import Client

    from engine import tms
    from engine.mcp.server import build_server
    from engine.mcp.tools import AgentTools
    from engine.reading import search as searching
    from engine.wiring.context import opened
    from engine.wiring.memories import find
    from engine.wiring.settings import Settings

    settings = Settings.of(os.environ)
    opening = opened(settings, find(settings, Path.cwd()), actor="mcp:bench", retry_seconds=3)
    ctx = opening.__enter__()
    store = ctx.store
    tools = AgentTools(report_dir=ROOT / "reports")
    in_thread: list[float] = []  # each tool call's own time, on the SDK's worker thread
    for name in ("show", "search"):
        method = getattr(tools, name)

        def clocked(*a, _method=method, **k):
            started = time.perf_counter()
            try:
                return _method(*a, **k)
            finally:
                in_thread.append(time.perf_counter() - started)

        functools.update_wrapper(clocked, method)
        setattr(tools, name, clocked)
    server = build_server(tools, ctx, uri=os.environ.get("NEO4J_URI", ""))
    calls = {
        "show": (lambda: tms.show(store, t["show"]), lambda: tools.show(ctx, t["show"]),
                 "show", {"id": t["show"]}),
        "search": (lambda: searching.search(store, t["words"], limit=searching.DEFAULT_LIMIT),
                   lambda: tools.search(ctx, t["words"]), "search", {"words": t["words"]}),
    }
    manager = server._tool_manager  # the SDK's own result shaping, measured
    rows = []

    async def sdk(name: str, arguments: dict, n: int, profile: cProfile.Profile | None
                  ) -> tuple[list[float], list[float]]:
        async with Client(server) as client:
            await client.call_tool(name, arguments)
            samples, hops = [], []
            for _ in range(n):
                started = time.perf_counter()
                await anyio.to_thread.run_sync(lambda: None)
                hops.append(time.perf_counter() - started)
            if profile:
                profile.enable()
            for _ in range(n):
                started = time.perf_counter()
                result = await client.call_tool(name, arguments)
                samples.append(time.perf_counter() - started)
                assert not result.is_error, result.content
            if profile:
                profile.disable()
            return samples, hops

    for op, (library, tool, name, arguments) in calls.items():
        counter = StatementCounter()
        before = counter.statements
        library()
        statements = counter.statements - before
        counter.close()
        store_s = timed(library, args.calls)
        tool_s = timed(tool, args.calls)
        shaped = tool()
        fn_metadata = manager.get_tool(name).fn_metadata
        shape_s = timed(functools.partial(fn_metadata.convert_result, shaped), args.calls)
        profile = cProfile.Profile() if args.profile else None
        in_thread.clear()
        sdk_s, hop_s = asyncio.run(sdk(name, arguments, args.calls, profile))
        own = in_thread[-args.calls:]
        overhead = [total - tool_part for total, tool_part in zip(sdk_s, own)]
        row = {"tool": op, "statements": statements, "store_ms": median_ms(store_s),
               "tool_ms": median_ms(tool_s), "shaping_ms": median_ms(shape_s),
               "thread_hop_ms": median_ms(hop_s), "sdk_in_memory_ms": median_ms(sdk_s)}
        row["tool_in_sdk_ms"] = median_ms(own)
        row["sdk_path_ms"] = median_ms(overhead)
        rows.append(row)
        print(json.dumps(row), flush=True)
        if profile:
            text = io.StringIO()
            pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(18)
            print(text.getvalue(), file=sys.stderr)
    print("| tool | statements | store | tool method | SDK shaping | thread hop | SDK call "
          "(in memory) | the tool inside it | SDK path (call - tool, per call) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['tool']} | {r['statements']} | {r['store_ms']:.2f} ms | "
              f"{r['tool_ms']:.2f} ms | {r['shaping_ms']:.2f} ms | {r['thread_hop_ms']:.2f} ms"
              f" | {r['sdk_in_memory_ms']:.2f} ms | {r['tool_in_sdk_ms']:.2f} ms"
              f" | {r['sdk_path_ms']:.2f} ms |")
    opening.__exit__(None, None, None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
