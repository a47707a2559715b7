"""The marker rule: a test that uses the real Neo4j server (the `store`, `driver` or
`neo4j_settings` fixture of tests/conftest.py, directly or through another fixture) carries
the `neo4j` marker, and one that uses the real networks (`shared_networks`) carries
`network_data`; one that lacks its marker fails at setup, naming what it lacks, so
`-m "not neo4j"` and the network skips select what they say.

tests/conftest.py imports the hook below, so it applies to every test.
"""
from __future__ import annotations

import pytest

# fixture of tests/conftest.py -> the marker a test using it must carry
MARKER_OF = {"store": "neo4j", "driver": "neo4j", "neo4j_settings": "neo4j",
             "shared_networks": "network_data"}
CONFTEST = "tests.conftest"


def missing_markers(item: pytest.Item) -> list[str]:
    """What `item` lacks: one line per marker, naming the fixture that needs it (a fixture
    of the same name defined elsewhere, a fake store say, needs nothing)."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return []
    marked = {m.name for m in item.iter_markers()}
    out = []
    for fixture, marker in MARKER_OF.items():
        defs = info.name2fixturedefs.get(fixture)
        if defs and defs[-1].func.__module__ == CONFTEST and marker not in marked:
            out.append(f"uses the `{fixture}` fixture but lacks @pytest.mark.{marker}")
    return sorted(set(out))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    missing = missing_markers(item)
    if missing:
        pytest.fail(f"{item.nodeid} " + "; ".join(missing), pytrace=False)
