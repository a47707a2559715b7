"""Embeddings kept current by a process that outlives the writes it serves (the MCP server
now; the resident engine through the same hook): after a write that may add or reword
beliefs, `EmbeddingKeeper.note_write()` returns at once, and a thread of the keeper's own
brings the embeddings up to date (engine/embedding/upkeep.update_embeddings: bounded
batches, each its own small write transaction, never inside the write that caused it).

Only a memory that keeps embeddings is kept: one that has recorded a model (`eem embed`, an
`import --embed`, a semantic search that computed them). A memory that never asked for
meaning costs one count per write and loads no model. `compute_all()` asks for the upkeep
even so (a semantic search found more missing than it computes itself). Errors and progress
go to callbacks; nothing is printed.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

from engine.embedding.cache import Embedder, Progress, VectorCache
from engine.embedding.upkeep import (
    SEARCH_EMBED_LIMIT,
    EmbeddingUpdate,
    MissingEmbeddings,
    embedding_backlog,
    update_embeddings,
)
from engine.embedding.records import VectorTx
from engine.store import Store

T = TypeVar("T")
KEEPER_BATCH = 64  # smaller than a command's: a search waiting for the shared model waits less
COMPUTING = ("they are being computed now (the server does it in the background): ask again "
             "in a while, or without semantic")


class EmbeddingKeeper:
    def __init__(self, store: Store[VectorTx], embedder: Callable[[], Embedder], *,
                 cache: VectorCache | None = None, batch: int = KEEPER_BATCH,
                 progress: Progress | None = None,
                 on_error: Callable[[Exception], None] | None = None,
                 on_update: Callable[[EmbeddingUpdate], None] | None = None,
                 compute_up_to: int = SEARCH_EMBED_LIMIT) -> None:
        self._store = store
        self._embedder = embedder
        self._cache = cache
        self._batch = batch
        self._progress = progress
        self._on_error = on_error
        self._on_update = on_update
        self._compute_up_to = compute_up_to
        self._working = threading.Lock()  # one upkeep at a time, whichever thread runs it
        self._wanted = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._stopping = threading.Event()
        self._force = False
        self._guard = threading.Lock()
        self._thread: threading.Thread | None = None

    # --- the hooks ------------------------------------------------------------------------
    def note_write(self) -> None:
        """After a write that may add or reword beliefs: bring the embeddings up to date soon,
        on the keeper's thread, if the memory keeps them. Returns at once."""
        self._request(force=False)

    def compute_all(self) -> None:
        """Bring every embedding up to date soon, even in a memory that keeps none yet."""
        self._request(force=True)

    def embedder(self) -> Embedder:
        """The embedder the keeper computes with (share it: one model in memory)."""
        return self._embedder()

    def by_meaning(self, run: Callable[[], T]) -> T:
        """`run()`, a read ranking by meaning with `embedder()`. When embeddings are missing:
        a few are computed now, on the caller's thread, and it runs again; more, and the
        keeper's thread is asked to compute them all while the error goes on saying so."""
        try:
            return run()
        except MissingEmbeddings as e:
            if e.backlog.missing > self._compute_up_to:
                self.compute_all()
                raise e.with_hint(COMPUTING) from None
        with self._working:
            update_embeddings(self._store, self._embedder(), cache=self._cache,
                              batch=self._batch)
        try:
            return run()
        except MissingEmbeddings as e:  # a writer added beliefs meanwhile
            self.compute_all()
            raise e.with_hint(COMPUTING) from None

    # --- the work ---------------------------------------------------------------------------
    def run_once(self, force: bool = False) -> EmbeddingUpdate | None:
        """The upkeep, now, on the caller's thread: None when nothing was to be done."""
        embedder = self._embedder()
        backlog = embedding_backlog(self._store, embedder.model_name)
        if backlog.current or not (backlog.kept or force):
            return None
        with self._working:
            return update_embeddings(self._store, embedder, cache=self._cache,
                                     batch=self._batch, progress=self._progress)

    def wait_idle(self, timeout: float) -> bool:
        """Whether the keeper's thread has nothing left to do within `timeout` seconds."""
        return self._idle.wait(timeout) and not self._wanted.is_set()

    def stop(self) -> None:
        self._stopping.set()
        self._wanted.set()

    def _request(self, *, force: bool) -> None:
        with self._guard:
            self._force = self._force or force
            self._idle.clear()
            self._wanted.set()
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="eem-embedding-keeper",
                                                daemon=True)
                self._thread.start()

    def _loop(self) -> None:
        while True:
            self._wanted.wait()
            if self._stopping.is_set():
                self._idle.set()
                return
            with self._guard:
                self._wanted.clear()
                force, self._force = self._force, False
            try:
                update = self.run_once(force)
                if update is not None and self._on_update is not None:
                    self._on_update(update)
            except Exception as e:  # the server goes on; the next write tries again
                if self._on_error is not None:
                    self._on_error(e)
            with self._guard:
                if not self._wanted.is_set():
                    self._idle.set()
