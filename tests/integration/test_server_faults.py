"""Server faults, on a server of this module's own (free ports, its own NEO4J_LOCAL_HOME, a
small heap): kill -9 of the Neo4j process in the middle of a large import and in the middle
of a derive round's apply, then `scripts/neo4j start` again. The graph holds all of the
transaction or none of it, verify is clean, and the start says what it found. A port taken
by another program gives one line naming the port and the variable that moves it."""
from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import neo4j
import pytest

from adapters.formats import parse_network
from adapters.neo4j.store import Neo4jStore
from engine import interchange, tms
from engine.stages.calls import CallPolicy
from engine.derive.run import DeriveOptions, derive
from engine.errors import StoreError
from tests.derive_fakes import (
    RecordingModelForRound,
    ScriptedChatModel,
    alphabetical,
    block,
    load,
    premise,
    reply,
)

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "neo4j"
LIB = ROOT / ".neo4j" / "lib"
IMPORT_SIZE = 3000  # premises; as many derived beliefs: 6k beliefs, ~10k justifications

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _synthetic(n: int) -> dict:
    spec = importlib.util.spec_from_file_location("synthetic",
                                                  ROOT / "scripts" / "bench" / "synthetic.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.generate(n)


class Server:
    """scripts/neo4j with this module's environment."""

    def __init__(self, home: Path):
        self.home = home
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
        self.env.update(NEO4J_LOCAL_HOME=str(home), NEO4J_BOLT_PORT=str(_free_port()),
                        NEO4J_HTTP_PORT=str(_free_port()), NEO4J_HEAP="768m",
                        NEO4J_PAGECACHE="128m")

    def script(self, *args: str, **env: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(SCRIPT), *args], env={**self.env, **env}, text=True,
                              capture_output=True, timeout=240)

    @property
    def uri(self) -> str:
        return f"bolt://127.0.0.1:{self.env['NEO4J_BOLT_PORT']}"

    def driver(self) -> neo4j.Driver:
        # few retries: a writer that lost the server gives up quickly
        driver = neo4j.GraphDatabase.driver(
            self.uri, auth=("neo4j", (self.home / "password").read_text().strip()),
            max_transaction_retry_time=1, connection_acquisition_timeout=5,
            notifications_min_severity="OFF")
        driver.verify_connectivity()
        return driver

    def kill(self) -> None:
        pid = int((self.home / "run" / "neo4j.pid").read_text().strip())
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", int(self.env["NEO4J_BOLT_PORT"]))) != 0:
                    return
            time.sleep(0.2)
        raise AssertionError("the killed server still answers")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if not (LIB / ".installed").exists():
        pytest.skip("the local server's jars are not installed (scripts/neo4j install)")
    home = tmp_path_factory.mktemp("neo4j-faults")
    (home / "lib").symlink_to(LIB)
    s = Server(home)
    started = s.script("start")
    assert started.returncode == 0, started.stdout + started.stderr
    yield s
    s.script("stop")
    shutil.rmtree(home, ignore_errors=True)


class PauseTx:
    """The transaction view, but the first call of `verb` waits until `go` is set (after it
    signals `reached`): the moment the test kills the server."""

    def __init__(self, tx, verb: str, reached: threading.Event, go: threading.Event):
        self._tx, self._verb, self._reached, self._go = tx, verb, reached, go

    def __getattr__(self, name):
        attribute = getattr(self._tx, name)
        if name != self._verb or self._reached.is_set():
            return attribute

        def paused(*args, **kwargs):
            self._reached.set()
            self._go.wait(120)
            return attribute(*args, **kwargs)

        return paused


class PausingStore:
    def __init__(self, store: Neo4jStore, verb: str):
        self._store = store
        self._verb = verb
        self.reached = threading.Event()
        self.go = threading.Event()

    def read(self, work):
        return self._store.read(work)

    def write(self, work, entry=None):
        return self._store.write(lambda tx: work(PauseTx(tx, self._verb, self.reached, self.go)),
                                 entry)


def kill_in_the_middle(server: Server, pausing: PausingStore, operation) -> BaseException | None:
    """Run `operation` in a thread; when its transaction reaches the pause, kill -9 the
    server, then let it go on. Returns what the operation raised (None: it committed)."""
    outcome: dict[str, BaseException | None] = {}

    def run():
        try:
            operation()
            outcome["error"] = None
        except BaseException as e:
            outcome["error"] = e

    thread = threading.Thread(target=run)
    thread.start()
    assert pausing.reached.wait(120), "the transaction never reached the pause"
    server.kill()
    pausing.go.set()
    thread.join(timeout=120)
    assert not thread.is_alive()
    return outcome["error"]


def restart_and_check(server: Server) -> tuple[neo4j.Driver, Neo4jStore, str]:
    started = server.script("start")
    assert started.returncode == 0, started.stdout + started.stderr
    assert "found a stale pid file" in started.stdout
    driver = server.driver()
    store = Neo4jStore(driver, "neo4j", server.uri)
    assert tms.verify(store) == []
    return driver, store, started.stdout


def test_kill_during_a_large_import_leaves_all_or_nothing(server, tmp_path):
    driver = server.driver()
    store = Neo4jStore(driver, "neo4j", server.uri)
    store.init_schema()
    tms.reset(store)
    network, stored = parse_network(_synthetic(IMPORT_SIZE))
    pausing = PausingStore(store, "save_network_info")  # every belief is written by then
    error = kill_in_the_middle(server, pausing,
                               lambda: interchange.import_network(pausing, network, stored))
    driver.close()
    assert isinstance(error, StoreError) and "\n" not in str(error)

    driver, store, said = restart_and_check(server)
    try:
        assert tms.status(store).beliefs == 0  # the import never committed: none of it
        assert "found leftover lock files" in said
        tms.add(store, "after-restart", "the restarted server takes writes")
        assert tms.status(store).beliefs == 1
    finally:
        driver.close()


PREMISES = [premise("queue-depth-grows", "The queue depth grows under load."),
            premise("consumers-fixed", "The number of consumers is fixed.")]
ROUND = reply(block("queue-backlog-risk", ["queue-depth-grows", "consumers-fixed"],
                    text="A backlog builds up under load."),
              block("consumers-saturate", ["queue-depth-grows", "consumers-fixed"],
                    mode="ANY", text="Consumers saturate."))


def test_kill_during_a_derive_round_apply_leaves_all_or_nothing(server):
    driver = server.driver()
    store = Neo4jStore(driver, "neo4j", server.uri)
    tms.reset(store)
    load(store, PREMISES)
    pausing = PausingStore(store, "link_proposed")  # Run, Round, beliefs written; propagated
    results = {}

    def one_round():
        results["run"] = derive(pausing, RecordingModelForRound(
            ScriptedChatModel(script=[ROUND])), alphabetical(),
            DeriveOptions(model="scripted", auto=True, calls=CallPolicy(sleep=lambda s: None)))

    error = kill_in_the_middle(server, pausing, one_round)
    driver.close()
    assert error is None  # a store failure ends the round in outcome `error`; it does not raise
    (done,) = results["run"].rounds
    assert done.outcome == "error" and "StoreError" in done.error

    driver, store, _ = restart_and_check(server)
    try:
        status = tms.status(store)
        assert (status.beliefs, status.derived) == (2, 0)  # none of the round
        with driver.session(database="neo4j") as session:
            assert session.run("MATCH (n:Run) RETURN count(n) AS n").single()["n"] == 0
        assert tms.verify(store) == []
    finally:
        driver.close()


def test_a_taken_port_gives_one_line_naming_it_and_its_variable(tmp_path):
    if not (LIB / ".installed").exists():
        pytest.skip("the local server's jars are not installed (scripts/neo4j install)")
    home = tmp_path / "neo4j-home"
    home.mkdir()
    (home / "lib").symlink_to(LIB)
    s = Server(home)
    for variable, role in (("NEO4J_BOLT_PORT", "Bolt"), ("NEO4J_HTTP_PORT", "HTTP")):
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            port = taken.getsockname()[1]
            done = s.script("start", **{variable: str(port)})
        assert done.returncode == 1
        (line,) = done.stderr.strip().splitlines()
        assert f"port {port}" in line and role in line and variable in line
        assert not (home / "run" / "neo4j.pid").exists()
