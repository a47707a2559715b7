"""`python -m engine.mcp`: the network as an MCP server, for agents that keep an EEM.

    python -m engine.mcp                      stdio (an MCP client starts it as a subprocess)
    python -m engine.mcp --http --port 8765   streamable HTTP on 127.0.0.1, bearer token required

The server opens the store once and keeps one driver for its life, so a tool call costs what
its transaction costs. Tools are the public methods of engine.agent_tools.AgentTools; sync
tools run on the SDK's worker threads, each call in its own transaction(s) through the
store's read / write paths. A call that fails on bad input answers a tool error whose text is
the CLI's `Error: ...` line; nothing is written. While Neo4j is down a call answers one
`Error: ...` line saying so, and the driver reconnects on its own once the server is back.

HTTP needs `Authorization: Bearer <token>`: EEM_MCP_TOKEN, else a token generated once and
kept beside the local Neo4j password (`.neo4j/mcp-token`, mode 600).

This module is the only one that imports the `mcp` SDK (the `mcp` extra).
"""
from __future__ import annotations

import argparse
import functools
import hmac
import json
import logging
import os
import secrets
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from engine.agent_tools import (
    READ_ONLY,
    READING_TOOL_NAMES,
    AgentTools,
    PackEntry,
    ReadingTools,
    pack_resource,
    reading_tool_methods,
    tool_methods,
)
from engine.changelog import CALLER, ActingStore
from engine.cli.support import LazyStore
from engine.errors import EngineError, StoreError

PROG = "python -m engine.mcp"
MCP_HINT = "pip install 'eem-engine[mcp]'"
TOKEN_FILE = "mcp-token"
HOST = "127.0.0.1"
# How long a transaction retries a lost connection: long enough to ride out a blip or a
# deadlock between concurrent writers, short enough that a call answers soon while Neo4j is
# down (the driver reconnects by itself on the next call once it is back).
RETRY_SECONDS = 3.0
INSTRUCTIONS = (
    "A network of justified beliefs with truth maintenance. Beliefs are IN or OUT; derived "
    "beliefs hold while their justifications hold, and every change propagates at once. "
    "Start with changes_since (catch up on what others changed), status and search; "
    "show/explain/trace to read; what_if before retract or supersede; "
    "add/add_justification/retract/assert_belief/nogood, supersede to reword, challenge/defend "
    "to argue, and the editing tools to change the network. Every write is logged (log)."
)


def _sdk():
    try:
        from mcp import types
        from mcp.server.mcpserver import MCPServer
    except ImportError as e:
        raise EngineError(f"the MCP server needs the mcp SDK: {MCP_HINT}") from e
    return MCPServer, types


def guarded(method: Callable[..., dict[str, Any]], types: Any, uri: Callable[[], str],
            context_type: Any = None, base_actor: str = "mcp"):
    """The tool as the SDK calls it: its writes are by the calling client (the change log's
    actor: `<base_actor>` with the client's name); an EngineError becomes a tool error with
    the CLI's one line; a lost connection the store did not name becomes one line saying so."""

    @functools.wraps(method)
    def call(mcp_context: Any = None, **kwargs: Any) -> Any:
        token = CALLER.set(caller_actor(base_actor, mcp_context))
        try:
            return method(**kwargs)
        except EngineError as e:
            message = str(e)
        except Exception as e:  # the boundary, as the CLI's: one line, never a traceback
            message = _describe(e, uri())
        finally:
            CALLER.reset(token)
        line = "Error: " + " ".join(message.split())  # a driver's message may span lines
        return types.CallToolResult(content=[types.TextContent(type="text", text=line)],
                                    is_error=True)

    if context_type is not None:  # the SDK passes its request Context to this parameter
        call.__annotations__ = {**method.__annotations__, "mcp_context": context_type}
    return call


def caller_actor(base: str, context: Any) -> str:
    """`mcp:<client name>[@<token label>]`: the client's name from its initialize request
    when the SDK gives one, else the server's default (EEM_MCP_CLIENT, stdio or http)."""
    try:
        params = context.request_context.session.client_params
        info = getattr(params, "client_info", None) or getattr(params, "clientInfo", None)
        name = str(getattr(info, "name", "") or "").strip()
    except (AttributeError, ValueError):
        name = ""
    if not name:
        return base
    _, at, label = base.partition("@")
    return f"mcp:{name}{at}{label}"


def _describe(e: Exception, uri: str) -> str:
    from neo4j import exceptions as neo4j_errors  # a core dependency

    if isinstance(e, (neo4j_errors.DriverError, OSError)):
        return f"lost Neo4j at {uri}: {type(e).__name__}: {e}; start it with `scripts/neo4j start`"
    return f"unexpected {type(e).__name__}: {e}"


def _context_type() -> Any:
    try:
        from mcp.server.mcpserver import Context
    except ImportError:  # an SDK without request contexts: the server's default actor only
        return None
    return Context


def build_server(tools: AgentTools, pack_entries: Sequence[PackEntry], uri: str = "",
                 base_actor: str = "mcp", reading: ReadingTools | None = None,
                 with_ask: bool = False):
    MCPServer, types = _sdk()
    server = MCPServer("eem-engine", instructions=INSTRUCTIONS, log_level="WARNING")
    context_type = _context_type()
    for name, method in tool_methods(tools).items():
        server.add_tool(guarded(method, types, lambda: uri, context_type, base_actor), name=name,
                        annotations=types.ToolAnnotations(read_only_hint=name in READ_ONLY))
    if reading is not None:  # issue 21: context_for, compact, ask (with --model)
        for name, method in reading_tool_methods(reading, with_ask=with_ask).items():
            server.add_tool(guarded(method, types, lambda: uri, context_type, base_actor),
                            name=name,
                            annotations=types.ToolAnnotations(
                                read_only_hint=name in READING_TOOL_NAMES))

        @server.resource("eem://compact", name="compact", mime_type="text/markdown",
                         description="The network summarized in 800 tokens (compact).")
        def compact_summary() -> str:
            return reading.compact_resource()

    @server.resource("eem://query-pack", name="query-pack", mime_type="application/json",
                     description="Every query of the pack: name, description, parameters "
                                 "(type and example) and its Cypher text; run one with the "
                                 "query tool.")
    def query_pack() -> str:
        return json.dumps(pack_resource(pack_entries), indent=2)

    @server.resource("eem://status", name="status", mime_type="application/json",
                     description="The network's counts, as the status tool returns them.")
    def network_status() -> str:
        return tools.status_resource()

    return server


# --- the bearer token -------------------------------------------------------------------
def local_home(environ: Mapping[str, str]) -> Path:
    from adapters.neo4j.connection import PROJECT_ROOT

    return Path(environ.get("NEO4J_LOCAL_HOME") or PROJECT_ROOT / ".neo4j")


def bearer_token(environ: Mapping[str, str]) -> tuple[str, str]:
    """(the token, where it came from): EEM_MCP_TOKEN, else the local server home's file,
    created with a fresh random token (mode 600) when absent."""
    if environ.get("EEM_MCP_TOKEN"):
        return environ["EEM_MCP_TOKEN"], "EEM_MCP_TOKEN"
    path = local_home(environ) / TOKEN_FILE
    try:
        token = path.read_text(encoding="utf-8").strip()
        if token:
            return token, str(path)
    except FileNotFoundError:
        pass
    except OSError as e:
        raise StoreError(f"cannot read the MCP token at {path}: {e.strerror}") from e
    token = secrets.token_urlsafe(32)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(token + "\n")
        os.chmod(path, 0o600)
    except OSError as e:
        raise StoreError(f"cannot write the MCP token to {path}: {e.strerror}; "
                         "set EEM_MCP_TOKEN instead") from e
    return token, str(path)


class RequireBearer:
    """ASGI middleware: HTTP requests without `Authorization: Bearer <token>` get 401."""

    def __init__(self, app: Any, token: str) -> None:
        self._app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or ()).get(b"authorization", b"")
            if not hmac.compare_digest(given, self._expected):
                body = json.dumps({"error": "unauthorized: send Authorization: Bearer "
                                            "<token> (EEM_MCP_TOKEN or .neo4j/mcp-token)"})
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"www-authenticate", b'Bearer realm="eem-engine"')]})
                await send({"type": "http.response.body", "body": body.encode()})
                return
        await self._app(scope, receive, send)


# --- the command ------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="The belief network as an MCP server (tools and resources).",
        epilog="Connection: NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD, NEO4J_DATABASE. "
               "HTTP token: EEM_MCP_TOKEN, else .neo4j/mcp-token. "
               f"example: {PROG} --http --port 8765")
    parser.add_argument("--http", action="store_true",
                        help=f"serve streamable HTTP on {HOST} instead of stdio")
    parser.add_argument("--port", type=int, default=8765, help="HTTP port (default 8765)")
    parser.add_argument("--report-dir", default="reports", metavar="DIR",
                        help="where the stages write their reports (default reports/)")
    parser.add_argument("--model", metavar="SPEC",
                        help="a chat model for the ask tool (without it there is no ask)")
    parser.add_argument("--timeout", type=float, default=600.0, metavar="S",
                        help="seconds per model call of ask (default 600)")
    return parser


def make_reading(store: LazyStore, args: argparse.Namespace) -> ReadingTools:
    """The reading tools; with --model, ask through the CLI's own back-end (checked now)."""
    if not args.model:
        return ReadingTools(ActingStore(store))
    from engine.ask.run import ask
    from engine.cli.stage_cli import Wiring, build_ask_model
    from engine.cli.stage_cli import ask_backend as backend_for
    from engine.stages.report import ReportFile, report_path
    from engine.clock import utc_now

    args.structured = False
    wiring = Wiring()
    backend = backend_for(build_ask_model(args, wiring), args, wiring)

    def answer(question: str) -> dict[str, Any]:
        report = ReportFile(report_path(Path(args.report_dir), utc_now(), "ask"))
        return ask(store, question, backend, budget=3000, max_tool_rounds=3,
                   report_file=report).as_dict()

    return ReadingTools(ActingStore(store), ask=answer)


def make_tools(store: LazyStore, report_dir: Path) -> tuple[AgentTools, list[PackEntry]]:
    from adapters.cypher_files import cypher
    from adapters.query_pack import load_pack

    pack = load_pack()
    entries = [PackEntry(q, cypher(q.name)) for q in pack]

    def make_embedder():
        from adapters.embeddings import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder()

    return AgentTools(ActingStore(store), pack, report_dir=report_dir,
                      make_embedder=make_embedder), entries


def mcp_actor(environ: Mapping[str, str], http: bool) -> str:
    """Who the server's writes are by, for the change log: `mcp:` then the client's name
    (EEM_MCP_CLIENT, else stdio / http) and the token's label (EEM_MCP_TOKEN_LABEL)."""
    client = (environ.get("EEM_MCP_CLIENT") or "").strip() or ("http" if http else "stdio")
    label = (environ.get("EEM_MCP_TOKEN_LABEL") or "").strip()
    return f"mcp:{client}" + (f"@{label}" if label else "")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.getLogger("neo4j").setLevel(logging.ERROR)  # its retry warnings: the answer says it
    store = LazyStore(retry_seconds=RETRY_SECONDS, actor=mcp_actor(os.environ, args.http))
    try:
        tools, entries = make_tools(store, Path(args.report_dir))
        from adapters.neo4j.connection import DEFAULT_URI

        server = build_server(tools, entries, os.environ.get("NEO4J_URI") or DEFAULT_URI,
                              base_actor=mcp_actor(os.environ, args.http),
                              reading=make_reading(store, args), with_ask=bool(args.model))
        if args.http:
            return _serve_http(server, args.port)
        server.run("stdio")
        return 0
    except EngineError as e:
        print(f"Error: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        return 130
    finally:
        store.close()


def _serve_http(server: Any, port: int) -> int:
    import uvicorn

    token, where = bearer_token(os.environ)
    app = RequireBearer(server.streamable_http_app(host=HOST), token)
    print(f"MCP server on http://{HOST}:{port}/mcp (bearer token: {where})", file=sys.stderr,
          flush=True)
    uvicorn.run(app, host=HOST, port=port, log_level="warning")
    return 0
