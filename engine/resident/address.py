"""Where a resident engine listens, and what makes one usable by a caller.

- The folder: EEM_SERVE_DIR, else `resident/` under this machine's memories (EEM_HOME),
  mode 700, owned by the user.
- The socket: one per memory (its name and where it lives), so an engine for another memory
  is never reached; the engine checks each request's memory too.
- The version: the checkout's path, the interpreter, and the size and modification time of
  every file of engine/, adapters/ and cypher/; an engine started from other code refuses
  the command (and goes away), and the caller runs it in its own process.
"""
from __future__ import annotations

import os
import sys
import zlib

TYPE_CHECKING = False  # typing itself costs more than this module's whole work
if TYPE_CHECKING:
    from engine.wiring.memories import Memory
    from engine.wiring.settings import Settings

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CODE_FOLDERS = ("engine", "adapters", "cypher")
# a Unix socket's path must fit in sun_path (108 bytes on Linux)
MAX_SOCKET_PATH = 107


def memory_key(memory: Memory) -> str:
    """What tells one memory from another: its name and where it lives."""
    return "\0".join((memory.name, memory.home or memory.uri, memory.database, memory.user))


def serve_folder(settings: Settings) -> str:
    from engine.wiring.memories import eem_home

    given = settings.value("EEM_SERVE_DIR")
    return os.path.abspath(given) if given else str(eem_home(settings) / "resident")


def socket_path(settings: Settings, memory: Memory) -> str:
    key = memory_key(memory).encode("utf-8", "surrogateescape")
    return os.path.join(serve_folder(settings), f"engine-{zlib.crc32(key):08x}.sock")


def log_path(socket: str) -> str:
    return socket.removesuffix(".sock") + ".log"


def lock_path(socket: str) -> str:
    """The lock an engine holds for its life: one engine per socket."""
    return socket.removesuffix(".sock") + ".lock"


def locked(path: str) -> bool:
    """Some process holds the lock at `path`."""
    import fcntl

    try:
        with open(path, "rb") as f:
            fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return False
    except BlockingIOError:
        return True
    except OSError:
        return False


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
