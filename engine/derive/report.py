"""The run's JSON report (`derive-<UTC timestamp>.json`) and its summary table.

The file is rewritten atomically after each round (a temporary file in the same directory,
then a rename), so a reader never sees half a report: `status` is `partial` while the run
goes on, then `complete` or `error`. Each round holds everything the replay back-end and an
auditor need, `responses` (the raw text of every call, in order) included.
"""
from __future__ import annotations

import json
import os
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

PARTIAL, COMPLETE, ERROR = "partial", "complete", "error"


def report_path(report_dir: Path, started: datetime) -> Path:
    """A new file name in `report_dir` for a run started at `started` (UTC)."""
    stem = "derive-" + started.strftime("%Y%m%dT%H%M%SZ")
    path = report_dir / f"{stem}.json"
    n = 2
    while path.exists():
        path = report_dir / f"{stem}-{n}.json"
        n += 1
    return path


class ReportFile:
    """Where the report goes; `path` None (`--no-report`) writes nothing."""

    def __init__(self, path: Path | None):
        self.path = path

    def write(self, data: dict[str, Any]) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.stem}.", suffix=".tmp",
                                   dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=2, ensure_ascii=False)
                f.write("\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise


def summary_table(report: dict[str, Any]) -> str:
    """One line per round and a totals line, as a plain-text table."""
    header = ("round", "outcome", "strategy", "shown", "found", "valid", "applied", "in",
              "skipped", "tokens in", "tokens out", "calls", "seconds")
    rows = []
    for r in report.get("rounds", []):
        applied = r.get("applied", [])
        strategy = r.get("strategy", "") + (
            f" #{r['cluster']}" if r.get("cluster") is not None else "")
        rows.append((
            str(r["round"]), r.get("outcome", ""), strategy, str(len(r.get("sample", []))),
            str(r.get("proposals_found", 0)), str(r.get("valid", 0)), str(len(applied)),
            str(sum(1 for a in applied if a.get("truth_value") == "IN")),
            str(len(r.get("skipped", []))), str(r["tokens"]["input"]),
            str(r["tokens"]["output"]), str(r.get("calls", 0)), f"{r.get('seconds', 0):.1f}",
        ))
    t = report.get("totals", {})
    rows.append((
        "total", report.get("status", ""), "", "", str(t.get("proposals_found", 0)),
        str(t.get("valid", 0)), str(t.get("applied", 0)), str(t.get("applied_in", 0)),
        str(t.get("skipped", 0)), str(t.get("tokens", {}).get("input", 0)),
        str(t.get("tokens", {}).get("output", 0)), str(t.get("calls", 0)),
        f"{t.get('seconds', 0):.1f}",
    ))
    widths = [max(len(header[i]), *(len(row[i]) for row in rows)) for i in range(len(header))]

    def fmt(row) -> str:
        return "  ".join(cell.ljust(widths[i]) if i < 3 else cell.rjust(widths[i])
                         for i, cell in enumerate(row)).rstrip()

    lines = [fmt(header), fmt(tuple("-" * w for w in widths))]
    lines += [fmt(row) for row in rows]
    return "\n".join(lines)
