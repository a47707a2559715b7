"""`eem serve start|stop|status`: the life of the resident engine of a memory (server.py), and
its start in the background by the first command that finds none.

start: the engine of the memory the folder is in (or --memory names), in its own session (a
terminal's Ctrl-C never reaches it), its log beside its socket; one from other code is
stopped first. stop: the engine (it finishes the commands it runs) and the memory's own
server. status: exit 0 when commands of this memory go through an engine, 1 when none runs
or the one running would refuse them (and why).

A command that finds no engine for its memory starts one in the background for the commands
after it and runs itself meanwhile (`start_in_background`), saying so in one line; EEM_SERVE=0
turns that off. The engine goes away by itself (server.py): after EEM_SERVE_IDLE seconds
without a command (30 minutes), when the code it runs changes, when its memory's server
stops. Two commands racing to start one start one: an engine holds a lock beside its socket
for its life, and one that cannot take it exits at once.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from engine.cli.command import Writer
from engine.errors import InvalidInput, StoreError
from engine.resident import address, wire
from engine.resident.connection import connect, request_fields
from engine.wiring.memories import Memory, find
from engine.wiring.settings import Settings

START_SECONDS = 120.0  # a memory's own server may have to start first
STOP_SECONDS = 35.0  # the engine gives running commands 30 s


def main(argv: list[str] | None = None, *, prog: str = "eem serve") -> int:
    """`serve start|stop|status` in this process; `prog`: the name it goes by."""
    import argparse

    parser = argparse.ArgumentParser(
        prog=prog, description="A resident engine that keeps the memory's connection open, so "
                               "each command starts in milliseconds (the first command "
                               "starts one by itself; EEM_SERVE=0 turns that off).",
        epilog=f"example: {prog} status")
    parser.add_argument("action", choices=["start", "stop", "status"],
                        help="start the memory's resident engine, stop it (and the memory's "
                             "own server), or say whether commands use it")
    parser.add_argument("--memory", metavar="NAME",
                        help="the memory (default: the one of the folder you are in)")
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    program = prog.removesuffix(" serve")
    from engine.cli.main import guarded

    def run() -> int:
        settings = Settings.of(os.environ)
        memory = find(settings, Path.cwd(), args.memory)
        return command(args.action, settings, memory, program, sys.stdout)

    return guarded(run, debug=args.debug, err=sys.stderr, prog=program)


def command(action: str, settings: Settings, memory: Memory, prog: str, out: Writer) -> int:
    """`serve ACTION` for `memory`, as `prog` names it; what it says goes to `out`."""
    path = address.socket_path(settings, memory)
    if action == "status":
        return status(path, memory, prog, out)
    if action == "start":
        return start(path, memory, settings, prog, out)
    return stop(path, memory, settings, out)


def ask_status(path: str, op: str = "status", prog: str = "eem") -> dict[str, str] | None:
    """The engine at `path`'s answer to `op` (status or stop), or None when none answers;
    `prog`, the name the caller goes by, is the one its hints name."""
    sock = connect(path)
    if sock is None:
        return None
    try:
        sock.sendall(wire.frame(wire.REQUEST, wire.pack_fields(
            request_fields(op, prog, os.getcwd()))))
        reply = wire.read_frame(sock)
    except (OSError, ValueError):
        return None
    finally:
        sock.close()
    if reply is None or reply[0] != wire.STATUS:
        return None
    return dict(wire.unpack_fields(reply[1]))


def status(path: str, memory: Memory, prog: str, out: Writer) -> int:
    found = ask_status(path, "status", prog)
    if found is None:
        out.write(f"no resident engine for memory '{memory.name}'; the next command starts "
                  f"one (or: {prog} serve start)\n")
        return 1
    out.write(f"resident engine running (pid {found['pid']}) for memory '{memory.name}' on "
              f"{found['socket']}: {found['served']} commands served, {found['running']} "
              f"running, idle {found['idle']} s of {found['idle_limit']}\n")
    if found["declines"]:
        out.write(f"not used by this shell: {found['declines']}\n")
        return 1
    return 0


def stop(path: str, memory: Memory, settings: Settings, out: Writer) -> int:
    from engine.wiring.local_server import stop as stop_server

    found = ask_status(path, "stop")
    if found is None:
        out.write(f"no resident engine running for memory '{memory.name}'\n")
    else:
        pid = int(found["pid"])
        deadline = time.monotonic() + STOP_SECONDS
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if _alive(pid):
            raise StoreError(f"the resident engine (pid {pid}) did not stop within "
                             f"{STOP_SECONDS:g} s; end it with: kill {pid}")
        out.write(f"resident engine stopped (pid {pid})\n")
    if memory.local and stop_server(memory, settings):
        out.write(f"the server of memory '{memory.name}' stopped\n")
    return 0


def _spawn(path: str, memory: Memory, prog: str) -> subprocess.Popen[bytes]:
    problem = address.private_folder(os.path.dirname(path))
    if problem:
        raise InvalidInput(f"cannot serve from {os.path.dirname(path)}: {problem}",
                           field="EEM_SERVE_DIR")
    if len(path.encode()) > address.MAX_SOCKET_PATH:
        raise InvalidInput(f"the socket path {path} is longer than a Unix socket allows; set "
                           "EEM_SERVE_DIR to a shorter folder", field="EEM_SERVE_DIR")
    log = address.log_path(path)
    with open(log, "ab") as log_file:
        os.chmod(log, 0o600)
        return subprocess.Popen(
            [sys.executable, "-m", "engine.resident", "--socket", path, "--folder",
             os.getcwd(), "--prog", prog, *_named(memory)], cwd=address.ROOT,
            stdin=subprocess.DEVNULL,
            stdout=log_file, stderr=log_file, start_new_session=True)


def _named(memory: Memory) -> list[str]:
    from engine.wiring.memories import ENVIRONMENT

    return [] if memory.name == ENVIRONMENT else ["--memory", memory.name]


def start(path: str, memory: Memory, settings: Settings, prog: str, out: Writer) -> int:
    found = ask_status(path)
    if found is not None and not found["declines"]:
        out.write(f"resident engine already running (pid {found['pid']}) on {path}\n")
        return 0
    if found is not None:
        out.write(f"stopping the resident engine (pid {found['pid']}): {found['declines']}\n")
        stop(path, memory, settings, out)
    process = _spawn(path, memory, prog)
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise StoreError(f"the resident engine did not start: "
                             f"{_last_line(address.log_path(path))}")
        found = ask_status(path)
        if found is not None and found["pid"] == str(process.pid):
            out.write(f"resident engine running (pid {process.pid}) for memory "
                      f"'{memory.name}' on {path}; {prog} commands now go through it (stop it "
                      f"with: {prog} serve stop)\n")
            return 0
        time.sleep(0.05)
    process.terminate()
    raise StoreError(f"the resident engine did not answer within {START_SECONDS:g} s "
                     f"(log: {address.log_path(path)})")


def start_in_background(path: str, memory: Memory, prog: str) -> None:
    """Start the memory's engine for the commands to come, unless EEM_SERVE=0 or one is
    starting already; say so in one line on stderr. Never waited on."""
    if os.environ.get("EEM_SERVE", "").strip() == "0":
        return
    if os.path.exists(address.lock_path(path)) and address.locked(address.lock_path(path)):
        return  # another command started it: it is on its way
    try:
        _spawn(path, memory, prog)
    except (OSError, InvalidInput):
        return  # the command runs here all the same
    print(f"started a resident engine for this memory, so the next {prog} commands start in "
          f"milliseconds ({prog} serve stop stops it; EEM_SERVE=0 turns this off)",
          file=sys.stderr)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # an engine that exited stays a zombie until its parent reaps it
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def _last_line(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = [line.strip() for line in f if line.strip()]
    except OSError:
        return f"see {path}"
    text = lines[-1] if lines else f"see {path}"
    return text.removeprefix("Error: ")
