"""The resident engine (`python -m engine serve`) against the real Neo4j: a forwarded command
prints, exits and fails exactly as it does in its own process, in the caller's folder, with
the caller's stdin, environment and flags; an engine from other code or for other settings is
not used; a dead socket is cleaned up; Ctrl-C cancels the caller's command, not the engine;
several callers are served at once. Each engine runs in a short temporary socket folder
(EEM_SERVE_DIR) and is stopped by the test that started it."""
from __future__ import annotations

import json
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
from engine.model import Truth
from tests.integration.test_write_lock import HeldLock

pytestmark = pytest.mark.neo4j

ROOT = Path(__file__).resolve().parents[2]
J = tms.make_justifications


def engine(args, env, *, cwd=ROOT, stdin: str | None = None,
           python_flags=()) -> subprocess.CompletedProcess:
    if Path(cwd) != ROOT:  # run this checkout's engine from any folder
        env = dict(env, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, *python_flags, "-m", "engine", *args], cwd=cwd,
                          env=env, input=stdin, capture_output=True, text=True, timeout=120,
                          check=False)


EEM = "import sys; from engine.eem import main; sys.exit(main())"  # the console script


def eem(args, env, *, python_flags=()) -> subprocess.CompletedProcess:
    """`eem ARGS` as pyproject's console script runs it."""
    return subprocess.run([sys.executable, *python_flags, "-c", EEM, *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture
def base_env(neo4j_settings) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "EEM_"))}
    e.update(NEO4J_URI=neo4j_settings.uri, NEO4J_USER=neo4j_settings.user,
             NEO4J_PASSWORD=neo4j_settings.password or "",
             NEO4J_DATABASE=neo4j_settings.database, PYTHONIOENCODING="utf-8")
    return e


@pytest.fixture
def serve_dir():
    # a Unix socket path must stay under 108 bytes: pytest's tmp_path can be longer
    folder = tempfile.mkdtemp(prefix="eem-serve-", dir="/tmp")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


class Resident:
    """A resident engine started with `serve start` for `env`; `stop()` always ends it."""

    def __init__(self, env: dict[str, str]):
        self.env = env
        started = engine(["serve", "start"], env)
        assert started.returncode == 0, started.stderr
        self.pid = int(started.stdout.split("(pid ")[1].split(")")[0])

    def served(self) -> int:
        out = engine(["serve", "status"], self.env).stdout
        return int(out.split(": ")[-1].split(" commands served")[0])

    def stop(self) -> None:
        engine(["serve", "stop"], self.env)
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.fixture
def resident_env(base_env, serve_dir) -> dict[str, str]:
    return dict(base_env, EEM_SERVE_DIR=serve_dir)


@pytest.fixture
def resident(resident_env, store):
    r = Resident(resident_env)
    yield r
    r.stop()


@pytest.fixture
def here_env(base_env):
    """In-process: a socket folder with no engine in it."""
    folder = tempfile.mkdtemp(prefix="eem-none-", dir="/tmp")
    yield dict(base_env, EEM_SERVE_DIR=folder)
    shutil.rmtree(folder, ignore_errors=True)


def small_network(store) -> None:
    tms.add(store, "p", "a premise")
    tms.add(store, "q", "derived from p", J(["p"]))
    tms.add(store, "r", "another premise")


def socket_file(serve_dir: str) -> Path:
    [found] = Path(serve_dir).glob("engine-*.sock")
    return found


# --- life ----------------------------------------------------------------------------------
def test_serve_start_status_stop_and_a_private_socket(resident_env, serve_dir, store):
    assert engine(["serve", "status"], resident_env).returncode == 1
    resident = Resident(resident_env)
    try:
        assert stat.S_IMODE(os.stat(serve_dir).st_mode) == 0o700
        sock = socket_file(serve_dir)
        assert stat.S_ISSOCK(os.stat(sock).st_mode)
        assert stat.S_IMODE(os.stat(sock).st_mode) == 0o600
        status = engine(["serve", "status"], resident_env)
        assert status.returncode == 0 and f"pid {resident.pid}" in status.stdout
        again = engine(["serve", "start"], resident_env)
        assert again.returncode == 0 and "already running" in again.stdout
    finally:
        resident.stop()
    assert not list(Path(serve_dir).glob("*.sock"))
    assert engine(["serve", "status"], resident_env).returncode == 1


# what a command handed to the engine loads in its caller: the parsers, the request, the
# transport; nothing of the library (no store, no service, no driver)
FORWARDING_PATH = ("engine.cli", "engine.resident", "engine.defaults", "engine.errors",
                   "engine.wiring.settings")


@pytest.mark.parametrize("run, entry", [(engine, set()), (eem, {"engine.eem"})],
                         ids=["python -m engine", "eem"])
def test_the_forwarding_path_loads_nothing_of_the_library(resident, run, entry):
    done = run(["status"], resident.env, python_flags=("-X", "importtime"))
    assert done.returncode == 0, done.stderr
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines()
                if line.startswith("import time:")}
    ours = {m for m in imported if m.split(".")[0] in ("engine", "adapters")} - entry
    assert "engine.cli.main" in ours and "engine.resident.client" in ours
    assert all(m in ("engine", "engine.wiring") or m.startswith(FORWARDING_PATH)
               for m in ours), sorted(ours)
    assert not {m for m in imported if m.split(".")[0] in ("neo4j", "socket")}
    assert resident.served() == 1


def test_eem_through_the_engine_is_eem_in_its_own_process(resident, here_env, store):
    small_network(store)
    for args in (["show", "q"], ["show", "--help"], ["bogus"], ["propose", "retract", "-h"],
                 ["status", "--json"]):
        here, there = eem(args, here_env), eem(args, resident.env)
        assert (there.returncode, there.stdout, there.stderr) == \
            (here.returncode, here.stdout, here.stderr), args
    assert resident.served() == 2  # help and usage errors end where the command was parsed
    usage = eem(["show", "--help"], resident.env).stdout
    assert usage.startswith("usage: eem show") and "\nexample: eem show " in usage
    assert eem(["show", "q"], resident.env).stdout == engine(["show", "q"], resident.env).stdout
    assert engine(["show", "--help"], resident.env).stdout.startswith("usage: python -m engine")


# --- the same as in its own process ---------------------------------------------------------
SAME = [["status"], ["status", "--json"], ["show", "q"], ["show", "q", "--json"],
        ["show", "nope"], ["bogus"], ["--help"], ["show", "--help"], ["show"], ["list"],
        ["search", "premise"], ["query", "--list"], ["explain", "q"], ["trace", "q"],
        ["what-if", "retract", "p"], ["verify"], ["--debug", "show", "nope"],
        ["query", "why_in", "--param", "id=q"], ["retract", "p"], ["assert", "p"],
        ["add", "q", "again"], ["reset"]]
PARSED_ONLY = (["bogus"], ["--help"], ["show", "--help"], ["show"])


def test_every_command_prints_and_exits_as_in_its_own_process(resident, here_env, store):
    small_network(store)
    for args in SAME:
        here = engine(args, here_env)
        if args == ["retract", "p"]:
            tms.assert_belief(store, "p")
        there = engine(args, resident.env)
        assert (there.returncode, there.stdout, there.stderr) == \
            (here.returncode, here.stdout, here.stderr), args
        if args == ["retract", "p"]:
            tms.assert_belief(store, "p")
    # help and usage errors end in the caller, where the command is parsed
    assert resident.served() == len(SAME) - len(PARSED_ONLY)


def test_a_write_through_the_engine_is_one_whole_change(resident, store):
    small_network(store)
    done = engine(["retract", "p", "--json"], resident.env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["went_out"] == ["p", "q"]
    assert tms.show(store, "q")[0].truth is Truth.OUT
    assert tms.verify(store) == []


def test_relative_paths_resolve_in_the_callers_folder(resident, store, tmp_path):
    small_network(store)
    exported = engine(["export", "-o", "net.json"], resident.env, cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    assert (tmp_path / "net.json").is_file() and not (ROOT / "net.json").exists()
    viz = engine(["viz", "q", "-o", "view/graph.html"], resident.env, cwd=tmp_path)
    assert viz.returncode == 0, viz.stderr
    assert (tmp_path / "view" / "graph.html").is_file()
    tms.reset(store)
    imported = engine(["import", "net.json"], resident.env, cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.startswith("imported 3 beliefs")
    missing = engine(["import", "absent.json"], resident.env, cwd=tmp_path)
    assert missing.returncode == 2 and "absent.json" in missing.stderr
    assert resident.served() == 4


def test_batch_reads_the_callers_stdin(resident, here_env, store):
    small_network(store)
    lines = "show p\nretract r\nsearch premise --all\n"
    there = engine(["batch", "-", "--json"], resident.env, stdin=lines)
    tms.assert_belief(store, "r")
    here = engine(["batch", "-", "--json"], here_env, stdin=lines)
    assert there.returncode == 0, there.stderr
    assert there.stdout == here.stdout and there.stderr == here.stderr
    assert [json.loads(line)["exit"] for line in there.stdout.splitlines()] == [0, 0, 0]
    assert resident.served() == 1


def test_a_command_that_reads_no_stdin_leaves_it_alone(resident, store):
    small_network(store)
    # stdin stays open and unread: the command must not wait for its end
    with subprocess.Popen([sys.executable, "-m", "engine", "show", "p"], cwd=ROOT,
                          env=resident.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          text=True) as client:
        out = client.stdout.read()
        assert client.wait(timeout=30) == 0
        client.stdin.close()
    assert out.startswith("p  [IN]")


# --- environment and flags -----------------------------------------------------------------
@pytest.fixture
def held_lock(store, driver, neo4j_settings):
    small_network(store)
    lock = HeldLock(driver, neo4j_settings.database)
    yield lock
    lock.release()


@pytest.mark.slow
def test_eem_lock_timeout_travels_with_the_command(resident, held_lock, store):
    started = time.monotonic()
    done = engine(["retract", "p"], dict(resident.env, EEM_LOCK_TIMEOUT="1.5"))
    assert done.returncode == 2, done.stderr
    assert 1.5 <= time.monotonic() - started < 20
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("Error: ") and "EEM_LOCK_TIMEOUT" in line and "1.5 s" in line
    assert done.stdout == ""
    bad = engine(["retract", "p"], dict(resident.env, EEM_LOCK_TIMEOUT="soon"))
    assert bad.stderr.strip().splitlines() == [
        "Error: EEM_LOCK_TIMEOUT must be a positive number of seconds, not 'soon'"]
    held_lock.release()
    assert tms.show(store, "p")[0].truth is Truth.IN
    assert resident.served() == 2


def test_eem_actor_travels_with_the_command(resident, store):
    small_network(store)
    for actor in ("alice", "bob"):  # one engine, two callers: each write is by its own caller
        done = engine(["retract", "r"] if actor == "alice" else ["assert", "r"],
                      dict(resident.env, EEM_ACTOR=actor))
        assert done.returncode == 0, done.stderr
    logged = engine(["log", "--id", "r", "--json"], resident.env)
    assert logged.returncode == 0, logged.stderr
    assert [(e["op"], e["actor"]) for e in json.loads(logged.stdout)["entries"]][:2] == [
        ("assert", "bob"), ("retract", "alice")]


def test_debug_travels_with_the_command(resident, store):
    done = engine(["--debug", "show", "nope"], resident.env)
    assert done.returncode == 2
    assert "Traceback (most recent call last)" in done.stderr
    assert done.stderr.strip().splitlines()[-1] == "Error: no belief with id 'nope'"
    plain = engine(["show", "nope"], resident.env)
    assert plain.stderr == "Error: no belief with id 'nope'\n"


# --- which engine is used ------------------------------------------------------------------
@pytest.mark.slow
def test_an_engine_from_other_code_is_not_used(resident_env, serve_dir, store, tmp_path):
    """An engine started from an older copy of the checkout: the caller runs the command
    itself, and `serve status` says why."""
    small_network(store)
    old = tmp_path / "old-checkout"
    for part in ("engine", "adapters", "cypher"):
        shutil.copytree(ROOT / part, old / part, ignore=shutil.ignore_patterns("__pycache__"))
    from engine.resident.address import socket_path

    path = socket_path(resident_env)
    server = subprocess.Popen([sys.executable, "-m", "engine.resident", "--socket", path],
                              cwd=old, env=resident_env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(path) and time.monotonic() < deadline:
            time.sleep(0.1)
        shown = engine(["show", "q"], resident_env)
        assert shown.returncode == 0 and shown.stdout.startswith("q  [IN]")
        status = engine(["serve", "status"], resident_env)
        assert status.returncode == 1
        assert "0 commands served" in status.stdout and "other code" in status.stdout
        # `serve start` replaces it with an engine of this code
        started = engine(["serve", "start"], resident_env)
        assert started.returncode == 0, started.stderr
        assert server.wait(timeout=40) == 0
        assert engine(["serve", "status"], resident_env).returncode == 0
    finally:
        engine(["serve", "stop"], resident_env)
        server.kill()
        server.wait()


def test_an_engine_for_other_settings_is_not_used(resident, store):
    small_network(store)
    wrong_password = engine(["show", "q"], dict(resident.env, NEO4J_PASSWORD="not-the-one"))
    assert wrong_password.returncode == 2
    assert "refused the credentials" in wrong_password.stderr
    other_database = engine(["show", "q"], dict(resident.env, NEO4J_DATABASE="elsewhere"))
    assert other_database.returncode == 2
    assert resident.served() == 0


def test_a_dead_socket_file_is_removed_and_the_command_runs_here(resident, serve_dir, store):
    small_network(store)
    sock = socket_file(serve_dir)
    os.kill(resident.pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(resident.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    assert sock.exists()
    shown = engine(["show", "q"], resident.env)
    assert shown.returncode == 0 and shown.stdout.startswith("q  [IN]")
    assert not sock.exists()
    assert engine(["serve", "status"], resident.env).returncode == 1


# --- Ctrl-C and concurrency ----------------------------------------------------------------
def _command_transactions(driver, database) -> list[str]:
    with driver.session(database=database) as session:
        return [r["transactionId"] for r in session.run(
            "SHOW TRANSACTIONS YIELD transactionId, metaData "
            "WHERE metaData.eem_command IS NOT NULL RETURN transactionId")]


def _wait_for(condition, seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def _as_at_a_terminal() -> None:
    """In the client, before it starts: Ctrl-C as a terminal delivers it. A test run started in
    the background by a shell without job control (CI scripts, `nohup ... &`) ignores SIGINT,
    and every process it starts inherits that, so the client would never see the signal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_cancels_the_callers_command_not_the_engine(resident, held_lock, store, driver,
                                                          neo4j_settings):
    client = subprocess.Popen([sys.executable, "-m", "engine", "retract", "p"], cwd=ROOT,
                              env=resident.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, preexec_fn=_as_at_a_terminal)
    try:
        assert _wait_for(lambda: _command_transactions(driver, neo4j_settings.database))
        client.send_signal(signal.SIGINT)
        out, err = client.communicate(timeout=20)
    finally:
        client.kill()
    assert client.returncode == 130
    assert err.strip().splitlines()[-1] == "Error: interrupted" and out == ""
    # its transaction is terminated (rolled back), not left waiting for the lock
    assert _wait_for(lambda: not _command_transactions(driver, neo4j_settings.database), 10)
    held_lock.release()
    assert tms.show(store, "p")[0].truth is Truth.IN
    shown = engine(["show", "p"], resident.env)
    assert shown.returncode == 0 and shown.stdout.startswith("p  [IN]")


def test_ctrl_c_during_a_batch_reading_stdin(resident, store):
    small_network(store)
    client = subprocess.Popen([sys.executable, "-m", "engine", "batch", "-"], cwd=ROOT,
                              env=resident.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, preexec_fn=_as_at_a_terminal)
    try:
        client.stdin.write("show p\n")
        client.stdin.flush()
        assert client.stdout.readline() == "$ show p\n"  # live: the batch waits for more
        client.send_signal(signal.SIGINT)
        _, err = client.communicate(timeout=20)
    finally:
        client.kill()
    assert client.returncode == 130 and err.strip().endswith("Error: interrupted")
    assert engine(["status"], resident.env).returncode == 0


def test_concurrent_callers_are_served_at_once(resident, held_lock, store):
    """A writer waits for the write lock another client holds; readers are answered meanwhile;
    the writer goes on once the lock is free."""
    writer = subprocess.Popen([sys.executable, "-m", "engine", "retract", "p"], cwd=ROOT,
                              env=resident.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    try:
        results: list[subprocess.CompletedProcess] = []
        readers = [threading.Thread(target=lambda: results.append(
            engine(["show", "q"], resident.env))) for _ in range(4)]
        for t in readers:
            t.start()
        for t in readers:
            t.join(timeout=60)
        assert [r.returncode for r in results] == [0] * 4
        assert all(r.stdout.startswith("q  [IN]") for r in results)
        assert writer.poll() is None  # still waiting for the lock
        held_lock.release()
        out, err = writer.communicate(timeout=60)
    finally:
        writer.kill()
    assert writer.returncode == 0, err
    assert out.splitlines() == ["OUT p", "OUT q"]
    assert tms.verify(store) == []

