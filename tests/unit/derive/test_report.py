"""The report file: names, atomic rewrites, the summary table."""
from __future__ import annotations

import json
import os
from datetime import datetime, timezone

import pytest

from engine.derive.report import ReportFile, report_path, summary_table

STARTED = datetime(2025, 3, 4, 5, 6, 7, tzinfo=timezone.utc)


def test_report_names_are_utc_timestamps_and_never_collide(tmp_path):
    first = report_path(tmp_path, STARTED)
    assert first.name == "derive-20250304T050607Z.json"
    first.write_text("{}")
    assert report_path(tmp_path, STARTED).name == "derive-20250304T050607Z-2.json"


def test_a_rewrite_is_atomic(tmp_path, monkeypatch):
    path = tmp_path / "r" / "derive.json"
    f = ReportFile(path)
    f.write({"status": "partial", "rounds": []})
    assert json.loads(path.read_text())["status"] == "partial"

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        f.write({"status": "complete", "rounds": [1]})
    monkeypatch.undo()
    assert json.loads(path.read_text())["status"] == "partial"  # the old report is intact
    assert [p.name for p in path.parent.iterdir()] == ["derive.json"]


def test_no_report_writes_nothing(tmp_path):
    ReportFile(None).write({"status": "complete"})
    assert list(tmp_path.iterdir()) == []


def test_summary_table():
    report = {
        "status": "complete",
        "rounds": [{
            "round": 1, "outcome": "proposed", "strategy": "intra-cluster", "cluster": 2,
            "sample": ["a", "b"], "proposals_found": 3, "valid": 2,
            "applied": [{"id": "x", "truth_value": "IN"}, {"id": "y", "truth_value": "OUT"}],
            "skipped": [{"id": "z", "reason": "r"}], "tokens": {"input": 1200, "output": 300},
            "calls": 1, "seconds": 2.25,
        }],
        "totals": {"proposals_found": 3, "valid": 2, "applied": 2, "applied_in": 1,
                   "skipped": 1, "tokens": {"input": 1200, "output": 300}, "calls": 1,
                   "seconds": 2.25},
    }
    lines = summary_table(report).splitlines()
    assert lines[0].split() == ["round", "outcome", "strategy", "shown", "found", "valid",
                                "applied", "in", "skipped", "tokens", "in", "tokens", "out",
                                "calls", "seconds"]
    assert lines[2].split() == ["1", "proposed", "intra-cluster", "#2", "2", "3", "2", "2", "1",
                                "1", "1200", "300", "1", "2.2"]
    assert lines[3].split()[:2] == ["total", "complete"]
