"""The contract's one fixture: each test runs on the in-memory store and on Neo4j."""
from __future__ import annotations

import pytest

from tests.fakes import FakeStore


@pytest.fixture(params=["fake", pytest.param("neo4j", marks=pytest.mark.neo4j)])
def either(request):
    """A FakeStore, then the real Neo4j store (emptied)."""
    if request.param == "fake":
        return FakeStore()
    return request.getfixturevalue("store")
