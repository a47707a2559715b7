"""The resident engine: one long-lived process that keeps the Neo4j driver open and runs the
commands its callers parsed (client.py), so a command costs Python's start-up and a local
round trip instead of importing the library and connecting.

    eem serve start              (control.py starts this module)
    python -m engine.resident --socket PATH

It listens on a Unix socket in a user-only folder (address.py). Each connection is one
command on its own thread: the request is checked (the same code version, the same connection
settings, else it is declined and the caller runs the command itself), then the command runs
through engine/cli/main.execute with what its caller sent: its parsed options (paths already
absolute), its environment's settings, its folder and umask (the Context's), and streams over
the connection (streams.py). Nothing of the process is rewired: no standard stream, no
environment variable, no current folder changes. Ctrl-C: the caller sends CANCEL (or just
goes away); the command's transactions (tagged `eem_command` in their metadata) are
terminated until it ends, its next transaction, output or stdin read raises
KeyboardInterrupt, and nothing of it commits. The engine lives on.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import signal
import socket
import socketserver
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.cli import EEM, PROG
from engine.resident import address, wire
from engine.resident.streams import CANCELLED, CommandOutput, Sender, StdinBytes

REQUEST_SECONDS = 10.0  # a caller that connects and says nothing is dropped
SWEEP_SECONDS = 0.5  # how often a cancelled command's new transactions are terminated
STOP_GRACE_SECONDS = 30.0


@dataclass
class Request:
    op: str
    version: str = ""
    cwd: str = ""
    umask: int = 0o022
    prog: str = PROG  # the name the command's parser goes by: PROG or EEM
    options: dict[str, Any] = field(default_factory=dict)  # the parsed command
    env: dict[str, str] = field(default_factory=dict)
    streams: dict[str, tuple[str, str, bool]] = field(default_factory=dict)


def parse_request(payload: bytes) -> Request:
    request = Request(op="")
    for name, value in wire.unpack_fields(payload):
        if name == "options":
            request.options = json.loads(value)
        elif name.startswith("env:"):
            request.env[name[4:]] = value
        elif name.startswith("stream:"):
            encoding, errors, tty = value.split(" ")
            request.streams[name[7:]] = (encoding, errors, tty == "1")
        elif name == "umask":
            request.umask = int(value, 8)
        elif name == "prog":
            request.prog = value if value in PROGS else PROG
        elif name in ("op", "version", "cwd"):
            setattr(request, name, value)
    return request



class ResidentEngine:
    def __init__(self, driver: Any, settings: Any, version: str, socket_path: str) -> None:
        self.driver = driver
        self.settings = settings
        self.version = version
        self.socket_path = socket_path
        self.started_at = time.time()
        self.stop_requested = threading.Event()
        self._counts = threading.Lock()
        self.served = 0
        self.running = 0

    # the requests ----------------------------------------------------------------------
    def serve_connection(self, sock: socket.socket) -> None:
        sock.settimeout(REQUEST_SECONDS)
        try:
            got = wire.read_frame(sock)
        except (OSError, ValueError):
            return
        if got is None or got[0] != wire.REQUEST:
            return
        try:
            request = parse_request(got[1])
        except ValueError:
            return
        sock.settimeout(None)
        if request.op == "run":
            self._run(sock, request)
        elif request.op in ("status", "stop"):
            sock.sendall(wire.frame(wire.STATUS, wire.pack_fields(self.status(request))))
            if request.op == "stop":
                self.stop_requested.set()

    def status(self, request: Request) -> list[tuple[str, str]]:
        reason = self.decline_reason(request)
        return [("pid", str(os.getpid())), ("uri", self.settings.uri),
                ("user", self.settings.user), ("database", self.settings.database),
                ("socket", self.socket_path), ("started", str(self.started_at)),
                ("served", str(self.served)), ("running", str(self.running)),
                ("declines", reason or "")]

    def decline_reason(self, request: Request) -> str | None:
        if request.version != self.version:
            started_from = self.version.split("\n", 1)[0]
            return (f"it runs other code (started from {started_from}, changed since or another"
                    f" checkout or Python); restart it: {request.prog} serve start")
        from adapters.neo4j.connection import Neo4jSettings

        asked = Neo4jSettings.from_env({k: v for k, v in request.env.items()
                                        if k.startswith("NEO4J_")})
        if asked != self.settings:
            return "it serves other connection settings (NEO4J_URI, _USER, _PASSWORD, _DATABASE)"
        return None

    # one command -----------------------------------------------------------------------
    def _run(self, sock: socket.socket, request: Request) -> None:
        reason = self.decline_reason(request)
        if reason is not None:
            sock.sendall(wire.frame(wire.DECLINED, reason.encode()))
            return
        with self._counts:
            self.running += 1
        try:
            self._run_accepted(sock, request)
        finally:
            with self._counts:
                self.running -= 1
                self.served += 1

    def _run_accepted(self, sock: socket.socket, request: Request) -> None:
        from engine.cli.main import Streams, execute
        from engine.wiring.store import BorrowedDriver

        command_id = uuid.uuid4().hex
        cancelled = threading.Event()
        done = threading.Event()
        sender = Sender(sock)
        default = ("utf-8", "strict", False)
        out = CommandOutput(sender, wire.OUT, request.streams.get("stdout", default),
                            line_buffering=request.streams.get("stdout", default)[2],
                            cancelled=cancelled)
        err = CommandOutput(sender, wire.ERR, request.streams.get("stderr", default),
                            line_buffering=True, cancelled=cancelled)
        in_encoding, in_errors, in_tty = request.streams.get("stdin", default)
        stdin_bytes = StdinBytes(lambda: sender.add(wire.NEED_STDIN, b"", flush=True), in_tty)
        stdin = io.TextIOWrapper(io.BufferedReader(stdin_bytes), encoding=in_encoding,
                                 errors=in_errors)

        def check() -> None:
            if cancelled.is_set():
                raise KeyboardInterrupt

        def cancel() -> None:
            cancelled.set()
            stdin_bytes.feed(CANCELLED)
            self._end_transactions(command_id, done)

        borrowed = BorrowedDriver(self.driver, {"eem_command": command_id}, check)
        receiver = threading.Thread(target=_receive, args=(sock, stdin_bytes, cancel, done),
                                    name=f"resident-receive-{command_id[:8]}", daemon=True)
        sender.add(wire.ACCEPTED, str(os.getpid()).encode(), flush=True)
        receiver.start()
        code = 130
        try:
            code = execute(argparse.Namespace(**request.options), request.env,
                           Streams(out, err, stdin), prog=request.prog, folder=request.cwd,
                           umask=request.umask, borrowed=borrowed)
            out.flush()
            err.flush()
        except (KeyboardInterrupt, BrokenPipeError):
            pass
        done.set()
        try:
            sender.add(wire.EXIT, str(code).encode(), flush=True)
        except BrokenPipeError:
            pass

    def _end_transactions(self, command_id: str, done: threading.Event) -> None:
        from adapters.neo4j.transactions import terminate_command_transactions

        while not done.is_set():
            terminate_command_transactions(self.driver, self.settings.database, command_id)
            done.wait(SWEEP_SECONDS)


def _receive(sock: socket.socket, stdin: StdinBytes, cancel: Callable[[], None],
             done: threading.Event) -> None:
    """The connection's incoming side while its command runs: stdin, then the end (the
    caller cancelled or went away)."""
    try:
        while True:
            got = wire.read_frame(sock)
            if got is None or got[0] == wire.CANCEL:
                break
            if got[0] == wire.STDIN:
                stdin.feed(got[1])
            elif got[0] == wire.STDIN_END:
                stdin.feed(None)
    except (OSError, ValueError):
        pass
    if not done.is_set():
        cancel()


PROGS = (PROG, EEM)  # the names a caller may go by


# --- the process ---------------------------------------------------------------------------
class _Handler(socketserver.BaseRequestHandler):
    server: _Server

    def handle(self) -> None:
        self.server.engine.serve_connection(self.request)


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    engine: ResidentEngine


def _answers(path: str) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.settimeout(2)
        probe.connect(path)
        return True
    except OSError:
        return False
    finally:
        probe.close()


def _listen(path: str) -> _Server:
    """Bind and listen on a private name, then rename it into place, so a caller never finds
    a socket that refuses connections (which it would take for a dead one and remove)."""
    temporary = os.path.join(os.path.dirname(path), f".{os.getpid()}.sock")
    try:
        os.unlink(temporary)
    except FileNotFoundError:
        pass
    previous = os.umask(0o177)
    try:
        server = _Server(temporary, _Handler)
    finally:
        os.umask(previous)
    os.chmod(temporary, 0o600)
    os.replace(temporary, path)
    return server


def _preload() -> None:
    """What the first commands would otherwise import: the service, the store, the queries,
    the file formats."""
    import adapters.formats
    import adapters.neo4j.store
    import adapters.neo4j.transactions
    import adapters.query_pack  # noqa: F401
    import engine.cli.batch
    import engine.service.history
    import engine.service.keeping
    import engine.service.network
    import engine.service.proposals
    import engine.service.reading
    import engine.service.registry  # noqa: F401
    import engine.wiring.context  # noqa: F401
    from adapters.cypher_files import load_all

    load_all()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.resident",
                                     description="the resident engine (python -m engine serve)")
    parser.add_argument("--socket", required=True, help="the Unix socket to listen on")
    args = parser.parse_args(argv)
    version = address.code_version()
    from adapters.neo4j.connection import Neo4jSettings, connect
    from engine.errors import EngineError

    path = os.path.abspath(args.socket)
    problem = address.private_folder(os.path.dirname(path))
    if problem:
        print(f"Error: {problem}", file=sys.stderr)
        return 2
    if len(path.encode()) > address.MAX_SOCKET_PATH:
        print(f"Error: the socket path {path} is longer than a Unix socket allows; set "
              "EEM_SERVE_DIR to a shorter folder", file=sys.stderr)
        return 2
    if _answers(path):
        print(f"Error: a resident engine already listens on {path}", file=sys.stderr)
        return 2
    settings = Neo4jSettings.from_env(os.environ)
    try:
        driver = connect(settings)
    except EngineError as e:
        print(f"Error: {e}", file=sys.stderr)
        return e.exit_code
    _preload()
    engine = ResidentEngine(driver, settings, version, path)
    server = _listen(path)
    server.engine = engine
    inode = os.stat(path).st_ino
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda *_: engine.stop_requested.set())
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                     name="resident-accept", daemon=True).start()
    print(f"resident engine {os.getpid()}: {settings.uri} (user {settings.user}, database "
          f"{settings.database}) on {path}", file=sys.stderr, flush=True)
    while not engine.stop_requested.wait(0.5):
        pass
    server.shutdown()
    try:
        if os.stat(path).st_ino == inode:
            os.unlink(path)
    except OSError:
        pass
    deadline = time.monotonic() + STOP_GRACE_SECONDS
    while engine.running and time.monotonic() < deadline:
        time.sleep(0.05)
    server.server_close()
    driver.close()
    print(f"resident engine {os.getpid()}: stopped after {engine.served} commands",
          file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
