"""Shared fixtures. The Neo4j server is real, found in this order:
1. NEO4J_URI is set: use that server (with NEO4J_USER / NEO4J_PASSWORD / NEO4J_DATABASE);
2. a Docker engine answers: a testcontainers Neo4j pinned to neo4j:5.26-community;
3. otherwise the project's own server, started with `scripts/neo4j start`.
Every test that takes `store` starts from an empty graph with the schema applied.
Under CI (`CI=true`) a skip fails the test, but for what a CI machine cannot have, and the
xfails are counted (tests/ci_rule.py); a test using the server or the real networks without
its marker fails (tests/marker_rule.py).
"""
from __future__ import annotations

import os
import shutil
import subprocess
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


@pytest.fixture(scope="session")
def neo4j_settings():
    from adapters.neo4j.connection import Neo4jSettings

    if os.environ.get("NEO4J_URI"):
        yield Neo4jSettings.from_env()
        return
    if _docker_answers():
        from testcontainers.neo4j import Neo4jContainer

        password = "test-password-5e8a"
        with Neo4jContainer(NEO4J_IMAGE, password=password) as container:
            yield Neo4jSettings(uri=container.get_connection_url(), password=password)
        return
    script = ROOT / "scripts" / "neo4j"
    was_running = subprocess.run([script, "status"], capture_output=True).returncode == 0
    started = subprocess.run([script, "start"], capture_output=True, text=True)
    if started.returncode != 0:
        pytest.fail(f"scripts/neo4j start failed:\n{started.stdout}\n{started.stderr}")
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    yield Neo4jSettings.from_env(env)
    if not was_running:
        subprocess.run([script, "stop"], capture_output=True)


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
