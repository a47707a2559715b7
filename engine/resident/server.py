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
KeyboardInterrupt, and nothing of it commits. The engine lives on. After a command that
ended well has answered, the engine's embedding keeper is told (engine/embedding/keeper.py):
a memory that keeps embeddings has those of what the command added or reworded computed on
the keeper's thread.
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
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.cli import EEM, PROG
from engine.resident import address, wire
from engine.resident.streams import CANCELLED, CommandOutput, Sender, StdinBytes

if TYPE_CHECKING:
    from typing import BinaryIO

    import neo4j

    from adapters.neo4j.connection import Neo4jSettings
    from engine.embedding.keeper import EmbeddingKeeper
    from engine.wiring.memories import Memory
    from engine.wiring.settings import Settings

REQUEST_SECONDS = 10.0  # a caller that connects and says nothing is dropped
IDLE_SECONDS = 1800.0  # EEM_SERVE_IDLE: an engine without a command this long goes away
WATCH_SECONDS = 1.0  # how often it looks at its idle time, its code and its memory's server
CODE_SECONDS = 10.0  # how often it looks at its code
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
    """The engine of one memory: `memory`, reached with `driver` (connected as `connection`
    says), from the code of `version`; it stops after `idle_limit` seconds without a
    command."""

    def __init__(self, driver: neo4j.Driver, memory: Memory, connection: Neo4jSettings,
                 version: str, socket_path: str, idle_limit: float = IDLE_SECONDS) -> None:
        self.driver = driver
        self.memory = memory
        self.connection = connection
        self.version = version
        self.socket_path = socket_path
        self.idle_limit = idle_limit
        self.started_at = time.time()
        self.last_seen = time.monotonic()
        self.stop_requested = threading.Event()
        self.stopped_because = ""
        self._counts = threading.Lock()
        self.served = 0
        self.running = 0
        self._keeper: EmbeddingKeeper | None = None

    def idle(self) -> float:
        """Seconds since the last command ended (0 while one runs)."""
        return 0.0 if self.running else time.monotonic() - self.last_seen

    def stop(self, because: str) -> None:
        if not self.stop_requested.is_set():
            self.stopped_because = because
            self.stop_requested.set()

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
                self.stop("asked to stop")

    def status(self, request: Request) -> list[tuple[str, str]]:
        reason = self.decline_reason(request)
        return [("pid", str(os.getpid())), ("memory", self.memory.name),
                ("uri", self.connection.uri), ("socket", self.socket_path),
                ("started", str(self.started_at)), ("served", str(self.served)),
                ("running", str(self.running)), ("idle", str(int(self.idle()))),
                ("idle_limit", str(int(self.idle_limit))), ("declines", reason or "")]

    def decline_reason(self, request: Request) -> str | None:
        if request.version != self.version:
            started_from = self.version.split("\n", 1)[0]
            if request.op == "run":  # this engine's code is gone: the next one will be new
                self.stop("the code changed")
            return (f"it runs other code (started from {started_from}, changed since or another"
                    f" checkout or Python); it stops, and the next command starts a new one")
        from engine.errors import EngineError
        from engine.wiring.memories import find
        from engine.wiring.settings import Settings
        from engine.wiring.store import connection

        try:
            settings = Settings.of(request.env)
            asked = find(settings, Path(request.cwd or "/"), request.options.get("memory"))
        except EngineError as e:
            return f"the caller is in no memory it serves ({e})"
        if address.memory_key(asked) != address.memory_key(self.memory):
            return f"it serves the memory '{self.memory.name}', not '{asked.name}'"
        if connection(asked, settings) != self.connection:
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
        code = 130
        try:
            code = self._run_accepted(sock, request)
        finally:  # counted once answered, before what follows the answer
            with self._counts:
                self.running -= 1
                self.served += 1
                self.last_seen = time.monotonic()
        if code == 0:  # the caller has its answer: the embeddings follow
            self.keeper(request).note_write()

    def _run_accepted(self, sock: socket.socket, request: Request) -> int:
        """Run the command and send its answer; its exit code."""
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
        return code

    def keeper(self, request: Request) -> EmbeddingKeeper:
        """The embedding keeper of this engine's memory (made with the first command that
        ended well, over the engine's driver, with the first caller's cache folder): told
        after each such command, it keeps a memory that keeps embeddings current on a thread
        of its own, after the command has answered (one count when nothing changed; a memory
        that never asked for meaning loads no model)."""
        with self._counts:
            if self._keeper is None:
                from engine.service.context import Context
                from engine.wiring.context import SharedEmbedder, embedding_keeper
                from engine.wiring.settings import Settings
                from engine.wiring.store import BorrowedDriver, LazyStore

                settings = Settings.of(request.env)
                store = LazyStore(settings, self.memory, "resident",
                                  borrowed=BorrowedDriver(self.driver))
                self._keeper = embedding_keeper(Context(
                    store, "resident", embedder=SharedEmbedder(),
                    cache_folder=settings.cache_folder, umask=request.umask))
            return self._keeper

    def _end_transactions(self, command_id: str, done: threading.Event) -> None:
        from adapters.neo4j.transactions import terminate_command_transactions

        while not done.is_set():
            terminate_command_transactions(self.driver, self.connection.database, command_id)
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


def idle_limit(settings: Settings) -> float:
    """EEM_SERVE_IDLE: the seconds an engine waits for a command before it goes away."""
    text = settings.value("EEM_SERVE_IDLE")
    try:
        return max(1.0, float(text)) if text else IDLE_SECONDS
    except ValueError:
        return IDLE_SECONDS


def watch(engine: ResidentEngine, server_alive: Callable[[], bool]) -> None:
    """Stop the engine when it has been idle too long, when the code it runs changed, or when
    its memory's server stopped."""
    looked_at_code = time.monotonic()
    while not engine.stop_requested.wait(WATCH_SECONDS):
        if engine.idle() > engine.idle_limit:
            engine.stop(f"idle for {int(engine.idle_limit)} s")
        elif not server_alive():
            engine.stop("its memory's server stopped")
        elif time.monotonic() - looked_at_code > CODE_SECONDS:
            looked_at_code = time.monotonic()
            if not engine.running and address.code_version() != engine.version:
                engine.stop("the code changed")


def _hold(lock: str) -> BinaryIO | None:
    """The lock of this socket's engine, held for the process's life; None when another
    engine holds it (it is starting, or running)."""
    import fcntl

    handle = open(lock, "a+b")  # held open until the process ends
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return None
    return handle


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.resident",
                                     description="the resident engine of a memory (eem serve)")
    parser.add_argument("--socket", required=True, help="the Unix socket to listen on")
    parser.add_argument("--folder", default="/", help="where the memory is found from")
    parser.add_argument("--memory", metavar="NAME", help="the memory, by name")
    parser.add_argument("--prog", default=EEM, help="the name commands go by, for hints")
    args = parser.parse_args(argv)
    version = address.code_version()
    from adapters.neo4j.connection import connect
    from engine.errors import EngineError
    from engine.wiring.local_server import ensure_running, running
    from engine.wiring.local_server import stop as stop_server
    from engine.wiring.memories import Registry, eem_home, find
    from engine.wiring.settings import Settings
    from engine.wiring.store import connection

    path = os.path.abspath(args.socket)
    problem = address.private_folder(os.path.dirname(path))
    if problem:
        print(f"Error: {problem}", file=sys.stderr)
        return 2
    if len(path.encode()) > address.MAX_SOCKET_PATH:
        print(f"Error: the socket path {path} is longer than a Unix socket allows; set "
              "EEM_SERVE_DIR to a shorter folder", file=sys.stderr)
        return 2
    lock = _hold(address.lock_path(path))
    if lock is None or _answers(path):
        print(f"resident engine {os.getpid()}: another engine serves {path}; leaving it",
              file=sys.stderr, flush=True)
        return 0
    try:
        settings = Settings.of(os.environ)
        memory = find(settings, Path(args.folder), args.memory)
        if memory.local:
            memory = ensure_running(memory, settings, Registry(eem_home(settings)),
                                    lambda line: print(line, file=sys.stderr, flush=True))
        reach = connection(memory, settings)
        driver = connect(reach)
    except EngineError as e:
        print(f"Error: {e}", file=sys.stderr)
        return e.exit_code
    _preload()
    engine = ResidentEngine(driver, memory, reach, version, path, idle_limit(settings))
    server = _listen(path)
    server.engine = engine
    inode = os.stat(path).st_ino
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda *_: engine.stop("signalled"))
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                     name="resident-accept", daemon=True).start()
    threading.Thread(target=watch, args=(engine, lambda: not memory.local or running(memory)),
                     name="resident-watch", daemon=True).start()
    print(f"resident engine {os.getpid()}: memory '{memory.name}' at {reach.uri} on {path}",
          file=sys.stderr, flush=True)
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
    if memory.local and engine.stopped_because.startswith("idle"):
        stop_server(memory, settings)  # an idle memory's server goes too
    print(f"resident engine {os.getpid()}: stopped ({engine.stopped_because}) after "
          f"{engine.served} commands", file=sys.stderr, flush=True)
    lock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
