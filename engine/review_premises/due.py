"""What premise review looks at next: IN premises whose pinned source is readable and
unchanged, and whose claim and shown lines have no current premise review; the most
depended-on first (transitive impact, engine/reading/impact.py's count), then by id.

A premise that names a source is, for this mode, one of:
- `unpinned`: no hash was recorded (an import that named a file: `sources hash` pins it),
- `missing` / `unreadable`: the file is gone, or cannot be read as text,
- `changed`: the file's hash differs from the pinned one (`sources stale` / forge's
  staleness deal with it; the pinned lines may point at other words now),
- `outside`: the pinned lines lie beyond the end of the text,
- `too long`: the pinned lines alone do not fit the parts a prompt may show,
- `current`: reviewed against exactly these lines with this claim,
- `due`.
A pin without a line range (a hash alone) stands for the whole file.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from engine.reading.records import ReadingTx
from engine.review_premises.records import PremiseCandidate, PremiseReviewTx
from engine.review_premises.window import TooLong, Window, review_sha256, window_for
from engine.sources.reader import SkippedFile, SourceReader, SourceText

UNPINNED, MISSING, UNREADABLE, CHANGED, OUTSIDE, TOO_LONG, CURRENT, DUE = (
    "unpinned", "missing", "unreadable", "changed", "outside", "too long", "current", "due")
IMPACT_BATCH = 500


@dataclass(frozen=True)
class PremiseUnderReview:
    """A premise as the prompt shows it: its claim, and the lines of its source."""

    id: str
    text: str
    window: Window
    sha256: str  # review_sha256(claim, window): the stamp a review of it leaves
    source_sha256: str  # the file's hash as read
    source_size: int
    impact: int = 0
    metadata: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class PremiseDue:
    due: tuple[PremiseUnderReview, ...]  # in the order review takes them
    counts: Mapping[str, int]  # every state above -> how many premises
    with_source: int  # IN premises that name a source


class SourceCache:
    """Each source read, and each pin's window cut, once per round (premises drawn from one
    file often share a pin)."""

    def __init__(self, reader: SourceReader):
        self.reader = reader
        self._read: dict[str, SourceText | SkippedFile | None] = {}
        self._windows: dict[tuple[str, tuple[int, int], int], Window | TooLong | None] = {}

    def get(self, path: str) -> SourceText | SkippedFile | None:
        if path not in self._read:
            self._read[path] = self.reader.read(path)
        return self._read[path]

    def window(self, source: SourceText, pin: tuple[int, int], budget: int
               ) -> Window | TooLong | None:
        key = (source.path, pin, budget)
        if key not in self._windows:
            self._windows[key] = window_for(source, pin, budget=budget)
        return self._windows[key]


def judge(c: PremiseCandidate, sources: SourceCache, *, budget: int
          ) -> tuple[str, PremiseUnderReview | None]:
    """One candidate's state, and what the prompt would show of it."""
    if not c.source_hash:
        return UNPINNED, None
    got = sources.get(c.source)
    if got is None:
        return MISSING, None
    if isinstance(got, SkippedFile):
        return UNREADABLE, None
    if got.sha256 != c.source_hash:
        return CHANGED, None
    pin = c.lines or (1, max(1, len(got.text.splitlines())))
    window = sources.window(got, pin, budget)
    if window is None:
        return OUTSIDE, None
    if isinstance(window, TooLong):
        return TOO_LONG, None
    shown = PremiseUnderReview(c.id, " ".join(c.text.split()), window,
                               review_sha256(c.text, window), got.sha256, got.size,
                               metadata=c.metadata)
    return (CURRENT if c.review_sha256 == shown.sha256 else DUE), shown


class PremiseDueTx(PremiseReviewTx, ReadingTx, Protocol):
    """What is due reads: the premises with their pins and stamps (PremiseReviewTx) and
    what rests on each (ReadingTx.impacts)."""


def read_premises(tx: PremiseDueTx, reader: SourceReader, *, ids: Sequence[str] = (),
                  budget: int, review_all: bool = False, since: str = "",
                  with_impact: bool = True) -> PremiseDue:
    """What is due, in one read transaction `tx` (with `ids`: only those premises; with
    `review_all`: a review older than `since` counts as not current)."""
    candidates = tx.premise_review_candidates(list(ids) if ids else None)
    sources = SourceCache(reader)
    counts: Counter[str] = Counter()
    due: list[PremiseUnderReview] = []
    for c in candidates:
        state, shown = judge(c, sources, budget=budget)
        if state == CURRENT and review_all and not (since and c.reviewed_at >= since):
            state = DUE
        counts[state] += 1
        if state == DUE and shown is not None:
            due.append(shown)
    impact: dict[str, int] = {}
    if with_impact and due:
        wanted = [p.id for p in due]
        for start in range(0, len(wanted), IMPACT_BATCH):
            impact.update(tx.impacts(wanted[start:start + IMPACT_BATCH]))
    ordered = sorted((PremiseUnderReview(p.id, p.text, p.window, p.sha256, p.source_sha256,
                                         p.source_size, impact.get(p.id, 0), p.metadata)
                      for p in due), key=lambda p: (-p.impact, p.id))
    return PremiseDue(tuple(ordered), dict(counts), len(candidates))
