"""Shared fixtures. The Neo4j server is real, and it is the tests' own, never a user's:
1. EEM_TEST_NEO4J_URI is set: that server (with EEM_TEST_NEO4J_USER, _PASSWORD, _DATABASE),
   named explicitly for the tests; NEO4J_URI, a user's shell may set, is never read;
2. a Docker engine answers: a testcontainers Neo4j pinned to neo4j:5.26-community;
3. otherwise a server of the tests' own: the memory `tests` of a registry the session makes
   for itself (EEM_HOME in a temporary folder), its server's folder `.neo4j/tests` under the
   checkout, started on free ports and stopped at the end when the session started it.
Before any test runs, the session's environment names that memory (EEM_MEMORY=tests) and
drops what a user's shell names (NEO4J_*, EEM_MEMORY, EEM_HOME, EEM_SERVE_DIR), so a command
a test runs, from any folder (one with a user's .eem/ marker too), reaches the tests' server;
no resident engine starts by itself (EEM_SERVE=0). Every test that takes `store` starts from
an empty graph with the schema applied.
Under CI (`CI=true`) a skip fails the test, but for what a CI machine cannot have, and the
xfails are counted (tests/ci_rule.py); a test using the server or the real networks without
its marker fails (tests/marker_rule.py).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.ci_rule import (  # noqa: F401
    pytest_make_collect_report,
    pytest_runtest_makereport,
    pytest_terminal_summary,
)
from tests.marker_rule import pytest_runtest_setup  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]
# The real networks next to the checkout (CC BY-SA; never copied into the repo).
SHARED_NETWORKS = Path(os.environ.get("EEM_NETWORKS_DIR") or ROOT.parent / "shared" / "data" / "networks")
NEO4J_IMAGE = "neo4j:5.26-community"


def _docker_answers() -> bool:
    if shutil.which("docker") is None:
        return False
    try:
        return subprocess.run(
            ["docker", "info"], capture_output=True, timeout=10
        ).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


# One memory, so one server, per pytest-xdist worker (`make test` runs two workers): a test
# that takes `store` empties the graph it is given.
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
TEST_MEMORY = f"tests-{_WORKER}" if _WORKER else "tests"
# what a user's shell may say that the tests must not follow
USER_SETTINGS = ("NEO4J_", "EEM_MEMORY", "EEM_HOME", "EEM_SERVE_DIR", "EEM_SERVE")
SESSION_HOME = Path(tempfile.mkdtemp(prefix="eem-tests-"))
# Where a user's resident engines keep their sockets (their EEM_HOME's, and the default
# one): a test whose command starts an engine there has left the session's memory.
USERS_ENGINES = {Path(home).expanduser() / "resident" for home in (
    os.environ.get("EEM_HOME") or "~/.local/share/eem", "~/.local/share/eem")}


def _own_environment() -> None:
    """The session's environment: a user's memory settings dropped, the tests' own named."""
    for name in [n for n in os.environ if n.startswith(USER_SETTINGS)]:
        del os.environ[name]
    os.environ.update(EEM_HOME=str(SESSION_HOME / "eem-home"), EEM_MEMORY=TEST_MEMORY,
                      EEM_SERVE="0", EEM_SERVE_DIR=str(SESSION_HOME / "serve"))


_given = {k: os.environ[k] for k in ("EEM_TEST_NEO4J_URI", "EEM_TEST_NEO4J_USER",
                                     "EEM_TEST_NEO4J_PASSWORD", "EEM_TEST_NEO4J_DATABASE")
          if os.environ.get(k)}
_own_environment()


def _register(settings) -> None:
    """The memory `tests` in the session's registry: the server `settings` name, its password
    in the environment the commands inherit."""
    from engine.wiring.memories import SHARED, Memory, Registry, eem_home
    from engine.wiring.settings import Settings

    Registry(eem_home(Settings.of(os.environ))).put(
        Memory(TEST_MEMORY, "", SHARED, uri=settings.uri, database=settings.database,
               user=settings.user))
    os.environ["NEO4J_PASSWORD"] = settings.password or ""


@pytest.fixture(scope="session")
def neo4j_settings():
    from adapters.neo4j.connection import Neo4jSettings

    if _given.get("EEM_TEST_NEO4J_URI"):
        if _WORKER:
            pytest.fail("EEM_TEST_NEO4J_URI names one server, and workers would empty each "
                        "other's graph: run the tests in one process (pytest -n 0)")
        settings = Neo4jSettings(_given["EEM_TEST_NEO4J_URI"],
                                 _given.get("EEM_TEST_NEO4J_USER", "neo4j"),
                                 _given.get("EEM_TEST_NEO4J_PASSWORD"),
                                 _given.get("EEM_TEST_NEO4J_DATABASE", "neo4j"))
        _register(settings)
        yield settings
        return
    if _docker_answers():
        from testcontainers.neo4j import Neo4jContainer

        password = "test-password-5e8a"
        with Neo4jContainer(NEO4J_IMAGE, password=password) as container:
            settings = Neo4jSettings(uri=container.get_connection_url(), password=password)
            _register(settings)
            yield settings
        return
    yield from _own_server()


def _own_server():
    """The tests' own local server: started here (its folder kept under the checkout between
    sessions), stopped at the end unless it was running before."""
    from engine.errors import EngineError
    from engine.wiring.local_server import ensure_running, ports_in_use
    from engine.wiring.local_server import stop as stop_server
    from engine.wiring.memories import Memory, Registry, eem_home
    from engine.wiring.settings import Settings
    from engine.wiring.store import connection

    settings = Settings.of(os.environ)
    registry = Registry(eem_home(settings))
    home = ROOT / ".neo4j" / TEST_MEMORY
    found = registry.get(TEST_MEMORY) or registry.put(Memory(TEST_MEMORY, home=str(home)))
    was_running = ports_in_use(found) is not None  # by another session too (a test's inner
    # session shares its worker's server): not this session's to stop
    try:
        memory = ensure_running(found, settings, registry)
    except EngineError as e:
        pytest.fail(f"the tests' own Neo4j server did not start: {e}")
    reach = connection(memory, settings)
    os.environ["NEO4J_PASSWORD"] = reach.password or ""
    yield reach
    if not was_running:
        stop_server(memory, settings)


@pytest.fixture(scope="session")
def neo4j_browser_url(neo4j_settings) -> str:
    """Neo4j Browser as the tests' server serves it: on the tests' own server, its memory's
    HTTP port; on a server EEM_TEST_NEO4J_URI names, EEM_TEST_NEO4J_BROWSER_URL, else port
    7474 of its host."""
    from urllib.parse import urlparse

    from engine.wiring.memories import Registry, eem_home
    from engine.wiring.settings import Settings

    if os.environ.get("EEM_TEST_NEO4J_BROWSER_URL"):
        return os.environ["EEM_TEST_NEO4J_BROWSER_URL"]
    memory = Registry(eem_home(Settings.of(os.environ))).get(TEST_MEMORY)
    port = memory.http_port if memory is not None and memory.local else 7474
    return f"http://{urlparse(neo4j_settings.uri).hostname or '127.0.0.1'}:{port}/browser/"


@pytest.fixture(scope="session")
def driver(neo4j_settings):
    from adapters.neo4j.connection import connect

    d = connect(neo4j_settings)
    yield d
    d.close()


def empty_graph(driver, database: str) -> None:
    from adapters.cypher_files import cypher

    with driver.session(database=database) as session:
        session.run(cypher("wipe_graph_batched")).consume()


@pytest.fixture
def store(driver, neo4j_settings):
    from adapters.neo4j.store import Neo4jStore

    empty_graph(driver, neo4j_settings.database)
    s = Neo4jStore(driver, neo4j_settings.database, neo4j_settings.uri)
    s.init_schema()
    return s


@pytest.fixture
def shared_networks() -> Path:
    if not SHARED_NETWORKS.is_dir() or not any(SHARED_NETWORKS.glob("*.json")):
        pytest.skip(f"real networks not present at {SHARED_NETWORKS}")
    return SHARED_NETWORKS


def _engines_of_the_user() -> set[Path]:
    return {p for folder in USERS_ENGINES if folder.is_dir() for p in folder.glob("engine-*")}


_ENGINES_BEFORE = _engines_of_the_user()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """A run that started a resident engine in a user's folders fails, naming it."""
    started = sorted(_engines_of_the_user() - _ENGINES_BEFORE)
    if started and not os.environ.get("PYTEST_XDIST_WORKER"):
        print(f"\nError: the tests started a resident engine outside the session: {started}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_unconfigure(config) -> None:
    """The session's registry and resident-engine folder go with it (the server's folder
    under .neo4j/ stays, for the next session)."""
    shutil.rmtree(SESSION_HOME, ignore_errors=True)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The modules with tests of the local model first, then the ones with slow tests, each
    module's tests in their own order: the workers (`-n 2 --dist loadfile`) take modules in
    this order, so the long ones start early and the short ones fill in at the end, instead
    of one worker finishing a demo alone."""
    def modules(marker: str) -> set[str]:
        return {item.nodeid.split("::")[0] for item in items if item.get_closest_marker(marker)}

    local_model, slow = modules("local_model"), modules("slow")
    items.sort(key=lambda item: (item.nodeid.split("::")[0] not in local_model,
                                 item.nodeid.split("::")[0] not in slow))
