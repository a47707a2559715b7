"""`eem ui` (`python -m engine.desk`): the review desk, a local web page for the memory.

    eem ui                               http://127.0.0.1:8790/?token=... (printed)
    eem ui --proposals runs/ --port 0    proposals files from runs/, any free port
    eem ui --host 0.0.0.0                reachable from other machines (a warning says so)

It serves until Ctrl-C, with one store connection for its life. The token it prints is new
at each start (EEM_UI_TOKEN sets one); it grants the write role, and the desk's actor is
the one this shell's commands have (EEM_ACTOR, else the OS user). A named token of the MCP
server (`eem mcp token add alice --role propose`) works in the URL too: its name is then the
person, and its role decides what the desk offers (read: look only; propose: actions become
proposals; write: decide). Proposals files are looked for in the current folder (`--proposals
PATH`, repeatable, names other folders or files): `proposed-*.md`, as the stages write them.
"""
from __future__ import annotations

import argparse
import ipaddress
import os
import secrets
import socket
import sys
from collections.abc import Sequence
from pathlib import Path

from engine.errors import EngineError, InvalidInput
from engine.sources.reader import SourceReader

PROG = "python -m engine.desk"
HOST = "127.0.0.1"
DEFAULT_PORT = 8790
DESK_HINT = "pip install 'eem-engine[desk]'"
RETRY_SECONDS = 3.0


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog, description="The review desk: the proposals queue, a page per belief, "
                               "search and the memory's numbers, in a local web page.",
        epilog=f"example: {prog} --proposals runs/ --port 8790   (then open the address it "
               "prints; Ctrl-C stops it). The memory: the folder's (found by its .eem/), "
               "--memory or EEM_MEMORY. Token: EEM_UI_TOKEN, else a new one.")
    parser.add_argument("--memory", metavar="NAME",
                        help="the memory to review (default: the one of the folder the desk "
                             "is started in; EEM_MEMORY)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"port (default {DEFAULT_PORT}; 0: any free one)")
    parser.add_argument("--host", default=None,
                        help=f"address to listen on (default {HOST}: this machine only); "
                             "another makes the desk reachable by whoever can reach it")
    parser.add_argument("--proposals", action="append", default=None, metavar="PATH",
                        help="a folder (its proposed-*.md) or a proposals file to review "
                             "(repeatable; default: the current folder)")
    return parser


def _packages() -> None:
    import importlib.util

    missing = [m for m in ("starlette", "uvicorn", "jinja2")
               if importlib.util.find_spec(m) is None]
    if missing:
        raise EngineError(f"the desk needs {', '.join(missing)}: {DESK_HINT}")


def _listen(host: str, port: int) -> socket.socket:
    if not 0 <= port <= 65535:
        raise InvalidInput(f"--port takes 0 to 65535, not {port}", field="port", value=port)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        raise InvalidInput(f"cannot listen on {host}:{port}: {e.strerror}", field="port",
                           value=port) from e
    sock.listen(64)
    return sock


def loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def main(argv: Sequence[str] | None = None, *, prog: str = PROG) -> int:
    args = build_parser(prog).parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        _packages()
        return serve(args, prog)
    except EngineError as e:
        print(f"Error: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        return 130


def serve(args: argparse.Namespace, prog: str) -> int:
    import logging

    import uvicorn

    from engine.desk.app import Desk, build_app
    from engine.desk.guard import Gate
    from engine.desk.queue import Sources
    from engine.desk.stage_files import StageTools
    from engine.mcp.server import local_home
    from engine.mcp.tokens import TOKENS_FILE, TokenTable
    from engine.wiring.context import opened
    from engine.wiring.memories import find
    from engine.wiring.settings import Settings
    from engine.wiring.store import connection

    settings = Settings.of(os.environ)
    here = Path.cwd()
    folders = tuple((here / p).resolve() for p in (args.proposals or ["."]))
    for f in folders:
        if not f.exists():
            raise InvalidInput(f"--proposals {f}: no such folder or file", field="proposals",
                               value=str(f))
    host = args.host or HOST
    if args.host is not None and not loopback(host):
        print(f"warning: the desk listens on {host}: anyone who can reach this machine and "
              "holds the token can read the memory and decide its proposals", file=sys.stderr)
    sock = _listen(host, args.port)
    port = sock.getsockname()[1]
    token = settings.value("EEM_UI_TOKEN") or secrets.token_urlsafe(24)
    table = TokenTable(token, local_home(settings.environ) / TOKENS_FILE)
    hosts = None if args.host is not None else {f"{HOST}:{port}", f"localhost:{port}"}
    logging.getLogger("neo4j").setLevel(logging.ERROR)
    memory = find(settings, here, args.memory)
    uri = connection(memory, settings).uri
    with opened(settings, memory, prog=prog.removesuffix(" ui") or prog, folder=here,
                retry_seconds=RETRY_SECONDS,
                notice=lambda line: print(line, file=sys.stderr)) as ctx:
        root = ctx.store.read(lambda tx: tx.project_root()) or str(here)
        tools = StageTools(lambda: _reader(root))
        desk = Desk(ctx, Sources(folders, tools), settings.actor, Gate(table, port, hosts))
        shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
        print(f"The review desk of {uri}, as {settings.actor}:\n\n"
              f"    http://{shown}:{port}/?token={token}\n\n"
              f"proposals files from {', '.join(str(f) for f in folders)}; Ctrl-C stops it",
              flush=True)
        config = uvicorn.Config(build_app(desk), log_level="warning",
                                timeout_graceful_shutdown=1, lifespan="on")
        uvicorn.Server(config).run(sockets=[sock])
    return 0


def _reader(root: str) -> SourceReader:
    from adapters.sources.reader import FileSourceReader

    return FileSourceReader(Path(root))
