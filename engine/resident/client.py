"""The caller's side of the resident engine: `eem COMMAND ...` and `python -m engine COMMAND
...` parse the command here (engine/cli/main.parse: its paths made absolute against this
folder; a usage error ends here), then hand the parsed options to the resident engine that
serves these connection settings from this code, or run the command in this process. The
same output, exit code and error line either way.

Little is imported on this path: the command-line parsers (standard library only), and the
library only when the command runs here. Whatever does not reach a usable engine (no socket,
a dead one, which is removed, a refusal: other code, other settings) runs here. `serve` is
always run here.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from engine.cli import PROG
from engine.resident import address, wire
from engine.resident.connection import HANDSHAKE_SECONDS, connect, request_fields

TYPE_CHECKING = False  # typing itself costs more than forwarding a command
if TYPE_CHECKING:
    import threading
    from argparse import Namespace
    from _socket import socket

    from _typeshed import SupportsFlush

    from engine.wiring.memories import Memory

SERVE = "serve"


def main(argv: list[str] | None = None, prog: str = PROG) -> int:
    """`prog`: the name the command's parser goes by (`eem` for eem's commands). `serve`
    (the resident engine's own life) always runs here."""
    from engine.cli.main import Streams, command_name, execute, parse

    given = sys.argv[1:] if argv is None else list(argv)
    if command_name(given) == SERVE:
        from engine.resident import control

        return control.main(given[given.index(SERVE) + 1:], prog=f"{prog} {SERVE}")
    folder = os.getcwd()
    try:
        args = parse(given, folder, prog)
    except SystemExit as e:  # argparse printed the usage error, or --help
        return e.code if isinstance(e.code, int) else 2
    found = _memory(args, folder)
    if found is not None:
        path, memory = found
        code = forward(args, folder, path, prog)
        if code is not None:
            return code
        if os.environ.get("EEM_SERVE", "").strip() != "0":
            from engine.resident import control

            control.start_in_background(path, memory, prog)
    return execute(args, os.environ, Streams(sys.stdout, sys.stderr, sys.stdin), prog=prog,
                   folder=folder)


def _memory(args: Namespace, folder: str) -> tuple[str, Memory] | None:
    """The command's memory and where its resident engine listens; None when the command
    names no memory (it runs here, and says so if it needs one)."""
    from engine.errors import EngineError
    from engine.wiring.memories import locate
    from engine.wiring.settings import Settings

    try:
        settings = Settings.of(os.environ)
    except EngineError:  # a bad setting: the command says so when it runs here
        return None
    memory = locate(settings, Path(folder), vars(args).get("memory"))
    if isinstance(memory, EngineError):
        return None
    return address.socket_path(settings, memory), memory


def forward(args: Namespace, folder: str, path: str, prog: str = PROG) -> int | None:
    """Run the parsed command on the resident engine at `path`; None when there is none to
    use."""
    sock = connect(path)
    if sock is None:
        return None
    try:
        sock.settimeout(HANDSHAKE_SECONDS)
        sock.sendall(wire.frame(wire.REQUEST, wire.pack_fields(
            request_fields("run", prog, folder, args))))
        reply = wire.read_frame(sock)
        if reply is None or reply[0] != wire.ACCEPTED:
            sock.close()
            return None
        sock.settimeout(None)
    except (OSError, ValueError):
        sock.close()
        return None
    return relay(sock)


def relay(sock: socket) -> int:
    """Write the command's output as it comes, feed it stdin when it asks, return its code."""
    out = getattr(sys.stdout, "buffer", None)
    err = getattr(sys.stderr, "buffer", None)
    sending = None
    try:
        while True:
            got = wire.read_frame(sock)
            if got is None:
                _flush(sys.stdout)
                print("Error: the resident engine closed the connection before the command "
                      "ended (a write is whole or absent: check with python -m engine verify)",
                      file=sys.stderr)
                return 2
            kind, payload = got
            if kind == wire.OUT and out is not None:
                out.write(payload)
                out.flush()
            elif kind == wire.ERR and err is not None:
                _flush(out)
                err.write(payload)
                err.flush()
            elif kind == wire.EXIT:
                return int(payload)
            elif kind == wire.NEED_STDIN and sending is None:
                sending = _send_stdin(sock)
    except KeyboardInterrupt:
        _cancel(sock, sending)
        _flush(out)
        print("Error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # our stdout was closed (`... | head`): as the handler would
        _cancel(sock, sending)
        _silence_stdout()
        return 0
    except (OSError, ValueError) as e:
        print(f"Error: lost the resident engine during the command: {e}", file=sys.stderr)
        return 2
    finally:
        sock.close()


def _flush(stream: SupportsFlush | None) -> None:
    if stream is not None:
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _cancel(sock: socket, sending: threading.Lock | None) -> None:
    try:
        if sending is not None:
            with sending:
                sock.sendall(wire.frame(wire.CANCEL))
        else:
            sock.sendall(wire.frame(wire.CANCEL))
    except OSError:
        pass


def _send_stdin(sock: socket) -> threading.Lock:
    """Copy our stdin to the engine on a thread; returns the lock that orders sends."""
    import threading

    lock = threading.Lock()

    def pump() -> None:
        try:
            fd = sys.stdin.fileno() if sys.stdin is not None else -1
        except (OSError, ValueError, AttributeError):
            fd = -1
        try:
            while fd >= 0:
                data = os.read(fd, 1 << 16)
                if not data:
                    break
                with lock:
                    sock.sendall(wire.frame(wire.STDIN, data))
        except OSError:
            pass
        try:
            with lock:
                sock.sendall(wire.frame(wire.STDIN_END))
        except OSError:
            pass

    threading.Thread(target=pump, name="stdin-to-resident", daemon=True).start()
    return lock
