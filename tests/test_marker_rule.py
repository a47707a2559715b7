"""The marker rule (tests/marker_rule.py) on a small suite of its own, run by pytest
in-process: a test using the server's fixtures (directly or through another fixture) without
`neo4j`, or the real networks without `network_data`, fails at setup (an error: the run
fails) naming what it lacks; with its marker it runs; a fixture of the same name defined
elsewhere (a fake store) needs none."""
from __future__ import annotations

pytest_plugins = ("pytester",)

CONFTEST = """
import pytest
import tests.conftest
from tests.marker_rule import pytest_runtest_setup

# stand-ins registered under the module the rule knows, so no server or network is touched
def _store():
    return "a store"
def _shared_networks():
    return "networks"
_store.__module__ = _shared_networks.__module__ = "tests.conftest"
store = pytest.fixture(name="store")(_store)
shared_networks = pytest.fixture(name="shared_networks")(_shared_networks)

@pytest.fixture
def cli(store):
    return store
"""
SUITE = """
import pytest

def test_store_unmarked(store):
    pass

def test_through_another_fixture_unmarked(cli):
    pass

@pytest.mark.neo4j
def test_store_marked(store):
    pass

@pytest.mark.neo4j
def test_real_network_without_its_marker(store, shared_networks):
    pass

@pytest.mark.neo4j
@pytest.mark.network_data
def test_real_network_marked(store, shared_networks):
    pass
"""
LOCAL = """
import pytest

@pytest.fixture
def store():
    return "a fake store of this module's own"

def test_a_fake_store_needs_no_marker(store):
    pass
"""


def test_a_test_without_its_marker_fails_naming_it(pytester):
    pytester.makeconftest(CONFTEST)
    pytester.makeini("[pytest]\nmarkers =\n    neo4j: the server\n    network_data: networks\n")
    pytester.makepyfile(test_suite=SUITE, test_local=LOCAL)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, errors=3)  # failed at setup: the run fails
    assert result.ret == 1
    result.stdout.fnmatch_lines([
        "*test_store_unmarked uses the `store` fixture but lacks @pytest.mark.neo4j*",
        "*test_through_another_fixture_unmarked uses the `store` fixture but lacks "
        "@pytest.mark.neo4j*",
        "*test_real_network_without_its_marker uses the `shared_networks` fixture but lacks "
        "@pytest.mark.network_data*"])
