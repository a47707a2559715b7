"""A local file copy of embeddings, keyed by (model, text sha256): the VectorCache of
engine.embedding.cache.

The store keeps every belief's embedding, but reading 100k x 384 floats over Bolt takes
seconds; this file cache gives them back in a fraction of that, so a `--cluster` round on a
large network builds its prompt fast from the first round on (scripts/bench/prompt_build.py).
It is only a cache: a vector is found by the hash of the text and the model's name, so it can
never be served for another text or model, and an unreadable or unwritable cache only costs
time (the store has the vectors).

Layout: `<directory>/<model slug>/seg-*.npy`, each segment two arrays saved one after the
other in one file, the shas (S64, hex) and then their float32 vectors (n x d, contiguous, so
that loading and gathering them is a plain copy), written to a temporary name and renamed, so
readers never see half a segment. Every `put` adds a segment; past MAX_SEGMENTS they are merged
into one. The
directory is chosen by the entry point (e.g. $XDG_CACHE_HOME/eem-engine/embeddings).
Constructing the cache touches no file; the first `get` or `put` of a model loads it.
"""
from __future__ import annotations

import hashlib
import os
import re
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.embedding.cache import VectorTable
from engine.errors import ModelError
from engine.files import write_atomically
from engine.optional import numpy_module

MAX_SEGMENTS = 16


def model_slug(model: str) -> str:
    """A directory name for a model: readable, and unique by a hash of the full name."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("_.")[-60:] or "model"
    return f"{readable}-{hashlib.sha256(model.encode('utf-8')).hexdigest()[:10]}"


class NpyVectorCache:
    def __init__(self, directory: str | os.PathLike[str], *, umask: int | None = None):
        self.directory = Path(directory)
        self.umask = umask  # the caller's, for the files written (None: this process's)
        self._tables: dict[str, VectorTable] = {}
        self._segments: dict[str, list[Path]] = {}  # model -> segment files loaded or written
        self.error: str | None = None  # the last write failure, if any (the cache goes on)

    def has(self, model: str, shas: Sequence[str]) -> list[bool]:
        table = self._load(model)
        return [s in table for s in shas]

    def rows(self, model: str, shas: Sequence[str]) -> Any:
        return self._load(model).gather(shas)

    def put(self, model: str, shas: Sequence[str], rows: Any) -> None:
        np = numpy_module("file caches of embeddings")
        table = self._load(model)
        rows = np.asarray(rows, dtype=np.float32)
        keep = [j for j, s in enumerate(shas) if s not in table]
        if not keep:
            return
        shas, rows = [shas[j] for j in keep], rows[keep]
        table.add(shas, rows)
        if len(self._segments[model]) + 1 > MAX_SEGMENTS:
            self._compact(model)
        else:
            self._write(model, shas, rows)

    # --- files ---------------------------------------------------------------------------
    def _folder(self, model: str) -> Path:
        return self.directory / model_slug(model)

    def _load(self, model: str) -> VectorTable:
        if model in self._tables:
            return self._tables[model]
        np = numpy_module("file caches of embeddings")
        table = VectorTable()
        loaded: list[Path] = []
        folder = self._folder(model)
        for path in sorted(folder.glob("seg-*.npy")) if folder.is_dir() else []:
            try:
                with open(path, "rb") as f:
                    shas = np.load(f, allow_pickle=False)
                    vectors = np.load(f, allow_pickle=False)
                if vectors.ndim != 2 or shas.shape != (len(vectors),):
                    continue
                table.add([s.decode("ascii") for s in shas.tolist()], vectors)
            except (OSError, ValueError, EOFError, UnicodeDecodeError, ModelError):
                continue  # a damaged segment is skipped; the store still has the vectors
            loaded.append(path)
        self._tables[model] = table
        self._segments[model] = loaded
        return table

    def _write(self, model: str, shas: Sequence[str], rows: Any) -> Path | None:
        np = numpy_module("file caches of embeddings")
        sha_column = np.array([s.encode("ascii") for s in shas], dtype="S64")
        rows = np.ascontiguousarray(rows, dtype=np.float32)
        folder = self._folder(model)

        def write(f) -> None:
            np.save(f, sha_column, allow_pickle=False)
            np.save(f, rows, allow_pickle=False)

        try:
            final = write_atomically(folder / f"seg-{uuid.uuid4().hex}.npy", write,
                                     umask=self.umask)
        except OSError as e:
            self.error = f"cannot write the embedding cache in {folder}: {e}"
            return None
        self._segments[model].append(final)
        return final

    def _compact(self, model: str) -> None:
        old = list(self._segments[model])
        self._segments[model] = []
        if self._write(model, *self._tables[model].items()) is None:
            self._segments[model] = old
            return
        for path in old:
            path.unlink(missing_ok=True)
