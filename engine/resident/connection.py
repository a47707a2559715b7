"""Reaching a resident engine: the socket, found and connected (a dead one removed), and the
request a caller sends: what it asks, from which code, and for a command its parsed options,
its folder and umask, its streams and the environment its settings are read from.

Standard library only (and, for a command's request, the settings' list of variables)."""
from __future__ import annotations

import os
import sys

from engine.cli import PROG
from engine.resident import address

TYPE_CHECKING = False  # typing itself costs more than forwarding a command
if TYPE_CHECKING:
    from argparse import Namespace
    from _socket import socket
    from typing import TextIO

HANDSHAKE_SECONDS = 5.0


def connect(path: str) -> socket | None:
    """A connected socket to the engine at `path`, or None; a dead socket file is removed."""
    try:
        import _socket
    except ImportError:
        return None
    try:
        before = os.stat(path)
    except OSError:
        return None
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(HANDSHAKE_SECONDS)
        sock.connect(path)
        return sock
    except ConnectionRefusedError:
        sock.close()
        _remove_dead(path, before)
    except OSError:
        sock.close()
    return None


def _remove_dead(path: str, seen: os.stat_result) -> None:
    """Remove a socket file nobody listens on (its engine was killed), unless it was replaced
    meanwhile; an engine renames its socket into place only once it listens."""
    try:
        now = os.stat(path)
        if (now.st_ino, now.st_dev) == (seen.st_ino, seen.st_dev) and now.st_uid == os.getuid():
            os.unlink(path)
    except OSError:
        pass


def request_fields(op: str, prog: str = PROG, folder: str = "",
                   args: Namespace | None = None) -> list[tuple[str, str]]:
    """A request: what it asks, from which code, and for a command its parsed options, the
    caller's folder and umask, its streams, and the environment settings are read from."""
    import json

    from engine.wiring.settings import forwarded

    umask = os.umask(0o077)
    os.umask(umask)
    fields = [("op", op), ("version", address.code_version()), ("cwd", folder),
              ("umask", f"{umask:o}"), ("prog", prog)]
    for name, stream in (("stdin", sys.stdin), ("stdout", sys.stdout), ("stderr", sys.stderr)):
        fields.append((f"stream:{name}", _describe(stream)))
    environ = {**forwarded(os.environ), **_terminal_size()}
    fields.extend(("env:" + name, value) for name, value in environ.items())
    if args is not None:
        fields.append(("options", json.dumps(vars(args))))
    return fields


def _describe(stream: TextIO | None) -> str:
    if stream is None:
        return "utf-8 strict 0"
    try:
        tty = stream.isatty()
    except (OSError, ValueError):
        tty = False
    return f"{stream.encoding or 'utf-8'} {stream.errors or 'strict'} {int(tty)}"


def _terminal_size() -> dict[str, str]:
    """COLUMNS / LINES as shutil.get_terminal_size would find them here (argparse wraps its
    help to them); the engine's own stdout is no terminal."""
    found = {name: os.environ[name] for name in ("COLUMNS", "LINES") if os.environ.get(name)}
    if len(found) == 2 or sys.__stdout__ is None:
        return found
    try:
        size = os.get_terminal_size(sys.__stdout__.fileno())
    except (AttributeError, ValueError, OSError):
        return found
    return {"COLUMNS": str(size.columns), "LINES": str(size.lines), **found}
