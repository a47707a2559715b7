"""The engine over a neo4j:// routing URI (what a cluster or Aura is reached by), against the
local single server: the driver asks the server for its routing table (here the server
itself), writes go to the leader, reads to a reader, and a store's sessions chain bookmarks
so a read sees the write before it (docs/scaling.md)."""
from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import neo4j
import pytest

from adapters.neo4j.connection import connect
from adapters.neo4j.store import Neo4jStore
from engine import tms
from engine.model import Justification, Truth

pytestmark = pytest.mark.neo4j
ROOT = Path(__file__).resolve().parents[2]


def _routing(uri: str) -> str:
    parts = urlsplit(uri)
    assert parts.scheme in ("bolt", "neo4j"), uri
    return f"neo4j://{parts.netloc}"


@pytest.fixture
def routed(store, neo4j_settings):
    """A store reaching the same (emptied) graph through neo4j://."""
    settings = dataclasses.replace(neo4j_settings, uri=_routing(neo4j_settings.uri))
    driver = connect(settings)
    routed = Neo4jStore(driver, settings.database, settings.uri)
    yield routed
    routed.close()


def test_the_engine_writes_and_reads_through_a_routing_uri(routed, store):
    assert isinstance(routed._driver, neo4j.Neo4jDriver)  # routing, not a direct Bolt driver
    tms.add(routed, "p", "A premise.")
    tms.add(routed, "q", "From p.", [Justification(("p",))])
    # the write left a bookmark every later session of this store waits for
    assert routed.bookmarks.get_bookmarks()
    assert tms.show(routed, "q")[0].truth == Truth.IN
    tms.retract(routed, "p")
    assert tms.show(routed, "q")[0].truth == Truth.OUT  # read after write, through routing
    assert tms.verify(routed) == []
    # the same graph as the direct URI sees it
    assert tms.show(store, "q")[0].truth == Truth.OUT


def test_a_direct_bolt_store_chains_no_bookmarks(store, neo4j_settings, monkeypatch):
    """On one server a commit is there for every later session, so a store over a direct
    bolt:// URI opens its sessions with no bookmark manager (waiting on one only costs
    time), and a store with a driver of its own (another process, say) reads its write at
    once."""
    driver = connect(neo4j_settings)
    assert isinstance(driver, neo4j.BoltDriver)
    managers: list[object] = []
    opened = driver.session

    def session(**config):
        managers.append(config.get("bookmark_manager", "not given"))
        return opened(**config)

    monkeypatch.setattr(driver, "session", session)
    direct = Neo4jStore(driver, neo4j_settings.database, neo4j_settings.uri)
    try:
        tms.add(direct, "p", "A premise.")
        assert tms.show(store, "p")[0].truth == Truth.IN  # another driver reads it at once
        assert tms.show(direct, "p")[0].truth == Truth.IN
        assert managers and managers == [None] * len(managers)
    finally:
        direct.close()


def test_commands_run_with_neo4j_uri_set_to_a_routing_uri(routed, neo4j_settings):
    # a resident engine is found by the connection settings: none serves this URI
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NEO4J_URI": _routing(neo4j_settings.uri)}

    def eem(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "engine", *args], env=env,
                              capture_output=True, text=True, timeout=120)

    added = eem("add", "r", "A premise added through routing.")
    assert added.returncode == 0, added.stderr
    shown = eem("show", "r")
    assert shown.returncode == 0, shown.stderr
    assert "A premise added through routing." in shown.stdout
    assert tms.show(routed, "r")[0].truth == Truth.IN
