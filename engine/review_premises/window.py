"""The source lines premise review shows beside a claim: the chunk forge cuts around the pin
(engine/sources/reader.Chunk, from the SourceReader), whole when it fits the budget.

A chunk (or the run of chunks a pin spans) over the budget is split at line boundaries into
parts that fit, and the parts that hold the pinned lines are shown, with a note saying so:
the pinned lines are never cut. A pin longer than `max_parts` parts is not shown at all (the
premise is counted `too long`), rather than half shown.

`sha256` (of the claim, the path and the lines shown) keys a premise review: while it is the
one stamped on the belief, the review is current.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass

from engine.sources.reader import SourceText
from engine.tokens import ESTIMATE, TokenCounter

DEFAULT_BUDGET = 1000  # tokens of source per premise
MAX_PARTS = 4


@dataclass(frozen=True)
class Window:
    path: str
    first: int  # 1-based, inclusive: the lines shown
    last: int
    text: str  # those lines
    pin: tuple[int, int]  # the pinned lines, inside first..last
    chunk: tuple[int, int]  # the chunk (or run of chunks) the lines come from
    parts: int = 1  # how many parts that chunk was split into (1: shown whole)
    shown_parts: tuple[int, int] = (1, 1)  # which of them are shown
    tokens: int = 0

    @property
    def split(self) -> bool:
        return self.parts > 1

    def note(self, budget: int) -> str:
        """What the prompt says about a split chunk ("" when it is shown whole)."""
        if not self.split:
            return ""
        a, b = self.shown_parts
        which = f"part {a}" if a == b else f"parts {a}-{b}"
        return (f"(the chunk, lines {self.chunk[0]}-{self.chunk[1]}, is over the budget of "
                f"{budget} tokens: split into {self.parts} parts; shown: {which}, lines "
                f"{self.first}-{self.last}, which hold the pinned lines)")


@dataclass(frozen=True)
class TooLong:
    """A pin whose lines alone do not fit in `max_parts` parts of the budget."""

    path: str
    pin: tuple[int, int]
    tokens: int


def review_sha256(claim: str, window: Window) -> str:
    data = json.dumps([" ".join(claim.split()), window.path, window.first, window.last,
                       window.text], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


def _parts(lines: Sequence[str], start: int, budget: int, counter: TokenCounter
           ) -> list[tuple[int, int]]:
    """Line ranges (1-based, inclusive, numbered from `start`) of at most `budget` tokens
    each; a single line over the budget is a part of its own."""
    out: list[tuple[int, int]] = []
    first, used = 0, 0
    for i, line in enumerate(lines):
        cost = counter.count(line) + 1
        if i > first and used + cost > budget:
            out.append((start + first, start + i - 1))
            first, used = i, 0
        used += cost
    out.append((start + first, start + len(lines) - 1))
    return out


def window_for(source: SourceText, pin: tuple[int, int], *, budget: int = DEFAULT_BUDGET,
               max_parts: int = MAX_PARTS, counter: TokenCounter = ESTIMATE
               ) -> Window | TooLong | None:
    """The lines to show for a premise pinned to `pin` of `source`; None when the pin lies
    outside the text."""
    all_lines = source.text.splitlines()
    first, last = pin[0], min(pin[1], len(all_lines))
    if first < 1 or first > last:
        return None
    hit = [c for c in source.chunks if c.start <= last and c.end >= first]
    lo = min([c.start for c in hit] + [first])
    hi = max([c.end for c in hit] + [last])
    lines = all_lines[lo - 1:hi]
    text = "\n".join(lines)
    tokens = counter.count(text)
    if tokens <= budget:
        return Window(source.path, lo, hi, text, (first, last), (lo, hi), tokens=tokens)
    parts = _parts(lines, lo, budget, counter)
    held = [k for k, (a, b) in enumerate(parts, start=1) if a <= last and b >= first]
    if len(held) > max_parts:
        return TooLong(source.path, (first, last),
                       counter.count("\n".join(all_lines[first - 1:last])))
    a, b = parts[held[0] - 1][0], parts[held[-1] - 1][1]
    shown = "\n".join(all_lines[a - 1:b])
    return Window(source.path, a, b, shown, (first, last), (lo, hi), len(parts),
                  (held[0], held[-1]), counter.count(shown))
