"""`FileSourceReader`: the engine's SourceReader (engine/sources/reader.py) on a folder tree."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from adapters.sources.chunking import chunk_text
from adapters.sources.reading import (
    CONVERTED,
    DOCUMENTS_HINT,
    Skip,
    converter_available,
    file_hash,
    read_file,
)
from adapters.sources.walk import Filters, walk_files
from engine.sources.reader import Fingerprint, Scan, SkippedFile, SourceText

DEFAULT_MAX_BYTES = 2_000_000
DEFAULT_CHUNK_TOKENS = 600


@dataclass
class FileSourceReader:
    root: Path
    filters: Filters = Filters()
    max_bytes: int = DEFAULT_MAX_BYTES
    chunk_tokens: int = DEFAULT_CHUNK_TOKENS

    def __post_init__(self) -> None:
        self.root = Path(self.root).resolve()

    def walk(self, paths: Sequence[str]) -> list[str]:
        return walk_files(self.root, paths, self.filters)

    def scan(self, paths: Sequence[str]) -> Scan:
        sources, skipped = [], []
        for rel in self.walk(paths):
            got = self.read(rel)
            if isinstance(got, SourceText):
                sources.append(got)
            elif isinstance(got, SkippedFile):
                skipped.append(got)
        notes: tuple[str, ...] = ()
        if not converter_available() and any(Path(s.path).suffix.lower() in CONVERTED
                                             for s in skipped):
            notes = (f"PDF, HTML and office files were skipped: the `documents` extra converts "
                     f"them ({DOCUMENTS_HINT})",)
        return Scan(tuple(sources), tuple(skipped), notes)

    def fingerprint(self, path: str) -> Fingerprint | None:
        file = self.root / path
        if not file.is_file():
            return None
        try:
            sha, size = file_hash(file)
        except OSError:
            return None
        return Fingerprint(path, sha, size)

    def read(self, path: str) -> SourceText | SkippedFile | None:
        file = self.root / path
        if not file.is_file():
            return None
        try:
            got = read_file(file, max_bytes=self.max_bytes)
        except Skip as e:
            return SkippedFile(path, str(e))
        except OSError as e:
            return SkippedFile(path, f"unreadable: {e.strerror or e}")
        chunks = chunk_text(path, got.text, got.kind, budget=self.chunk_tokens)
        if not chunks:
            return SkippedFile(path, "no text")
        return SourceText(path, got.sha256, got.size, got.kind, got.text, chunks)
