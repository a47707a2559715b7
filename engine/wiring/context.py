"""A Context for a call, from the settings of the process or request that makes it."""
from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from engine.embedding.cache import Embedder
from engine.service.context import DEFAULT_PROG, DEFAULT_UMASK, Context
from engine.wiring.settings import Settings
from engine.wiring.store import BorrowedDriver, LazyStore, Located

if TYPE_CHECKING:
    from engine.embedding.keeper import EmbeddingKeeper


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
def opened(settings: Settings, memory: Located, *, prog: str = DEFAULT_PROG,
           folder: Path | None = None, umask: int = DEFAULT_UMASK,
           borrowed: BorrowedDriver | None = None, actor: str | None = None,
           retry_seconds: float = 15,
           notice: Callable[[str], None] = lambda line: None) -> Iterator[Context]:
    """A Context over `memory`'s store, for one command (or one server's life); the store
    is connected on first use (a memory's own server started then, `notice` told) and closed
    at the end."""
    who = settings.actor if actor is None else actor
    store = LazyStore(settings, memory, who, retry_seconds=retry_seconds, borrowed=borrowed,
                      notice=notice)
    try:
        yield Context(store, who, prog=prog, folder=folder, umask=umask,
                      embedder=SharedEmbedder(), cache_folder=settings.cache_folder)
    finally:
        store.close()


def keeping_embeddings(ctx: Context) -> Context:
    """`ctx` for a process that serves many calls over one memory (the MCP server): its
    embeddings kept current after each write, on a thread of the keeper's own, with the
    Context's one model (a failure is logged; the next write tries again), and its
    rankings by meaning made through the keeper (engine/embedding/keeper.py)."""
    if ctx.embedder is None:
        return ctx
    return dataclasses.replace(ctx, keeper=embedding_keeper(ctx))


def embedding_keeper(ctx: Context) -> EmbeddingKeeper:
    from engine.embedding.keeper import EmbeddingKeeper
    from engine.wiring.parts import vector_cache

    assert ctx.embedder is not None
    log = logging.getLogger("eem.embeddings")
    return EmbeddingKeeper(ctx.store, ctx.embedder,
                           cache=vector_cache(ctx.cache_folder, ctx.umask),
                           on_error=lambda e: log.warning("embedding upkeep failed: %s", e))
