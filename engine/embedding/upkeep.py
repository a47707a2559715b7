"""Keeping every belief's embedding current, whoever wrote the belief, and never ranking by
meaning over a memory whose embeddings are not current.

`update_embeddings` brings a memory's embeddings up to date: it pages through the beliefs
without a current embedding of the model (none, another model's, or one computed from an
older text: the store counts them itself, cypher/embedding/upkeep.cypher), by id, in bounded
batches, each computed outside any transaction and written in a small write transaction of
its own (a cache, not beliefs: a crash keeps what was done, and a writer waits at most one
batch for the write lock). It first records the model on the memory, so a memory that once
kept embeddings keeps them (the MCP server's keeper, import), and a new model re-embeds
everything. Progress goes to a callback, never to a stream.

A ranking by meaning raises `MissingEmbeddings` when any belief it could rank lacks a current
embedding (engine/reading/ranking.py): a search "by meaning" over half the memory would rank
the other half by nothing. `with_current_embeddings` is what a face runs such a read through:
when few are missing it computes them and runs the read again; otherwise the error goes on,
with the face's hint (the command that computes them).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from engine import defaults
from engine.change_records import ChangeEntry
from engine.embedding.cache import Embedder, MemoryVectorCache, Progress, VectorCache, text_sha256
from engine.embedding.records import EmbeddingBacklog, StoredEmbedding, VectorTx
from engine.errors import InvalidInput, ModelError
from engine.optional import numpy_module
from engine.store import Store

if TYPE_CHECKING:
    from engine.optional import Matrix

T = TypeVar("T")

UPKEEP_BATCH = defaults.EMBED_BATCH  # beliefs per page read, embed call and write transaction
# A semantic search computes this many missing embeddings itself before it runs (about half a
# minute of the bundled model on two cores); more, and it says how many and what computes them.
SEARCH_EMBED_LIMIT = 2000


class MissingEmbeddings(InvalidInput):
    """A ranking by meaning was asked of a memory some of whose beliefs lack a current
    embedding of the model."""

    def __init__(self, backlog: EmbeddingBacklog, hint: str = ""):
        message = (f"{backlog.missing} of {backlog.total} beliefs have no current embedding "
                   f"of {backlog.model}, so they cannot be ranked by meaning")
        super().__init__(message + (f"; {hint}" if hint else ""), field="semantic",
                         value=backlog.missing)
        self.backlog = backlog
        self.hint = hint

    def with_hint(self, hint: str) -> MissingEmbeddings:
        return MissingEmbeddings(self.backlog, hint)


@dataclass(frozen=True)
class EmbeddingUpdate:
    """What an upkeep run did: of the `missing` embeddings it found, `computed` texts went
    through the model and `reused` beliefs' vectors came from the vector cache; `written` is
    how many beliefs got one (a belief deleted meanwhile is skipped)."""

    model: str
    total: int
    missing: int
    computed: int = 0
    reused: int = 0
    written: int = 0

    def as_dict(self) -> dict[str, object]:
        return {"model": self.model, "total": self.total, "missing": self.missing,
                "computed": self.computed, "reused": self.reused, "written": self.written}


def embedding_backlog(store: Store[VectorTx], model: str) -> EmbeddingBacklog:
    """How many beliefs lack a current embedding of `model`, and the memory's model."""
    return store.read(lambda tx: tx.embedding_backlog(model))


def require_current_embeddings(store: Store[VectorTx], model: str) -> None:
    """MissingEmbeddings unless every belief has a current embedding of `model` (before a
    run that ranks by meaning more than once, as ask with a model and its search tool)."""
    backlog = embedding_backlog(store, model)
    if backlog.missing:
        raise MissingEmbeddings(backlog)


def update_embeddings(store: Store[VectorTx], embedder: Embedder, *,
                      cache: VectorCache | None = None,
                      batch: int = UPKEEP_BATCH, progress: Progress | None = None
                      ) -> EmbeddingUpdate:
    """Compute and store the embedding of every belief that lacks a current one, `batch` at
    a time, each batch in its own write transaction; `progress(done, to_do)` after each."""
    if batch < 1:
        raise InvalidInput(f"the batch must be at least 1, not {batch}", field="batch",
                           value=batch)
    np = numpy_module("embeddings")
    model = embedder.model_name
    cache = cache if cache is not None else MemoryVectorCache()
    backlog = embedding_backlog(store, model)
    if backlog.recorded_model != model:
        store.write(lambda tx: tx.record_embedding_model(model),
                    ChangeEntry("embedding-model", {"model": model}))
    computed = reused = written = done = 0
    after = ""
    while True:
        page = store.read(lambda tx: tx.beliefs_to_embed(model, after, batch))
        if not page:
            break
        shas = [text_sha256(text) for _, text in page]
        held = cache.has(model, shas)
        todo = sorted({sha: text for (_, text), sha, h in zip(page, shas, held) if not h}.items())
        if todo:
            vectors = np.asarray(embedder.embed([text for _, text in todo]), dtype=np.float32)
            if vectors.ndim != 2 or vectors.shape[0] != len(todo):
                raise ModelError(f"the embedder returned {vectors.shape} for {len(todo)} "
                                 "texts", model=model)
            cache.put(model, [sha for sha, _ in todo], vectors)
        rows = _rows(page, shas, model, cache.rows(model, shas))
        written += store.write(lambda tx: tx.save_embeddings(rows),
                               ChangeEntry("embeddings", {"beliefs": len(rows), "model": model}))
        computed += len(todo)
        reused += sum(held)
        done += len(page)
        if progress is not None:
            progress(done, max(done, backlog.missing))
        after = page[-1][0]
    return EmbeddingUpdate(model, backlog.total, backlog.missing, computed, reused, written)


def _rows(page: Sequence[tuple[str, str]], shas: Sequence[str], model: str, vectors: Matrix
          ) -> list[StoredEmbedding]:
    return [StoredEmbedding(bid, sha, model, vector.tolist(), text)
            for (bid, text), sha, vector in zip(page, shas, vectors)]


def with_current_embeddings(store: Store[VectorTx], embedder: Embedder, run: Callable[[], T], *,
                            compute_up_to: int = SEARCH_EMBED_LIMIT, hint: str = "",
                            cache: VectorCache | None = None,
                            progress: Progress | None = None) -> T:
    """`run()`, a read that ranks by meaning (it raises MissingEmbeddings while a belief
    lacks a current embedding). When it does and at most `compute_up_to` are missing, they
    are computed (`store`: one that may write; the read's store may be a client's filtered
    view) and the read runs again; otherwise the error goes on with `hint` (say what
    computes them)."""
    try:
        return run()
    except MissingEmbeddings as e:
        if e.backlog.missing > compute_up_to:
            raise e.with_hint(hint) from None
    update_embeddings(store, embedder, cache=cache, progress=progress)
    try:
        return run()
    except MissingEmbeddings as e:  # a writer added beliefs meanwhile: say so, do not loop
        raise e.with_hint(hint) from None
