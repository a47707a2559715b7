"""The resident engine's life without anyone asking (issue 50): the first command starts one
in the background (saying so once) and runs itself; the next go through it; it goes away when
idle, when its code changes; a killed one is not waited on; two racing first commands start
one; EEM_SERVE=0 starts nothing. Every test stops what it started."""
from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from engine import tms

pytestmark = pytest.mark.neo4j

ROOT = Path(__file__).resolve().parents[2]
STARTED = "started a resident engine for this memory"


def engine(args, env, *, cwd=ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=180, check=False)


@pytest.fixture
def serve_dir():
    folder = tempfile.mkdtemp(prefix="eem-life-", dir="/tmp")  # a socket path stays short
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def auto_env(neo4j_settings, serve_dir, store):
    """The tests' server as NEO4J_URI names it, and commands that start an engine (no
    EEM_SERVE); whatever engine is left at the end is stopped."""
    tms.add(store, "p", "a premise")
    e = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "EEM_"))}
    e.update(EEM_HOME=os.environ["EEM_HOME"], EEM_SERVE_DIR=serve_dir,
             NEO4J_URI=neo4j_settings.uri, NEO4J_USER=neo4j_settings.user,
             NEO4J_PASSWORD=neo4j_settings.password or "",
             NEO4J_DATABASE=neo4j_settings.database, PYTHONIOENCODING="utf-8")
    yield e
    for pid in engines(serve_dir):
        os.kill(pid, signal.SIGKILL)


def engines(serve_dir: str) -> list[int]:
    """The pids of the resident engines serving sockets in `serve_dir`."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if b"engine.resident" in cmdline and state != "Z" \
                and any(a.startswith(serve_dir.encode()) for a in cmdline):
            found.append(int(proc.name))
    return found


def wait_for(condition, seconds: float = 120) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def answering(env) -> bool:
    return engine(["serve", "status"], env).returncode == 0


def served(env) -> int:
    out = engine(["serve", "status"], env).stdout
    return int(out.split(": ")[-1].split(" commands served")[0])


def log_of(serve_dir: str) -> str:
    return "".join(p.read_text() for p in Path(serve_dir).glob("engine-*.log"))


def test_the_first_command_starts_an_engine_the_next_use_it(auto_env, serve_dir):
    first = engine(["show", "p"], auto_env)
    assert first.returncode == 0 and first.stdout.startswith("p  [IN]")
    [line] = first.stderr.splitlines()  # one line, the first time
    assert line.startswith(STARTED) and "serve stop" in line and "EEM_SERVE=0" in line
    assert wait_for(lambda: answering(auto_env))
    assert stat.S_IMODE(os.stat(serve_dir).st_mode) == 0o700  # the socket folder: user-only
    for _ in range(3):
        later = engine(["show", "p"], auto_env)
        assert later.returncode == 0 and later.stdout == first.stdout
        assert later.stderr == ""  # never on later commands
    assert served(auto_env) == 3
    assert len(engines(serve_dir)) == 1
    engine(["serve", "stop"], auto_env)
    assert not engines(serve_dir)


def test_eem_serve_0_runs_every_command_itself_and_starts_nothing(auto_env, serve_dir):
    off = dict(auto_env, EEM_SERVE="0")
    for _ in range(2):
        done = engine(["show", "p"], off)
        assert done.returncode == 0 and done.stdout.startswith("p  [IN]")
        assert done.stderr == ""
    time.sleep(2)
    assert not engines(serve_dir)
    assert not list(Path(serve_dir).iterdir())  # no socket, lock or log
    assert engine(["serve", "status"], off).returncode == 1


def test_an_idle_engine_goes_away(auto_env, serve_dir):
    idle = dict(auto_env, EEM_SERVE_IDLE="2")
    started = engine(["serve", "start"], idle)
    assert started.returncode == 0, started.stderr
    assert engines(serve_dir)
    assert wait_for(lambda: not engines(serve_dir), 30)
    assert "stopped (idle for 2 s)" in log_of(serve_dir)
    assert not list(Path(serve_dir).glob("*.sock"))


@pytest.mark.slow
def test_an_engine_whose_code_changed_goes_away(auto_env, serve_dir, tmp_path):
    """An engine started from a copy of the checkout; a file of that copy changes (a `git
    pull`, a reinstall): the engine stops by itself, with no command asking."""
    copy = tmp_path / "checkout"
    for part in ("engine", "adapters", "cypher", "scripts"):
        shutil.copytree(ROOT / part, copy / part, ignore=shutil.ignore_patterns("__pycache__"))
    env = dict(auto_env, PYTHONPATH=str(copy))
    started = engine(["serve", "start"], env, cwd=copy)
    assert started.returncode == 0, started.stderr
    [pid] = engines(serve_dir)
    (copy / "engine" / "pulled.py").write_text('"""a file a pull brought"""\n')
    assert wait_for(lambda: not engines(serve_dir), 60)
    assert "stopped (the code changed)" in log_of(serve_dir)


def test_a_killed_engine_is_not_waited_on(auto_env, serve_dir):
    started = engine(["serve", "start"], auto_env)
    assert started.returncode == 0, started.stderr
    [pid] = engines(serve_dir)
    os.kill(pid, signal.SIGKILL)
    assert wait_for(lambda: not engines(serve_dir), 10)
    begun = time.monotonic()
    done = engine(["show", "p"], auto_env)
    assert done.returncode == 0 and done.stdout.startswith("p  [IN]")
    assert time.monotonic() - begun < 60  # ran itself (no wait for a handshake timeout)
    assert done.stderr.startswith(STARTED)  # and a new engine started
    assert wait_for(lambda: answering(auto_env))
    [new] = engines(serve_dir)
    assert new != pid
    engine(["serve", "stop"], auto_env)


def test_two_racing_first_commands_start_one_engine(auto_env, serve_dir):
    results: list[subprocess.CompletedProcess] = []
    racers = [threading.Thread(target=lambda: results.append(engine(["show", "p"], auto_env)))
              for _ in range(3)]
    for t in racers:
        t.start()
    for t in racers:
        t.join(timeout=180)
    assert [r.returncode for r in results] == [0, 0, 0]
    assert wait_for(lambda: answering(auto_env))
    time.sleep(3)  # an engine that lost the race has left by now
    assert len(engines(serve_dir)) == 1
    assert len(list(Path(serve_dir).glob("engine-*.sock"))) == 1
    engine(["serve", "stop"], auto_env)
    assert not engines(serve_dir)
