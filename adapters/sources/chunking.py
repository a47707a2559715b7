"""Cutting a source's text into chunks at structural boundaries, within a token budget.

Boundaries: Markdown headings (outside code fences) for Markdown and converted documents;
unindented definitions for code (with the decorators and comments just above them); blank
lines between paragraphs for plain text. Sections are then packed greedily, in order, into
chunks of at most `budget` tokens (estimated as characters / 4); a section over the budget is
cut at its paragraphs, then at lines. Every chunk keeps its 1-based line range.
"""
from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from engine.sources.reader import Chunk

CHARS_PER_TOKEN = 4
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+\S")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_DEFINITION = re.compile(
    r"^(?:export\s+)?(?:default\s+)?(?:pub(?:\([a-z]+\))?\s+)?(?:async\s+)?(?:static\s+)?"
    r"(?:def|class|function|func|fn|impl|struct|enum|trait|interface|type|module|object|"
    r"public|private|protected|const|let|var|package|CREATE|MATCH)\b")
_ATTACHED = re.compile(r"^(?:@|#(?!!)|//|/\*|\*|--|;)")  # decorators and comments above a def


def estimate_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


@dataclass(frozen=True)
class _Section:
    start: int  # 0-based, inclusive
    end: int  # 0-based, exclusive
    kind: str
    title: str


def _markdown_starts(lines: Sequence[str]) -> list[tuple[int, str, str]]:
    starts, fenced = [(0, "paragraph", "")], False
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and _HEADING.match(line):
            starts.append((i, "heading", line.strip().lstrip("#").strip()))
    return starts


def _code_starts(lines: Sequence[str]) -> list[tuple[int, str, str]]:
    starts = [(0, "paragraph", "")]
    for i, line in enumerate(lines):
        if line[:1].isspace() or not _DEFINITION.match(line):
            continue
        first = i
        while first > 0 and lines[first - 1].strip() and _ATTACHED.match(lines[first - 1]):
            first -= 1
        if first > starts[-1][0]:
            starts.append((first, "definition", line.strip()))
        elif first == starts[-1][0] and starts[-1][1] == "paragraph":
            starts[-1] = (first, "definition", line.strip())
    return starts


def _paragraph_starts(lines: Sequence[str], lo: int = 0, hi: int | None = None) -> list[int]:
    """Lines that open a paragraph (a text line after a blank one), except right after a
    heading, which stays with the paragraph it heads."""
    hi = len(lines) if hi is None else hi
    out, last_text = [lo], lines[lo] if lo < hi else ""
    for i in range(lo + 1, hi):
        if lines[i].strip():
            if not lines[i - 1].strip() and not _HEADING.match(last_text):
                out.append(i)
            last_text = lines[i]
    return out


def sections(lines: Sequence[str], kind: str) -> list[_Section]:
    if kind == "markdown" or kind.startswith("converted:"):
        starts = _markdown_starts(lines)
    elif kind == "code":
        starts = _code_starts(lines)
    else:
        starts = [(i, "paragraph", "") for i in _paragraph_starts(lines)]
    if len(starts) > 1 and starts[1][0] == 0:
        starts = starts[1:]
    ends = [s[0] for s in starts[1:]] + [len(lines)]
    return [_Section(s, e, k, t) for (s, k, t), e in zip(starts, ends) if e > s]


def _size(lines: Sequence[str], start: int, end: int) -> int:
    return estimate_tokens("\n".join(lines[start:end]))


def _fit(lines: Sequence[str], section: _Section, budget: int) -> list[_Section]:
    """The section, cut at paragraphs and then at lines until each piece fits (a single
    line over the budget stays whole)."""
    if _size(lines, section.start, section.end) <= budget:
        return [section]
    starts = _paragraph_starts(lines, section.start, section.end)
    if len(starts) > 1:
        pieces = [_Section(s, e, section.kind if s == section.start else "paragraph",
                           section.title if s == section.start else "")
                  for s, e in zip(starts, starts[1:] + [section.end])]
        return [p for piece in pieces for p in _fit(lines, piece, budget)]
    out, start, used = [], section.start, 0
    for i in range(section.start, section.end):
        cost = estimate_tokens(lines[i]) + 1
        if i > start and used + cost > budget:
            out.append(_Section(start, i, section.kind if start == section.start else "paragraph",
                                section.title if start == section.start else ""))
            start, used = i, 0
        used += cost
    out.append(_Section(start, section.end, section.kind if start == section.start
                        else "paragraph", section.title if start == section.start else ""))
    return out


def _trimmed(lines: Sequence[str], start: int, end: int) -> tuple[int, int]:
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return start, end


def chunk_text(path: str, text: str, kind: str, *, budget: int = 600) -> tuple[Chunk, ...]:
    """The chunks of `text` (the text of source `path`), in order."""
    lines = text.splitlines()
    packed: list[_Section] = []
    whole = False  # whether the last packed chunk holds whole sections only
    for section in sections(lines, kind):
        pieces = _fit(lines, section, budget)
        if len(pieces) == 1 and whole and _size(lines, packed[-1].start, section.end) <= budget:
            last = packed[-1]
            packed[-1] = _Section(last.start, section.end, last.kind, last.title)
            continue
        # the pieces of a cut section pack among themselves, never into a neighbour
        first = len(packed)
        for piece in pieces:
            if len(packed) > first and _size(lines, packed[-1].start, piece.end) <= budget:
                last = packed[-1]
                packed[-1] = _Section(last.start, piece.end, last.kind, last.title)
            else:
                packed.append(piece)
        whole = len(pieces) == 1
    chunks = []
    for p in packed:
        start, end = _trimmed(lines, p.start, p.end)
        if start == end:
            continue
        body = "\n".join(lines[start:end])
        chunks.append(Chunk(path, start + 1, end, body,
                            hashlib.sha256(body.encode("utf-8")).hexdigest(), p.kind, p.title))
    return tuple(chunks)
