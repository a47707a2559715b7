"""`eem ui` from the shell: bad flags are one `Error:` line and exit 2 before anything starts;
started, it listens on 127.0.0.1 only and prints the address with its token, answers nothing
without the token nor at another host name, and `--host` off loopback warns."""
from __future__ import annotations

import os
import queue
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the desk extra is not installed")

ROOT = Path(__file__).resolve().parents[2]


def _env(tmp_path: Path, neo4j_settings=None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "EEM_"))}
    env.update(EEM_HOME=os.environ["EEM_HOME"], EEM_SERVE="0")  # the session's, no engine
    env.update(PYTHONPATH=str(ROOT), NEO4J_LOCAL_HOME=str(tmp_path / "home"), EEM_ACTOR="ada")
    if neo4j_settings is not None:
        env.update(NEO4J_URI=neo4j_settings.uri, NEO4J_USER=neo4j_settings.user,
                   NEO4J_PASSWORD=neo4j_settings.password or "",
                   NEO4J_DATABASE=neo4j_settings.database)
    else:  # nothing listens here: a flag refused before connecting never notices
        env.update(NEO4J_URI="bolt://127.0.0.1:1", NEO4J_PASSWORD="x")
    return env


def _ui(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.Popen:
    eem = "import sys; from engine.eem import main; sys.exit(main())"  # the `eem` script
    return subprocess.Popen([sys.executable, "-c", eem, "ui", *args], env=env, cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.parametrize("args, said", [
    (["--port", "70000"], "Error: --port takes 0 to 65535, not 70000"),
    (["--proposals", "no-such-folder"], "Error: --proposals "),
])
def test_a_bad_flag_is_one_error_line_and_exit_2(tmp_path, args, said):
    p = _ui(args, _env(tmp_path), tmp_path)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 2 and out == ""
    assert err.startswith(said) and len(err.strip().splitlines()) == 1, err


def _address(p: subprocess.Popen, lines: queue.Queue[str]) -> str:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and p.poll() is None:
        try:
            found = re.search(r"(http://[\d.]+:\d+/\?token=\S+)", lines.get(timeout=1))
        except queue.Empty:
            continue
        if found:
            return found.group(1)
    raise AssertionError(p.stderr.read() if p.poll() is not None else "no address printed")


def _status(url: str, headers: dict[str, str] | None = None) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}),
                                    timeout=60) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def _started(args: list[str], env: dict[str, str], cwd: Path):
    p = _ui(args, env, cwd)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in p.stdout], daemon=True).start()
    return p, _address(p, lines)


def _stop(p: subprocess.Popen) -> str:
    p.terminate()
    try:
        p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
    return p.stderr.read()


def _other_address() -> str | None:
    """An address of this machine that is not loopback, if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # no packet is sent: this only picks a route
            found = s.getsockname()[0]
        except OSError:
            return None
    return None if found.startswith("127.") else found


@pytest.mark.neo4j
def test_it_listens_on_loopback_and_wants_its_token(store, neo4j_settings, tmp_path):
    p, url = _started(["--port", "0"], _env(tmp_path, neo4j_settings), tmp_path)
    try:
        assert url.startswith("http://127.0.0.1:")
        port = int(url.split(":")[2].split("/")[0])
        token = url.split("token=")[1]
        bare = f"http://127.0.0.1:{port}/queue"
        assert _status(bare) == 401
        assert _status(bare, {"Authorization": f"Bearer {token}"}) == 200
        assert _status(bare, {"Authorization": f"Bearer {token}", "Host": "evil.example"}) \
            == 400  # another name for this address (DNS rebinding)
        assert _status(f"http://127.0.0.1:{port}/queue/decide",
                       {"Authorization": f"Bearer {token}"}) == 405  # no write from a GET
        other = _other_address()
        if other is not None:
            with pytest.raises(OSError):
                socket.create_connection((other, port), timeout=5).close()
    finally:
        _stop(p)


@pytest.mark.neo4j
def test_another_host_is_served_with_a_warning(store, neo4j_settings, tmp_path):
    p, url = _started(["--port", "0", "--host", "0.0.0.0"],
                      _env(tmp_path, neo4j_settings), tmp_path)
    err = _stop(p)
    assert url.startswith("http://127.0.0.1:")
    assert "warning: the desk listens on 0.0.0.0" in err
