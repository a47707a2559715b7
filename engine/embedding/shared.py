"""One embedding model for a process that lives long and serves several threads (the MCP
server, the resident engine): built on first use, shared by every caller, each `embed` under
a lock (a sentence-transformers model is not safe to encode on two threads at once)."""
from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from engine.embedding.cache import Embedder


class LockedEmbedder:
    """An embedder whose calls take turns."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self._lock = threading.Lock()
        self.model_name = embedder.model_name

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        with self._lock:
            return self._embedder.embed(texts)


class SharedEmbedder:
    """`get()` builds the embedder with `make` the first time (a constructor that loads
    nothing: the model loads on the first `embed`) and hands the same one out after."""

    def __init__(self, make: Callable[[], Embedder]) -> None:
        self._make = make
        self._built: LockedEmbedder | None = None
        self._lock = threading.Lock()

    def get(self) -> LockedEmbedder:
        with self._lock:
            if self._built is None:
                self._built = LockedEmbedder(self._make())
            return self._built
