"""Ranking by meaning, the same for every face: the embeddings `--semantic` ranks by, kept
current (engine/embedding/upkeep.py), and never a ranking "by meaning" over a memory that
lacks them.

`by_meaning` runs a read that may rank by meaning (search, context_for, compact --topic):
in a process that keeps embeddings after writes (the Context's keeper: the MCP server),
through the keeper; else a few missing embeddings are computed first and more are refused
with the command that computes them (`embed`). `embed` is that command's verb;
`after_import` what an import does after its write. Progress goes to a callback the face
hands in (a bar on the command line's stderr); nothing here prints.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from engine.embedding.cache import Embedder, MemoryVectorCache, Progress, VectorCache
from engine.embedding.records import EmbeddingBacklog
from engine.embedding.upkeep import (
    UPKEEP_BATCH,
    EmbeddingUpdate,
    embedding_backlog,
    update_embeddings,
    with_current_embeddings,
)
from engine.errors import InvalidInput
from engine.service.context import Context

T = TypeVar("T")


def vector_cache(ctx: Context) -> VectorCache:
    """The file copy of embeddings under the engine's cache folder (one in memory without)."""
    if ctx.cache_folder is None:
        return MemoryVectorCache()
    from adapters.vector_cache import NpyVectorCache

    return NpyVectorCache(ctx.cache_folder / "embeddings", umask=ctx.umask)


def embedder(ctx: Context) -> Embedder:
    """The Context's embedding model (refused where there is none)."""
    if ctx.embedder is None:
        raise InvalidInput("semantic search is not available here", field="semantic")
    return ctx.embedder()


def embed_hint(ctx: Context) -> str:
    """What computes the missing embeddings, named as the program was called (a stage
    program's, `eem ask` or `python -m engine.ask`, names the main one's `embed`)."""
    main = "python -m engine" if ctx.prog.startswith("python -m engine") else \
        (ctx.prog.split() or ["eem"])[0]
    return f"compute them with `{main} embed`, or rank without semantic"


def by_meaning(ctx: Context, semantic: bool, read: Callable[[Embedder | None], T], *,
               progress: Progress | None = None) -> T:
    """`read(embedder)`: by words alone (None) unless `semantic`; by meaning as well over
    current embeddings only. Missing ones are computed first when few (`progress` after each
    batch) or by the keeper's thread; otherwise MissingEmbeddings says how many and what
    computes them."""
    if not semantic:
        return read(None)
    if ctx.keeper is not None:
        kept = ctx.keeper.embedder()
        return ctx.keeper.by_meaning(lambda: read(kept))
    model = embedder(ctx)
    return with_current_embeddings(ctx.store, model, lambda: read(model),
                                   hint=embed_hint(ctx), cache=vector_cache(ctx),
                                   progress=progress)


def backlog(ctx: Context) -> EmbeddingBacklog:
    """How many beliefs lack a current embedding of the Context's model."""
    return embedding_backlog(ctx.store, embedder(ctx).model_name)


def embed(ctx: Context, batch: int = UPKEEP_BATCH, progress: Progress | None = None
          ) -> EmbeddingUpdate:
    """Every belief's embedding brought up to date, `batch` at a time (`eem embed`)."""
    return update_embeddings(ctx.store, embedder(ctx), cache=vector_cache(ctx), batch=batch,
                             progress=progress)


@dataclass(frozen=True)
class AfterImport:
    """What an import did to the embeddings: `update` when it computed them; else the
    `backlog` left (a face says how many lack one and what computes them)."""

    backlog: EmbeddingBacklog | None
    update: EmbeddingUpdate | None = None

    @property
    def missing(self) -> int:
        return 0 if self.update is not None or self.backlog is None else self.backlog.missing

    def as_dict(self) -> dict[str, object]:
        if self.update is not None:
            return {"computed": True, **self.update.as_dict()}
        return {"computed": False, **(self.backlog.as_dict() if self.backlog else {})}


def after_import(ctx: Context, embed_them: bool | None, progress: Progress | None = None
                 ) -> AfterImport:
    """After an import: the embeddings computed when `embed_them`, or by default (None)
    when the memory keeps embeddings (it has recorded a model); never with False."""
    if embed_them is False or ctx.embedder is None:
        return AfterImport(None)
    model = ctx.embedder()
    left = embedding_backlog(ctx.store, model.model_name)
    if left.current or not (embed_them or left.kept):
        return AfterImport(left)
    return AfterImport(left, update_embeddings(ctx.store, model, cache=vector_cache(ctx),
                                               progress=progress))
