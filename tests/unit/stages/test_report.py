"""The report file: names, atomic rewrites, the summary table."""
from __future__ import annotations

import json
import os
from datetime import datetime, timezone

import pytest

from engine.stages.report import (
    Outcome,
    ReportFile,
    RoundResult,
    RunReport,
    RunStatus,
    report_path,
    summary_table,
)
from engine.stages.stage import Skip

STARTED = datetime(2025, 3, 4, 5, 6, 7, tzinfo=timezone.utc)


def test_report_names_are_utc_timestamps_and_never_collide(tmp_path):
    first = report_path(tmp_path, STARTED)
    assert first.name == "derive-20250304T050607Z.json"
    first.write_text("{}")
    assert report_path(tmp_path, STARTED).name == "derive-20250304T050607Z-2.json"


def _report(status=RunStatus.PARTIAL, rounds=()):
    return RunReport(stage="derive", run_id="r1", model="m", started_at="2025-03-04T05:06:07Z",
                     params={}, status=status, rounds=list(rounds))


def test_report_names_carry_the_stage(tmp_path):
    assert report_path(tmp_path, STARTED, "review").name == "review-20250304T050607Z.json"


def test_a_rewrite_is_atomic(tmp_path, monkeypatch):
    path = tmp_path / "r" / "derive.json"
    f = ReportFile(path)
    f.write(_report())
    assert json.loads(path.read_text())["status"] == "partial"

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        f.write(_report(RunStatus.COMPLETE, [RoundResult(n=1)]))
    monkeypatch.undo()
    assert json.loads(path.read_text())["status"] == "partial"  # the old report is intact
    assert [p.name for p in path.parent.iterdir()] == ["derive.json"]


def test_no_report_writes_nothing(tmp_path):
    ReportFile(None).write(_report(RunStatus.COMPLETE))
    assert list(tmp_path.iterdir()) == []


def test_summary_table():
    report = _report(RunStatus.COMPLETE, [RoundResult(
        n=1, outcome=Outcome.PROPOSED, strategy="intra-cluster", cluster=2, shown=("a", "b"),
        proposals=["p", "q", "r"], valid=["p", "q"],
        applied=[{"id": "x", "truth_value": "IN"}, {"id": "y", "truth_value": "OUT"}],
        skipped=[Skip("z", "r")], tokens_in=1200, tokens_out=300, calls=1, seconds=2.25)])
    lines = summary_table(report).splitlines()
    assert lines[0].split() == ["round", "outcome", "strategy", "shown", "found", "valid",
                                "applied", "in", "skipped", "tokens", "in", "tokens", "out",
                                "calls", "seconds"]
    assert lines[2].split() == ["1", "proposed", "intra-cluster", "#2", "2", "3", "2", "2", "1",
                                "1", "1200", "300", "1", "2.2"]
    assert lines[3].split()[:2] == ["total", "complete"]
