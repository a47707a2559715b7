"""`python -m engine.mcp` with one tool more, `noop`, for scripts/bench/mcp_bench.py: the
same server (engine/mcp/server.build_server: its middleware, the `guarded` wrapper, the SDK's
worker thread, result shaping, stdio) answering a tool that does nothing, so the bench can
tell what a tool call costs before any work: the SDK's path and its transport.

    .venv/bin/python scripts/bench/mcp_noop_server.py        (stdio, as python -m engine.mcp)
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.mcp import server as served  # noqa: E402

NOOP = "noop"


def with_noop(build: Any) -> Any:
    def build_server(tools: Any, context: Any, *args: Any, **kwargs: Any) -> Any:
        server = build(tools, context, *args, **kwargs)
        _, types = served._sdk()

        def noop(ctx: object) -> dict[str, Any]:
            """Does nothing: the SDK's path of a tool call, measured."""
            return {}

        server.add_tool(served.guarded(noop, types, context, served._context_type(),
                                       name=NOOP), name=NOOP,
                        annotations=types.ToolAnnotations(read_only_hint=True))
        return server

    return build_server


if __name__ == "__main__":
    served.build_server = with_noop(served.build_server)
    sys.exit(served.main(sys.argv[1:]))
