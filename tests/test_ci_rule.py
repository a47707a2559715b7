"""The CI rule (tests/ci_rule.py) on a small suite of its own, run by pytest in-process: what
the Makefile installs or CI is given, deliberately absent, skips on a developer's machine and
fails under CI=true, at collection (a module-level importorskip, as the MCP tests do), in a
fixture (the shared networks, pointed at an empty folder) and in a test; a skip for what a CI
machine cannot have (a Docker engine) stays a skip under CI=true."""
from __future__ import annotations

import pytest

import tests.conftest

pytest_plugins = ("pytester",)

CONFTEST = """
from tests.ci_rule import (pytest_make_collect_report, pytest_runtest_makereport,
                           pytest_terminal_summary)
from tests.conftest import shared_networks
"""
EXTRA_MISSING = """
import pytest
pytest.importorskip("eem_extra_deliberately_absent", reason="the extra is not installed")

def test_uses_the_extra():
    pass
"""
NEEDS = """
import pytest
from tests.ci_rule import skip_machine_cannot_have

def test_on_a_real_network(shared_networks):
    pass

def test_needs_chromium():
    pytest.skip("no chromium on PATH")

def test_needs_a_docker_engine():
    skip_machine_cannot_have("a Docker engine (testcontainers)")

def test_runs():
    pass
"""
COULD_NOT = """
import pytest

def test_a_model_answered_off_script():
    pytest.xfail("the model copied the format's example, so nothing was cited")

@pytest.mark.xfail(reason="a known gap, said")
def test_a_known_gap():
    assert False
"""


@pytest.fixture
def suite(pytester, monkeypatch, tmp_path):
    empty = tmp_path / "no-networks"
    empty.mkdir()
    monkeypatch.setattr(tests.conftest, "SHARED_NETWORKS", empty)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_extra=EXTRA_MISSING, test_needs=NEEDS)
    return pytester


def test_without_ci_what_is_absent_skips_and_the_summary_names_it(suite, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    result = suite.runpytest("-rs", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, skipped=4)
    result.stdout.fnmatch_lines(["SKIPPED*the extra is not installed*",
                                 "SKIPPED*real networks not present*",
                                 "SKIPPED*no chromium on PATH*",
                                 "SKIPPED*this machine cannot have a Docker engine*"])


def test_under_ci_a_skip_for_what_ci_is_given_fails(suite, monkeypatch):
    monkeypatch.setenv("CI", "true")
    result = suite.runpytest("-rs", "-p", "no:cacheprovider", "--continue-on-collection-errors")
    # the module that could not import its extra is a collection error; the fixture's skip
    # a setup error; the test's own skip a failure; only the Docker engine may skip
    result.assert_outcomes(passed=1, failed=1, errors=2, skipped=1)
    result.stdout.fnmatch_lines(["*skipped under CI=true*the extra is not installed*"])
    result.stdout.fnmatch_lines(["*skipped under CI=true*real networks not present*"])
    result.stdout.fnmatch_lines(["*skipped under CI=true*no chromium on PATH*"])
    result.stdout.fnmatch_lines(["SKIPPED*this machine cannot have a Docker engine*"])
    assert result.ret != 0


def test_under_ci_a_collection_skip_stops_the_run(suite, monkeypatch):
    monkeypatch.setenv("CI", "true")
    result = suite.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*1 error during collection*"])


def test_xfails_are_counted_and_named_with_their_reasons(pytester, monkeypatch):
    """A test that could not exercise its property is an xfail, and the run says so: how
    many, which, and why (under CI=true too, where it stays an xfail, not a pass)."""
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_could_not=COULD_NOT)
    for ci in ("", "true"):
        monkeypatch.setenv("CI", ci)
        result = pytester.runpytest("-p", "no:cacheprovider")
        result.assert_outcomes(xfailed=2)
        result.stdout.fnmatch_lines([
            "*tests that could not exercise their property (xfail)*",
            "XFAIL *test_a_model_answered_off_script: the model copied the format's example*",
            "XFAIL *test_a_known_gap: a known gap, said",
            "2 test(s) xfailed" + (" under CI=true" if ci else "")])
