"""A Context for a call, from the settings of the process or request that makes it."""
from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from engine.embedding.cache import Embedder
from engine.service.context import DEFAULT_PROG, DEFAULT_UMASK, Context
from engine.wiring.settings import Settings
from engine.wiring.store import BorrowedDriver, LazyStore


class SharedEmbedder:
    """The packaged sentence-transformers model (loaded on its first `embed`), shared by
    every call of a process: its model is not safe to encode on two threads at once."""

    def __init__(self) -> None:
        from adapters.embeddings import SentenceTransformerEmbedder

        self._embedder = SentenceTransformerEmbedder()
        self._lock = threading.Lock()
        self.model_name = self._embedder.model_name

    def __call__(self) -> Embedder:
        return self

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        with self._lock:
            return self._embedder.embed(texts)


@contextmanager
def opened(settings: Settings, *, prog: str = DEFAULT_PROG, folder: Path | None = None,
           umask: int = DEFAULT_UMASK,
           borrowed: BorrowedDriver | None = None, actor: str | None = None,
           retry_seconds: float = 15) -> Iterator[Context]:
    """A Context over the store `settings` name, for one command (or one server's life);
    the store is connected on first use and closed at the end."""
    who = settings.actor if actor is None else actor
    store = LazyStore(settings, who, retry_seconds=retry_seconds, borrowed=borrowed)
    try:
        yield Context(store, who, prog=prog, folder=folder, umask=umask,
                      embedder=SharedEmbedder(), cache_folder=settings.cache_folder)
    finally:
        store.close()
