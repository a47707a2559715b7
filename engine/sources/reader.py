"""What forge reads: source files as text cut into chunks, behind a small interface.

The entry point injects a `SourceReader` (adapters/sources/: file walking, .gitignore,
document conversion, chunking); the engine sees only these records. Paths are relative to
the root the reader was given, with `/` separators, so the graph does not depend on where a
checkout lives.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class SourceOptions:
    """Which files a reader takes under its root and how it cuts them: gitignore-style
    `include` (only these) and `exclude` globs, whether .gitignore files count, the largest
    file read, the chunk budget in tokens."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    gitignore: bool = True
    max_bytes: int = 2_000_000
    chunk_tokens: int = 600


@dataclass(frozen=True)
class Chunk:
    """A piece of a source cut at a structural boundary: lines `start`..`end` (1-based,
    inclusive) of the source's text."""

    path: str
    start: int
    end: int
    text: str
    sha256: str  # of `text`: a chunk forged once with this hash is not sent again
    kind: str = "paragraph"  # "heading" (a Markdown section), "definition" (code), "paragraph"
    title: str = ""  # the heading or definition line that opens it, when there is one


@dataclass(frozen=True)
class SourceText:
    path: str
    sha256: str  # of the file's bytes
    size: int  # bytes
    kind: str  # "markdown", "code", "text", or "converted:<ext>"
    text: str
    chunks: tuple[Chunk, ...] = ()


@dataclass(frozen=True)
class Fingerprint:
    """A file as it is now, without its text: enough to tell whether it changed."""

    path: str
    sha256: str
    size: int


@dataclass(frozen=True)
class SkippedFile:
    """A file the scan passed over, and why (too large, binary, ignored, unreadable)."""

    path: str
    reason: str


@dataclass(frozen=True)
class Scan:
    sources: tuple[SourceText, ...] = ()
    skipped: tuple[SkippedFile, ...] = ()
    notes: tuple[str, ...] = ()  # e.g. the line saying which extra converts PDFs


class SourceReader(Protocol):
    def scan(self, paths: Sequence[str]) -> Scan:
        """Every file under `paths` (files or folders), read and chunked; what was skipped
        and why. Raises InvalidInput for a path that does not exist or lies outside the root."""

    def walk(self, paths: Sequence[str]) -> list[str]:
        """The relative paths `scan` would consider (ignores applied), without reading them."""

    def fingerprint(self, path: str) -> Fingerprint | None:
        """The current hash and size of a known source; None when it is gone."""

    def read(self, path: str) -> SourceText | SkippedFile | None:
        """One source by its relative path, read and chunked; None when it is gone."""


class WholeFileHashes(Protocol):
    """What ftl-reasons and reasonsforge pin a belief to: the sha256 of the whole file its
    `source` names (`repo/path` through a repos map, or a path under the root)."""

    def sha256(self, source: str) -> str | None:
        """The file's sha256 now; None when no file is there."""
