"""`eem mcp` (`python -m engine.mcp`): the network as an MCP server, for agents that keep an
EEM. A face: each tool call is one call of the service layer, with the caller's Context.

    eem mcp                      stdio (an MCP client starts it as a subprocess)
    eem mcp --http --port 8765   streamable HTTP on 127.0.0.1, bearer token required
    eem mcp token add NAME --role read|propose|write [--visible-to TAGS]

The server opens the store once and keeps one driver for its life, so a tool call costs what
its transaction costs. Tools are the methods engine/mcp/tools.py declares (TOOLS); sync
tools run on the SDK's worker threads, each call in its own transaction(s) through the
store's read / write paths, with a Context made for the calling client (its writes by it,
its reads filtered to the access tags it may see). A call that fails on bad input answers a
tool error whose text is the CLI's `Error: ...` line; nothing is written. While Neo4j is
down a call answers one `Error: ...` line saying so, and the driver reconnects on its own
once the server is back.

HTTP needs `Authorization: Bearer <token>`: EEM_MCP_TOKEN, else a token generated once and
kept beside the local Neo4j password (`.neo4j/mcp-token`, mode 600), which has the write
role; or a named token of `token add` (engine/mcp/tokens.py), with its own role. A
client's role (engine/mcp/roles.py) decides which tools it is listed and may call; stdio
serves the role of `--role`.

This module is the only one that imports the `mcp` SDK (the `mcp` extra).
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import inspect
import json
import logging
import os
import secrets
import sys
import threading
import typing
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING

from engine.mcp.declaration import bound_tools
from engine.mcp.roles import ROLES, WRITE, Access
from engine.mcp.tools import TOOLS, AgentTools
from engine.errors import EngineError, StoreError
from engine.mcp.tokens import TOKENS_FILE, TokenTable, parse_tags
from engine.memory import history
from engine.memory.as_of import AsOfStore
from engine.service.context import Context
from engine.store import Store

if TYPE_CHECKING:
    from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
    from mcp.server.mcpserver import Context as RequestContext
    from mcp.server.mcpserver import MCPServer
    from mcp.server.subscriptions import ServerEvent, SubscriptionBus
    from mcp.types import CallToolResult
    from starlette.types import ASGIApp, Receive, Scope, Send

    from engine.mcp.tools import JSON

PROG = "python -m engine.mcp"
MCP_HINT = "pip install 'eem-engine[mcp]'"
TOKEN_FILE = "mcp-token"
ACCESS_KEY = "eem.access"  # where RequireBearer leaves the client's Access in the ASGI scope
NO_ACCESS = Access("", "none")  # an HTTP message that came past no token check: nothing
HOST = "127.0.0.1"
BELIEF_URI = "eem://belief/{id}"
WATCH_SECONDS = 0.25  # how often the server looks at the change log for its subscribers
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
    "to argue, and the editing tools to change the network. Every write is logged (log). "
    "To leave a change for a person to decide, use the propose_* tools (list_proposals, "
    "show_proposal; accept_proposal / reject_proposal decide)."
)


def _sdk():
    try:
        from mcp import types
        from mcp.server.mcpserver import MCPServer
    except ImportError as e:
        raise EngineError(f"the MCP server needs the mcp SDK: {MCP_HINT}") from e
    return MCPServer, types


def guarded(method: Callable[..., JSON], served: Context,
            context_type: type | None = None, base_actor: str = "mcp", name: str = "",
            default_access: Access = Access("", WRITE), uri: str = "", writes: bool = False
            ) -> Callable[..., JSON | CallToolResult]:
    """The tool as the SDK calls it: refused (a tool error naming the role, nothing run)
    when the caller's role does not reach it; else the method is called with a Context for
    the calling client (its writes by `<base_actor>` with the client's name and its token's
    name, its reads filtered to the tags it may see) and the call's arguments. An
    EngineError becomes a tool error with the CLI's one line; a lost connection the store
    did not name becomes one line saying so. A tool that `writes` tells the server's
    embedding keeper when it succeeded (engine/embedding/keeper.py: the embeddings of what
    it added or reworded are computed after it, on the keeper's thread)."""
    tool_name = name or method.__name__

    def call(mcp_context: RequestContext | None = None, **kwargs: object
             ) -> JSON | CallToolResult:
        access = context_access(mcp_context, default_access)
        if not access.may_call(tool_name):
            return _tool_error(access.refusal(tool_name))
        ctx = caller_context(served, access, caller_actor(labelled(base_actor, access.name),
                                                          mcp_context))
        try:
            answer = method(ctx, **kwargs)
            if writes and served.keeper is not None:
                served.keeper.note_write()
            return answer
        except EngineError as e:
            message = e.said(served.prog)
        except Exception as e:  # the boundary, as the CLI's: one line, never a traceback
            message = _describe(e, uri or "the Neo4j server")
        return _tool_error(message)

    call.__name__, call.__qualname__, call.__doc__ = tool_name, tool_name, method.__doc__
    # what the SDK reads as the tool's input and output: the method's parameters but the
    # Context, their types resolved where the method is defined
    hints = typing.get_type_hints(method)
    parameters = [p.replace(annotation=hints.get(p.name, p.annotation))
                  for p in inspect.signature(method).parameters.values() if p.name != "ctx"]
    annotations = {k: v for k, v in hints.items() if k != "ctx"}
    if context_type is not None:  # the SDK passes its request Context to this parameter
        parameters.append(inspect.Parameter("mcp_context", inspect.Parameter.KEYWORD_ONLY,
                                            default=None, annotation=context_type))
        annotations["mcp_context"] = context_type
    vars(call)["__signature__"] = inspect.Signature(parameters,
                                                    return_annotation=hints.get("return"))
    call.__annotations__ = annotations
    return call


def caller_context(served: Context, access: Access, actor: str) -> Context:
    """The server's Context for one client: its writes by `actor`, its reads as it sees."""
    return served.acting_as(actor).seeing(access.visible_to)


def _tool_error(message: str) -> CallToolResult:
    from mcp import types

    line = "Error: " + " ".join(message.split())  # a driver's message may span lines
    return types.CallToolResult(content=[types.TextContent(type="text", text=line)],
                                is_error=True)


def request_access(request: object, default: Access) -> Access:
    """The Access RequireBearer found for this HTTP request; `default` without a request
    (stdio); nothing at all for an HTTP request that carries none."""
    if request is None:
        return default
    scope = getattr(request, "scope", None) or {}
    found = scope.get(ACCESS_KEY)
    return found if isinstance(found, Access) else NO_ACCESS


def context_access(context: RequestContext | None, default: Access) -> Access:
    if context is None:
        return request_access(None, default)
    try:
        request = context.request_context.request
    except (AttributeError, ValueError):
        request = None
    return request_access(request, default)


def labelled(base: str, label: str) -> str:
    """`mcp:http` with a token's name: `mcp:http@name` (a named token replaces the label
    of EEM_MCP_TOKEN_LABEL; the default token, named "", keeps it)."""
    if not label:
        return base
    return f"{base.partition('@')[0]}@{label}"


# The Access of the client whose resources/read is being answered: the SDK hands a resource
# function no request, so the middleware leaves it here for the resource to build its Context.
READING_ACCESS: ContextVar[Access | None] = ContextVar("eem_reading_access", default=None)


def tool_listing_filter(default: Access):
    """SDK middleware: a tools/list answer holds only the tools the caller's role reaches,
    and a resource is read as the caller sees (its visibility set in force: eem://compact is
    compact's filtered summary; eem://status, which cannot be filtered, is refused)."""

    async def middleware(ctx: ServerRequestContext, call_next: CallNext) -> HandlerResult:
        if ctx.method == "resources/read":
            seeing = READING_ACCESS.set(request_access(ctx.request, default))
            try:
                return await call_next(ctx)
            finally:
                READING_ACCESS.reset(seeing)
        result = await call_next(ctx)
        if ctx.method != "tools/list" or not isinstance(result, dict):
            return result  # the chain answers the wire form: {"tools": [{"name": ...}]}
        access = request_access(ctx.request, default)
        return {**result, "tools": [t for t in result.get("tools", [])
                                    if access.may_call(str(t.get("name")))]}

    return middleware


def unknown_argument_refusal(accepted: Mapping[str, Sequence[str]], default: Access):
    """SDK middleware: a tools/call naming an argument its tool does not take is refused
    with a tool error naming it and the arguments the tool takes; the tool does not run, so
    nothing is written (the SDK itself would drop the unknown argument and run the call, and
    `add` with `sl` for `antecedents` would make a premise). A call the caller's role does
    not reach goes on, to be refused for that."""

    async def middleware(ctx: ServerRequestContext, call_next: CallNext) -> HandlerResult:
        params = ctx.params if ctx.method == "tools/call" else None
        name = str((params or {}).get("name") or "")
        given = (params or {}).get("arguments") or {}
        takes = accepted.get(name)
        if takes is None or not isinstance(given, Mapping) \
                or not request_access(ctx.request, default).may_call(name):
            return await call_next(ctx)
        unknown = sorted(set(given) - set(takes))
        if not unknown:
            return await call_next(ctx)
        return _tool_error(refusal(name, unknown, takes))

    return middleware


def refusal(tool: str, unknown: Sequence[str], takes: Sequence[str]) -> str:
    names = ", ".join(repr(a) for a in unknown)
    return (f"tool {tool!r} takes no argument{'s' if len(unknown) > 1 else ''} {names}; it "
            f"takes {', '.join(takes) if takes else 'no arguments'}")


def tool_arguments(method: Callable[..., object]) -> tuple[str, ...]:
    """The arguments a tool takes: its method's parameters but the caller's Context."""
    return tuple(p for p in inspect.signature(method).parameters if p != "ctx")


def caller_actor(base: str, context: RequestContext | None) -> str:
    """`mcp:<client name>[@<token label>]`: the client's name from its initialize request
    when the SDK gives one, else the server's default (EEM_MCP_CLIENT, stdio or http)."""
    if context is None:
        return base
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


def _context_type() -> type | None:
    try:
        from mcp.server.mcpserver import Context
    except ImportError:  # an SDK without request contexts: the server's default actor only
        return None
    return Context


class BeliefWatch:
    """Pushes changes to subscribers: a thread looks at the change log every WATCH_SECONDS
    and publishes the protocol's resource-updated event for eem://belief/{id} of every
    belief a new entry touched (its label, text or justifications), whoever wrote it. The
    events go to the server's subscription bus on its event loop."""

    def __init__(self, store: Store, bus: SubscriptionBus, event: Callable[[str], ServerEvent],
                 interval: float = WATCH_SECONDS) -> None:
        self._store = store
        self._bus = bus
        self._event = event
        self._interval = interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._guard = threading.Lock()

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        with self._guard:  # once per process (an HTTP server runs a lifespan per session)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, args=(loop,),
                                                name="eem-belief-watch", daemon=True)
                self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self, loop: asyncio.AbstractEventLoop) -> None:
        last: int | None = None
        while not self._stop.is_set():
            try:
                if last is None:
                    last = history.last_seq(self._store)
                found = history.changes_after(self._store, last)
            except Exception:  # Neo4j away: look again later, the log keeps what happened
                self._stop.wait(self._interval)
                continue
            for entry, touched in found:
                last = entry.seq
                for bid in sorted(touched):
                    uri = BELIEF_URI.format(id=bid)
                    try:
                        asyncio.run_coroutine_threadsafe(self._bus.publish(self._event(uri)),
                                                         loop)
                    except RuntimeError:  # the loop closed: the server is stopping
                        return
            if not found:
                self._stop.wait(self._interval)


def build_server(tools: AgentTools, served: Context, base_actor: str = "mcp",
                 with_ask: bool = False, default_access: Access = Access("", WRITE),
                 watch_store: Store | None = None, uri: str = ""):
    """`served`: the server's Context (each call's is made from it for its client);
    `default_access`: the client's when a message came without an HTTP request (stdio);
    over HTTP each message carries the Access of its token (RequireBearer). `watch_store`:
    the store whose change log the belief resources' subscribers follow (None: no watch)."""
    MCPServer, types = _sdk()
    from mcp.server.subscriptions import InMemorySubscriptionBus, ResourceUpdated

    from engine.service import network, reading

    bus = InMemorySubscriptionBus()
    watch = (BeliefWatch(watch_store, bus, lambda u: ResourceUpdated(uri=u))
             if watch_store is not None else None)

    @contextlib.asynccontextmanager
    async def lifespan(_server: object) -> AsyncIterator[dict[str, object]]:
        if watch is not None:
            watch.start(asyncio.get_running_loop())
        yield {}

    methods = bound_tools(tools)
    offered = [(spec, methods[spec.name]) for spec in TOOLS  # the one list, in its order
               if with_ask or not spec.needs_model]  # ask: a model
    accepted = {spec.name: tool_arguments(method) for spec, method in offered}
    server = MCPServer("eem-engine", instructions=INSTRUCTIONS, log_level="WARNING",
                       middleware=[tool_listing_filter(default_access),
                                   unknown_argument_refusal(accepted, default_access)],
                       subscriptions=bus, lifespan=lifespan)
    server.belief_watch = watch
    context_type = _context_type()

    for spec, method in offered:
        server.add_tool(guarded(method, served, context_type, base_actor, spec.name,
                                default_access, uri, writes=not spec.read_only),
                        name=spec.name,
                        annotations=types.ToolAnnotations(read_only_hint=spec.read_only))

    def reader() -> Context:
        access = READING_ACCESS.get() or default_access
        return caller_context(served, access, labelled(base_actor, access.name))

    @server.resource("eem://compact", name="compact", mime_type="text/markdown",
                     description="The network summarized in 800 tokens (compact).")
    def compact_summary() -> str:
        return reading.compact(reader()).summary.text

    @server.resource("eem://query-pack", name="query-pack", mime_type="application/json",
                     description="Every query of the pack: name, description, parameters "
                                 "(type and example) and its Cypher text; run one with the "
                                 "query tool.")
    def query_pack() -> str:
        return json.dumps(pack_resource(), indent=2)

    @server.resource(BELIEF_URI, name="belief", mime_type="application/json",
                     description="One belief as show gives it. Subscribe (subscriptions/"
                                 "listen) to be told when a change touches it, by anyone.")
    def belief(id: str) -> str:
        return json.dumps(reading.show(reader(), id).as_dict(), indent=2, ensure_ascii=False)

    @server.resource("eem://status", name="status", mime_type="application/json",
                     description="The network's counts, as the status tool returns them.")
    def network_status() -> str:
        ctx = reader()
        if ctx.visible_to is not None:
            from engine.visibility import refusal

            raise refusal(ctx.visible_to, "the status resource")
        return json.dumps(network.status(ctx).as_dict(), indent=2)

    return server


def pack_resource() -> list[dict[str, object]]:
    """The query pack with each query's Cypher text."""
    from adapters.cypher_files import cypher
    from adapters.query_pack import load_pack
    from engine.reading.queries import pack_json

    return [{**pack_json([q])[0], "cypher": cypher(q.name)} for q in load_pack()]


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
    """ASGI middleware: an HTTP request whose `Authorization: Bearer <token>` names no
    current token gets 401; else the token's Access goes on with the request (ACCESS_KEY),
    for the role checks of the tools. The table is consulted per request, so a revoked
    token is refused at once."""

    def __init__(self, app: ASGIApp, table: TokenTable) -> None:
        self._app = app
        self._table = table

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or ()).get(b"authorization", b"")
            scheme, _, token = given.decode("latin-1").partition(" ")
            access = self._table.lookup(token.strip()) if scheme == "Bearer" else None
            if access is None:
                body = json.dumps({"error": "unauthorized: send Authorization: Bearer "
                                            "<token> (EEM_MCP_TOKEN, .neo4j/mcp-token, or "
                                            "one of `token add`)"})
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"www-authenticate", b'Bearer realm="eem-engine"')]})
                await send({"type": "http.response.body", "body": body.encode()})
                return
            scope = {**scope, ACCESS_KEY: access}
        await self._app(scope, receive, send)


# --- the command ------------------------------------------------------------------------
def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """`prog`: the name the server's command goes by (`eem mcp` under eem)."""
    parser = argparse.ArgumentParser(
        prog=prog, description="The belief network as an MCP server (tools and resources).",
        epilog="Connection: NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD, NEO4J_DATABASE. "
               "HTTP token: EEM_MCP_TOKEN, else .neo4j/mcp-token (role write), or a named "
               f"token: {prog} token add|list|revoke (see {prog} token --help). "
               f"example: {prog} --http --port 8765")
    parser.add_argument("--memory", metavar="NAME",
                        help="the memory to serve (default: the one of the folder the server "
                             "is started in, found by its .eem/; EEM_MEMORY)")
    parser.add_argument("--http", action="store_true",
                        help=f"serve streamable HTTP on {HOST} instead of stdio")
    parser.add_argument("--port", type=int, default=8765, help="HTTP port (default 8765)")
    parser.add_argument("--role", choices=ROLES, default=WRITE,
                        help="the stdio client's role: read, propose or write (default write; "
                             "over HTTP each token has its own)")
    parser.add_argument("--visible-to", metavar="TAGS",
                        help="the stdio client sees only beliefs whose access tags are all "
                             "among these (comma-separated; over HTTP, per token)")
    parser.add_argument("--release", metavar="NAME",
                        help="serve every read as of this release (`eem releases`) and "
                             "refuse every write: a stable view for production agents")
    parser.add_argument("--report-dir", default="reports", metavar="DIR",
                        help="where the stages write their reports (default reports/)")
    parser.add_argument("--model", metavar="SPEC",
                        help="a chat model for the ask tool (without it there is no ask)")
    parser.add_argument("--timeout", type=float, default=600.0, metavar="S",
                        help="seconds per model call of ask (default 600)")
    return parser


def make_ask(args: argparse.Namespace) -> Callable[[Context, str], JSON]:
    """ask through the command line's own back-end (checked now): each question answered
    from what the calling client may see, its run recorded."""
    from engine.visibility import VisibleReadsStore
    from engine.ask.run import ask
    from engine.clock import utc_now
    from engine.stages.report import ReportFile, report_path
    from engine.wiring.models import ModelSpec, ask_backend

    backend = ask_backend(ModelSpec(args.model, args.timeout))

    def answer(ctx: Context, question: str) -> JSON:
        report = ReportFile(report_path(Path(args.report_dir), utc_now(), "ask"))
        store = (ctx.store if ctx.visible_to is None
                 else VisibleReadsStore(ctx.store, ctx.visible_to))
        return ask(store, question, backend, budget=3000, max_tool_rounds=3,
                   report_file=report).as_dict()

    return answer


def mcp_actor(environ: Mapping[str, str], http: bool) -> str:
    """Who the server's writes are by, for the change log: `mcp:` then the client's name
    (EEM_MCP_CLIENT, else stdio / http) and the token's label (EEM_MCP_TOKEN_LABEL)."""
    client = (environ.get("EEM_MCP_CLIENT") or "").strip() or ("http" if http else "stdio")
    label = (environ.get("EEM_MCP_TOKEN_LABEL") or "").strip()
    return f"mcp:{client}" + (f"@{label}" if label else "")


def command_program(prog: str) -> str:
    """The program the commands a tool suggests are named under: the one the server is a
    command of (`eem` for `eem mcp`, `python -m engine` for `python -m engine.mcp`)."""
    return prog.removesuffix(" mcp").removesuffix(".mcp") or prog


def main(argv: Sequence[str] | None = None, *, prog: str = PROG) -> int:
    from engine.wiring.context import keeping_embeddings, opened
    from engine.wiring.settings import Settings

    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        settings = Settings.of(os.environ)
    except EngineError as e:
        print(f"Error: {e}", file=sys.stderr)
        return e.exit_code
    if argv[:1] == ["token"]:
        from engine.mcp.tokens import token_command

        return token_command(argv[1:], local_home(settings.environ) / TOKENS_FILE,
                             f"{prog} token", sys.stdout, sys.stderr)
    args = build_parser(prog).parse_args(argv)
    try:
        visible_to = parse_tags(args.visible_to) if args.visible_to is not None else None
    except EngineError as e:
        print(f"Error: {e}", file=sys.stderr)
        return e.exit_code
    logging.getLogger("neo4j").setLevel(logging.ERROR)  # its retry warnings: the answer says it
    actor = mcp_actor(settings.environ, args.http)
    try:
        from engine.wiring.memories import find
        from engine.wiring.store import connection

        memory = find(settings, Path.cwd(), args.memory)  # the folder it was started in
        with opened(settings, memory, prog=command_program(prog), folder=Path.cwd(),
                    actor=actor, retry_seconds=RETRY_SECONDS,
                    notice=lambda line: print(line, file=sys.stderr)) as ctx:
            if args.release:  # read only: no embedding is kept, none computed
                served = dataclasses.replace(ctx, store=released(ctx.store, args.release),
                                             embedder=None)
            else:
                served = keeping_embeddings(ctx)
            tools = AgentTools(report_dir=Path(args.report_dir).resolve(),
                               ask=make_ask(args) if args.model else None)
            server = build_server(tools, served, base_actor=actor, with_ask=bool(args.model),
                                  default_access=Access("", args.role, visible_to),
                                  watch_store=None if args.release else ctx.store,
                                  uri=connection(memory, settings).uri)
            if args.http:
                return _serve_http(server, args.port, settings.environ)
            server.run("stdio")
            return 0
    except EngineError as e:
        print(f"Error: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        return 130


def released(store: Store, name: str) -> AsOfStore:
    """The store as of release `name`, rebuilt now (an unknown release is refused before the
    server starts); every write through it is refused with one line."""
    found = history.find_release(store, name)
    served = AsOfStore(store, found.name, what=f"as of release {found.name} (seq {found.seq})",
                       keep=True)
    served.view()
    return served


def _serve_http(server: MCPServer, port: int, environ: Mapping[str, str]) -> int:
    import uvicorn

    token, where = bearer_token(environ)
    table = TokenTable(token, local_home(environ) / TOKENS_FILE)
    app = RequireBearer(server.streamable_http_app(host=HOST), table)
    print(f"MCP server on http://{HOST}:{port}/mcp (bearer token: {where})", file=sys.stderr,
          flush=True)
    uvicorn.run(app, host=HOST, port=port, log_level="warning")
    return 0
