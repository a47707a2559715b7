"""Where the resident engine listens (engine/resident/address.py): the connection settings
resolved as the store resolves them, one socket per settings."""
from __future__ import annotations

from adapters.neo4j.connection import DEFAULT_URI, Neo4jSettings
from engine.resident import address as resident_address


def test_the_caller_resolves_settings_as_the_store_does():
    assert resident_address.DEFAULT_URI == DEFAULT_URI
    settings = Neo4jSettings.from_env({})
    assert resident_address.connection_settings({}) == (settings.uri, settings.user,
                                                        settings.database)
    a = resident_address.socket_path({"NEO4J_DATABASE": "one", "EEM_SERVE_DIR": "/tmp/s"})
    b = resident_address.socket_path({"NEO4J_DATABASE": "two", "EEM_SERVE_DIR": "/tmp/s"})
    assert a != b and a.startswith("/tmp/s/engine-")
