"""scripts/neo4j end to end, on a second server of its own (other ports, other data) so the
suite's server is not disturbed: start, reuse, status, Browser, auth, stop."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import urllib.request
from pathlib import Path

import pytest

from adapters.neo4j.connection import Neo4jSettings, connect
from engine.errors import StoreError

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "neo4j"
LIB = ROOT / ".neo4j" / "lib"

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]  # starts a second server


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def second_server(tmp_path_factory):
    if not (LIB / ".installed").exists():
        pytest.skip("the local server's jars are not installed (scripts/neo4j install)")
    home = tmp_path_factory.mktemp("neo4j-home")
    (home / "lib").symlink_to(LIB)
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    env.update(NEO4J_LOCAL_HOME=str(home), NEO4J_BOLT_PORT=str(_free_port()),
               NEO4J_HTTP_PORT=str(_free_port()), NEO4J_HEAP="512m", NEO4J_PAGECACHE="128m")

    def script(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(SCRIPT), *args], env=env, text=True, capture_output=True,
                              timeout=180)

    started = script("start")
    assert started.returncode == 0, started.stdout + started.stderr
    yield script, env, home, started
    script("stop")
    shutil.rmtree(home, ignore_errors=True)


def test_start_prints_the_bolt_uri_and_browser_url(second_server):
    _, env, home, started = second_server
    assert f"bolt://127.0.0.1:{env['NEO4J_BOLT_PORT']}" in started.stdout
    assert f"http://127.0.0.1:{env['NEO4J_HTTP_PORT']}/browser/" in started.stdout
    assert "Neo4j 5.26." in started.stdout
    assert "python -m engine" not in started.stdout
    password = home / "password"
    assert password.read_text().strip()
    assert oct(password.stat().st_mode & 0o777) == "0o600"


def test_the_first_start_is_quiet_and_names_its_own_password_file(second_server):
    """No "No such file" for the logs a first start has not written yet, and the password
    file named where it is (NEO4J_LOCAL_HOME), not at the default .neo4j/password."""
    _, _, home, started = second_server
    assert "No such file" not in started.stdout + started.stderr, started.stderr
    assert f"password in {home / 'password'})" in started.stdout
    assert ".neo4j/password" not in started.stdout + started.stderr


def test_a_second_start_reuses_the_running_server(second_server):
    script, _, home, _ = second_server
    pid = (home / "run" / "neo4j.pid").read_text().strip()
    again = script("start")
    assert again.returncode == 0 and "reusing" in again.stdout
    assert (home / "run" / "neo4j.pid").read_text().strip() == pid
    assert script("status").returncode == 0


def test_the_browser_page_is_served(second_server):
    _, env, _, _ = second_server
    with urllib.request.urlopen(f"http://127.0.0.1:{env['NEO4J_HTTP_PORT']}/browser/",
                                timeout=10) as page:
        assert page.status == 200 and b"Neo4j Browser" in page.read()


def test_bolt_takes_the_password_and_refuses_a_wrong_one(second_server):
    _, env, home, _ = second_server
    uri = f"bolt://127.0.0.1:{env['NEO4J_BOLT_PORT']}"
    driver = connect(Neo4jSettings(uri=uri, password=(home / "password").read_text().strip()))
    driver.close()
    with pytest.raises(StoreError, match="refused the credentials"):
        connect(Neo4jSettings(uri=uri, password="wrong-password"))


def test_the_install_is_idempotent(second_server):
    script, _, _, _ = second_server
    again = script("install")
    assert again.returncode == 0 and "already in" in again.stdout


def test_stop_leaves_no_server_process(second_server):
    script, _, home, _ = second_server
    pid = int((home / "run" / "neo4j.pid").read_text().strip())
    stopped = script("stop")
    assert stopped.returncode == 0 and "stopped" in stopped.stdout
    assert not Path(f"/proc/{pid}").exists()
    assert not (home / "run" / "neo4j.pid").exists()
    assert script("status").returncode == 3
