"""Where a resident engine listens, and what makes one usable by a caller.

Standard library only, and only what Python has loaded at start-up: the forwarding path
(forwarding.py) reads this on every command, before it knows whether it will
import anything heavier.

- The folder: EEM_SERVE_DIR, else `resident/` beside the Neo4j password file (NEO4J_LOCAL_HOME,
  else the checkout's `.neo4j/`), mode 700, owned by the user.
- The socket: one per connection settings (URI, user, database, as adapters/neo4j/connection.py
  resolves them), so an engine for other settings is never reached.
- The version: the checkout's path, the interpreter, and the size and modification time of
  every file of engine/, adapters/ and cypher/; an engine started from other code refuses
  the command, and the caller runs it in its own process.
"""
from __future__ import annotations

import os
import sys
import zlib

TYPE_CHECKING = False  # typing itself costs more than this module's whole work
if TYPE_CHECKING:
    from collections.abc import Mapping

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
CODE_FOLDERS = ("engine", "adapters", "cypher")
# the defaults of adapters/neo4j/connection.Neo4jSettings (a unit test holds them equal)
DEFAULT_URI = "bolt://127.0.0.1:7687"
DEFAULT_USER = "neo4j"
DEFAULT_DATABASE = "neo4j"
# a Unix socket's path must fit in sun_path (108 bytes on Linux)
MAX_SOCKET_PATH = 107


def connection_settings(environ: Mapping[str, str]) -> tuple[str, str, str]:
    """(URI, user, database) as the store would connect with them."""
    return (environ.get("NEO4J_URI") or DEFAULT_URI, environ.get("NEO4J_USER") or DEFAULT_USER,
            environ.get("NEO4J_DATABASE") or DEFAULT_DATABASE)


def serve_folder(environ: Mapping[str, str]) -> str:
    if environ.get("EEM_SERVE_DIR"):
        return os.path.abspath(environ["EEM_SERVE_DIR"])
    home = environ.get("NEO4J_LOCAL_HOME") or os.path.join(ROOT, ".neo4j")
    return os.path.join(os.path.abspath(home), "resident")


def socket_path(environ: Mapping[str, str]) -> str:
    settings = "\0".join(connection_settings(environ)).encode("utf-8", "surrogateescape")
    return os.path.join(serve_folder(environ), f"engine-{zlib.crc32(settings):08x}.sock")


def log_path(socket: str) -> str:
    return socket.removesuffix(".sock") + ".log"


def code_version(root: str = ROOT) -> str:
    """What an engine's answers depend on besides the graph: this code, where it is, which
    Python runs it. Compared whole (a few kilobytes), so no hash can collide."""
    # the interpreter and the environment, however it was named (python, python3, a symlink)
    entries = [root, os.path.realpath(sys.executable), sys.prefix, sys.version]
    for folder in CODE_FOLDERS:
        _list_files(os.path.join(root, folder), folder, entries)
    return "\n".join(entries)


def _list_files(path: str, relative: str, entries: list[str]) -> None:
    try:
        found = sorted(os.scandir(path), key=lambda e: e.name)
    except OSError:
        return
    for entry in found:
        if entry.name == "__pycache__":
            continue
        name = f"{relative}/{entry.name}"
        if entry.is_dir(follow_symlinks=False):
            _list_files(entry.path, name, entries)
        elif not entry.name.endswith(".pyc"):
            stat = entry.stat()
            entries.append(f"{name} {stat.st_size} {stat.st_mtime_ns}")


def private_folder(folder: str) -> str | None:
    """Create `folder` (mode 700) if absent; None when it is fit for a socket, else why not."""
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        stat = os.stat(folder)
    except OSError as e:
        return f"cannot create {folder}: {e.strerror}"
    if stat.st_uid != os.getuid():
        return f"{folder} belongs to another user"
    if stat.st_mode & 0o077:
        try:
            os.chmod(folder, 0o700)
        except OSError as e:
            return f"{folder} is open to other users and cannot be closed: {e.strerror}"
    return None
