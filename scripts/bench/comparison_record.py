"""What the side-by-side benchmark records: JSON lines out, the repetitions of a workload,
and the check that every implementation changed the same beliefs (see comparison.py)."""
from __future__ import annotations

import json
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path


def say(text: str) -> None:
    print(f"bench: {text}", file=sys.stderr, flush=True)


def timed(fn):
    started = time.perf_counter()
    result = fn()
    return time.perf_counter() - started, result


def rotated(items, rep: int) -> list:
    k = rep % len(items)
    return list(items[k:]) + list(items[:k])


def size_label(beliefs: int, network: str = "synthetic") -> str:
    """N+N for the synthetic network (N premises, N derived), else the number of beliefs."""
    if network != "synthetic":
        return str(beliefs)
    half = beliefs // 2
    return f"{half // 1000}k+{half // 1000}k" if half % 1000 == 0 else f"{half}+{half}"


class Recorder:
    """JSON lines to stdout and the report file; keeps the measurements for the table."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.file = path.open("w", encoding="utf-8")
        self.rows: list[dict] = []
        self.checks: list[dict] = []

    def line(self, fields: dict) -> None:
        text = json.dumps(fields)
        print(text, flush=True)
        self.file.write(text + "\n")
        self.file.flush()

    def measurement(self, workload: str, mode: str, size: int, impl: str, seconds: list[float],
                    changed, **extra) -> dict:
        timing = (dict(median_s=round(statistics.median(seconds), 6),
                       min_s=round(min(seconds), 6), max_s=round(max(seconds), 6))
                  if seconds else dict(median_s=None, min_s=None, max_s=None))
        row = dict(workload=workload, mode=mode, size=size, impl=impl, **timing,
                   changed=changed, repeat=len(seconds), **extra)
        self.rows.append(row)
        self.line(row)
        return row

    def check(self, **fields) -> None:
        self.checks.append(dict(fields))
        self.line(fields)


@dataclass
class Samples:
    """The repetitions of one workload on one implementation."""

    seconds: list[float] = field(default_factory=list)
    changed: list = field(default_factory=list)  # per repetition: a count or a sorted id list
    extra: dict = field(default_factory=dict)

    def add(self, seconds: float, changed) -> None:
        self.seconds.append(seconds)
        self.changed.append(changed)

    def count(self):
        counts = [len(c) if isinstance(c, list) else c for c in self.changed]
        return counts[-1] if len(set(counts)) == 1 else counts


def record_group(rec: Recorder, workload: str, mode: str, size: int,
                 samples: dict[str, Samples], failed: dict[str, str] | None = None,
                 **extra) -> None:
    """Emit one line per implementation (a failed one with its error: the row stays), then
    check that the changed counts agree."""
    failed = failed or {}
    for impl, s in samples.items():
        error = {"error": failed[impl]} if impl in failed else {}
        if s.seconds or error:
            rec.measurement(workload, mode, size, impl, s.seconds,
                            s.count() if s.changed else None, **extra, **s.extra, **error)
    compare_changes(rec, workload, mode, size,
                    {i: s for i, s in samples.items() if i not in failed}, **extra)


def compare_changes(rec: Recorder, workload: str, mode: str, size: int,
                    samples: dict[str, Samples], **extra) -> None:
    counts = {impl: s.count() for impl, s in samples.items() if s.changed}
    if len({json.dumps(c) for c in counts.values()}) > 1:
        detail = {}
        ids = {impl: set(s.changed[-1]) for impl, s in samples.items()
               if s.changed and isinstance(s.changed[-1], list)}
        if "ours" in ids:
            for impl in ids.keys() - {"ours"}:
                detail[f"only_ours_vs_{impl}"] = sorted(ids["ours"] - ids[impl])[:10]
                detail[f"only_{impl}"] = sorted(ids[impl] - ids["ours"])[:10]
        rec.check(check="changed counts disagree", workload=workload, mode=mode, size=size,
                  counts=counts, **extra, **detail)
