"""The outside things the stage programs are wired to: the chat model (models.py), the local
embedding model and the file copy of embeddings, derive's clustering, and forge's (and
premise review's) source reader. Each is made when a run needs it, its package imported
only then, so a command that does not need it never loads it. A test hands the programs a
StageParts of its own (a scripted model, a fixed embedder)."""
from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engine.wiring.models import ModelSpec, ask_backend, chat_model

if TYPE_CHECKING:
    from engine.graph import GraphTx
    from engine.ask.run import AskBackend
    from engine.derive.options import SamplerOptions
    from engine.derive.sampling import Sampler
    from engine.derive.sampling.sample import Clusterer
    from engine.embedding.cache import Embedder, VectorCache
    from engine.pairs.source import CandidateSource, Nearness
    from engine.sources.reader import SourceOptions, SourceReader
    from engine.stages.contract import ModelBinding
    from engine.store import Store

Progress = Callable[[int, int], None]


def sentence_embedder(model_name: str | None = None) -> Embedder:
    """The local sentence-transformers model (the packaged all-MiniLM-L6-v2 when None)."""
    from adapters.embeddings import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(model_name)


def kmeans() -> Clusterer:
    from adapters.clustering import kmeans_clusterer

    return kmeans_clusterer()


def file_reader(root: Path, options: SourceOptions) -> SourceReader:
    """Source files under `root` as `options` select and cut them."""
    from adapters.sources.reader import FileSourceReader
    from adapters.sources.walk import Filters

    return FileSourceReader(root, Filters(options.include, options.exclude,
                                          gitignore=options.gitignore),
                            max_bytes=options.max_bytes, chunk_tokens=options.chunk_tokens)


def vector_cache(cache_folder: Path | None, umask: int | None = None) -> VectorCache:
    """The file copy of embeddings (under the engine's cache folder), beside the store's;
    without a cache folder, one in memory."""
    if cache_folder is None:
        from engine.embedding.cache import MemoryVectorCache

        return MemoryVectorCache()
    from adapters.vector_cache import NpyVectorCache

    return NpyVectorCache(cache_folder / "embeddings", umask=umask)


@dataclass(frozen=True)
class StageParts:
    """How a stage program makes each outside thing it needs."""

    model: Callable[[ModelSpec], ModelBinding] = chat_model
    ask: Callable[[ModelSpec], AskBackend] = ask_backend
    embedder: Callable[[str | None], Embedder] = sentence_embedder  # by model name
    clusterer: Callable[[], Clusterer] = kmeans
    reader: Callable[[Path, SourceOptions], SourceReader] = file_reader

    def optional_embedder(self) -> Embedder | None:
        """The packaged embedder when the embeddings extra is installed, else None (forge
        and repair then do without: no nearest beliefs, bridges by their words)."""
        if self.embedder is sentence_embedder and \
                importlib.util.find_spec("sentence_transformers") is None:
            return None
        return self.embedder(None)

    def candidates(self, near: Nearness, stage: str, *, model: str | None,
                   cache: VectorCache) -> CandidateSource:
        """The neighbour search of dedup or contradictions (`stage`: whose verdicts count as
        judged): embeddings from the store, computed by the local `model` where missing;
        none by id."""
        from engine.pairs.source import CandidateSource

        if near.by_id:
            return CandidateSource(near, stage=stage)
        return CandidateSource(near, embedder=self.embedder(model), cache=cache, stage=stage)

    def sampler(self, store: Store[GraphTx], options: SamplerOptions, *, cache: VectorCache,
                progress: Progress | None = None) -> Sampler:
        """Derive's sampler as `options` ask: the cluster strategies get their embeddings
        from the store (computed by the local model where missing) and KMeans."""
        from engine.derive.sampling import make_sampler
        from engine.embedding.cache import embedding_source

        vectors = clusterer = None
        if options.clustered:
            vectors = embedding_source(store, self.embedder(options.embedding_model),
                                       cache=cache, progress=progress)
            clusterer = self.clusterer()
        return make_sampler(options.strategy, budget=options.budget, seed=options.seed,
                            n_clusters=options.n_clusters, vectors=vectors, clusterer=clusterer)
