"""The connection: a real round trip, and one clear line when the server or the password is
wrong (adapters/neo4j/connection.py)."""
from __future__ import annotations

import dataclasses
import socket
from pathlib import Path

import pytest

from adapters.neo4j.connection import Neo4jSettings, connect
from adapters.neo4j.store import Neo4jStore
from engine.errors import StoreError
from engine.model import Belief

pytestmark = pytest.mark.neo4j


def test_a_belief_written_is_read_back(store):
    store.write(lambda tx: tx.create_beliefs([Belief("conn-check", "Written through Bolt.")]))
    back = store.read(lambda tx: tx.get_beliefs(["conn-check"]))
    assert back["conn-check"].text == "Written through Bolt."


def test_a_routing_uri_works_unchanged(neo4j_settings, store):
    if not neo4j_settings.uri.startswith("bolt://"):
        pytest.skip("the configured server is not addressed by a bolt:// URI")
    routed = dataclasses.replace(neo4j_settings, uri="neo4j://" + neo4j_settings.uri[len("bolt://"):])
    driver = connect(routed)
    try:
        routed_store = Neo4jStore(driver, routed.database, routed.uri)
        assert routed_store.read(lambda tx: tx.status()).beliefs == 0
    finally:
        driver.close()


def test_a_wrong_password_is_one_line_naming_the_uri(neo4j_settings):
    wrong = dataclasses.replace(neo4j_settings, password="not-the-password")
    with pytest.raises(StoreError) as e:
        connect(wrong)
    message = str(e.value)
    assert "\n" not in message
    assert neo4j_settings.uri in message and "refused the credentials" in message
    assert "scripts/neo4j start" in message


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_closed_port_is_one_line_saying_how_to_start_the_server():
    uri = f"bolt://127.0.0.1:{_closed_port()}"
    with pytest.raises(StoreError) as e:
        connect(Neo4jSettings(uri=uri, password="whatever"))
    message = str(e.value)
    assert "\n" not in message
    assert uri in message and "connection refused" in message
    # the checkout's script by its whole path: a memory's commands run from its own folder
    assert f"`{Path(__file__).resolve().parents[2] / 'scripts' / 'neo4j'} start`" in message


def test_no_password_names_the_password_file_where_neo4j_local_home_puts_it(tmp_path):
    home = tmp_path / "elsewhere"
    settings = Neo4jSettings.from_env({"NEO4J_LOCAL_HOME": str(home),
                                       "NEO4J_URI": f"bolt://127.0.0.1:{_closed_port()}"})
    with pytest.raises(StoreError) as e:
        connect(settings)
    message = str(e.value)
    assert "\n" not in message and "no password" in message
    assert str(home / "password") in message
    assert ".neo4j/password" not in message


def test_a_wrong_password_names_the_password_file_where_neo4j_local_home_puts_it(
        neo4j_settings, tmp_path):
    home = tmp_path / "elsewhere"
    settings = Neo4jSettings.from_env({"NEO4J_LOCAL_HOME": str(home), "NEO4J_URI": neo4j_settings.uri,
                                       "NEO4J_USER": neo4j_settings.user,
                                       "NEO4J_PASSWORD": "not-the-password"})
    with pytest.raises(StoreError) as e:
        connect(settings)
    message = str(e.value)
    assert "refused the credentials" in message
    assert str(home / "password") in message
    assert ".neo4j/password" not in message


def test_the_password_file_is_not_a_connection_setting(tmp_path):
    # a resident engine compares settings: where the password file is named must not matter
    a = Neo4jSettings.from_env({"NEO4J_LOCAL_HOME": str(tmp_path / "a"), "NEO4J_PASSWORD": "pw"})
    b = Neo4jSettings.from_env({"NEO4J_LOCAL_HOME": str(tmp_path / "b"), "NEO4J_PASSWORD": "pw"})
    assert a == b and a.password_file != b.password_file
