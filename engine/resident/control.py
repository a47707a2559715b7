"""`eem serve start|stop|status`: the resident engine's life (server.py).

start: a resident engine for the connection settings of the environment, in its own session
(a terminal's Ctrl-C never reaches it), its log beside its socket; a running one from other
code is stopped first. Nothing else ever starts one. stop: asks it to stop (it finishes the
commands it runs). status: exit 0 when `python -m engine` commands go through one, 1 when
none runs or the one running would refuse them (and why).
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

from engine.cli.command import Writer
from engine.errors import InvalidInput, StoreError
from engine.resident import address, wire
from engine.resident.connection import connect, request_fields

START_SECONDS = 60.0
STOP_SECONDS = 35.0  # the engine gives running commands 30 s


def main(argv: list[str] | None = None, *, prog: str = "eem serve") -> int:
    """`serve start|stop|status` in this process; `prog`: the name it goes by."""
    import argparse

    parser = argparse.ArgumentParser(
        prog=prog, description="A resident engine that keeps the connection open, so each "
                               "command starts in milliseconds.",
        epilog=f"example: {prog} start")
    parser.add_argument("action", choices=["start", "stop", "status"],
                        help="start the resident engine, stop it, or say whether commands "
                             "use it")
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    program = prog.removesuffix(" serve")
    from engine.cli.main import guarded

    return guarded(lambda: command(args.action, program, sys.stdout), debug=args.debug,
                   err=sys.stderr, prog=program)


def command(action: str, prog: str, out: Writer) -> int:
    """`serve ACTION` as `prog` names it; what it says goes to `out`."""
    if action == "status":
        return status(prog, out)
    return start(prog, out) if action == "start" else stop(out)


def ask_status(op: str = "status", prog: str = "python -m engine") -> dict[str, str] | None:
    """The running engine's answer to `op` (status or stop), or None when none answers;
    `prog`, the name the caller goes by, is the one its hints name."""
    sock = connect(address.socket_path(os.environ))
    if sock is None:
        return None
    try:
        sock.sendall(wire.frame(wire.REQUEST, wire.pack_fields(request_fields(op, prog))))
        reply = wire.read_frame(sock)
    except (OSError, ValueError):
        return None
    finally:
        sock.close()
    if reply is None or reply[0] != wire.STATUS:
        return None
    return dict(wire.unpack_fields(reply[1]))


def _where() -> str:
    uri, user, database = address.connection_settings(os.environ)
    return f"{uri} (user {user}, database {database})"


def status(prog: str, out: Writer) -> int:
    """`prog`: the name the command goes by, in the hint (eem, python -m engine)."""
    found = ask_status("status", prog)
    if found is None:
        out.write(f"no resident engine for {_where()}; start one with: {prog} serve start\n")
        return 1
    out.write(f"resident engine running (pid {found['pid']}) for {_where()} on "
              f"{found['socket']}: {found['served']} commands served, {found['running']} "
              "running\n")
    if found["declines"]:
        out.write(f"not used by this shell: {found['declines']}\n")
        return 1
    return 0


def stop(out: Writer) -> int:
    found = ask_status("stop")
    if found is None:
        out.write(f"no resident engine running for {_where()}\n")
        return 0
    pid = int(found["pid"])
    deadline = time.monotonic() + STOP_SECONDS
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    if _alive(pid):
        raise StoreError(f"the resident engine (pid {pid}) did not stop within {STOP_SECONDS:g} s;"
                         f" end it with: kill {pid}")
    out.write(f"resident engine stopped (pid {pid})\n")
    return 0


def start(prog: str, out: Writer) -> int:
    path = address.socket_path(os.environ)
    problem = address.private_folder(os.path.dirname(path))
    if problem:
        raise InvalidInput(f"cannot serve from {os.path.dirname(path)}: {problem}",
                           field="EEM_SERVE_DIR")
    if len(path.encode()) > address.MAX_SOCKET_PATH:
        raise InvalidInput(f"the socket path {path} is longer than a Unix socket allows; set "
                           "EEM_SERVE_DIR to a shorter folder", field="EEM_SERVE_DIR")
    found = ask_status()
    if found is not None and not found["declines"]:
        out.write(f"resident engine already running (pid {found['pid']}) on {path}\n")
        return 0
    if found is not None:
        out.write(f"stopping the resident engine (pid {found['pid']}): {found['declines']}\n")
        stop(out)
    log = address.log_path(path)
    with open(log, "ab") as log_file:
        os.chmod(log, 0o600)
        process = subprocess.Popen(
            [sys.executable, "-m", "engine.resident", "--socket", path], cwd=address.ROOT,
            stdin=subprocess.DEVNULL, stdout=log_file, stderr=log_file, start_new_session=True)
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise StoreError(f"the resident engine did not start: {_last_line(log)}")
        found = ask_status()
        if found is not None and found["pid"] == str(process.pid):
            out.write(f"resident engine running (pid {process.pid}) for {_where()} on {path}; "
                      f"{prog} commands now go through it (stop it with: {prog} serve stop)\n")
            return 0
        time.sleep(0.05)
    process.terminate()
    raise StoreError(f"the resident engine did not answer within {START_SECONDS:g} s "
                     f"(log: {log})")


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
