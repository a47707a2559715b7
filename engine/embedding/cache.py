"""Embeddings for the cluster strategies: computed once per belief text, kept in the store.

A belief's embedding is stored on it with the sha256 of the text it was computed from and the
model's name; `ensure_embeddings` computes only what is missing or stale (text or model
changed), in batches, and writes each batch in its own small write transaction (a cache, not
beliefs: a crash keeps what was done). All reads and writes are batched (UNWIND): no round
trip per belief.

Reading every stored vector over Bolt is slow (100k x 384 floats take 5 s and more), so a
`VectorCache` keyed by (model, text sha256) sits in front of the store: vectors found there are
not read again, only checked (the store's shas and models, no vectors) and written back where
the store lacks them. `MemoryVectorCache` lasts for the process (one run);
adapters/vector_cache.NpyVectorCache keeps them in a file, so a later run on the same machine
starts fast too. The vectors are numpy arrays (numpy comes with the embeddings extra).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from engine.change_records import ChangeEntry
from engine.embedding.records import StoredEmbedding, VectorTx
from engine.errors import ModelError
from engine.model import text_sha256
from engine.optional import numpy_module
from engine.store import Store

if TYPE_CHECKING:
    from engine.optional import ArrayLike, Matrix

EMBED_BATCH = 256  # texts per embed call, and per write transaction
READ_BATCH = 2000  # stored vectors per read transaction

PoolItem = tuple[str, str]
Progress = Callable[[int, int], None]  # (embeddings computed so far, to compute in all)


class Embedder(Protocol):
    """The one-method embedder (adapters.embeddings.SentenceTransformerEmbedder)."""

    model_name: str

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One normalized vector per text."""


class VectorCache(Protocol):
    """Vectors by (model, text sha256), handed out as whole matrices (no per-row objects:
    stacking 100k separate rows alone takes a second)."""

    def has(self, model: str, shas: Sequence[str]) -> list[bool]:
        """For each sha, whether its vector is held."""

    def rows(self, model: str, shas: Sequence[str]) -> Matrix:
        """The (len(shas), d) float32 matrix of their vectors; every sha must be held."""

    def put(self, model: str, shas: Sequence[str], rows: ArrayLike) -> None:
        """Keep row i as the vector of shas[i]."""


class VectorTable:
    """Vectors of one model in a few big float32 blocks, with an index sha -> row."""

    MAX_BLOCKS = 32

    def __init__(self) -> None:
        self._blocks: list[Matrix] = []
        self._index: dict[str, int] = {}  # sha -> row over the blocks, in order
        self._size = 0

    def __len__(self) -> int:
        return len(self._index)

    def __contains__(self, sha: str) -> bool:
        return sha in self._index

    def add(self, shas: Sequence[str], given: ArrayLike) -> None:
        np = numpy_module("embeddings")
        rows: Matrix = np.asarray(given, dtype=np.float32)
        keep = [j for j, s in enumerate(shas) if s not in self._index]
        if not keep:
            return
        if self._blocks and rows.shape[1] != self._blocks[0].shape[1]:
            raise ModelError(f"vectors of {rows.shape[1]} dimensions added to a table of "
                             f"{self._blocks[0].shape[1]}")
        if len(keep) < len(shas):
            rows, shas = rows[keep], [shas[j] for j in keep]
        for j, s in enumerate(shas):
            if s not in self._index:
                self._index[s] = self._size + j
        self._blocks.append(rows)
        self._size += len(rows)
        if len(self._blocks) > self.MAX_BLOCKS:
            self._blocks = [np.concatenate(self._blocks)]

    def gather(self, shas: Sequence[str]) -> Matrix:
        np = numpy_module("embeddings")
        where = np.fromiter((self._index[s] for s in shas), dtype=np.int64, count=len(shas))
        if len(self._blocks) > 1:
            self._blocks = [np.concatenate(self._blocks)]
        if not self._blocks:
            return np.zeros((len(shas), 0), dtype=np.float32)
        block = self._blocks[0]
        if len(where) == len(block) and np.array_equal(where, np.arange(len(block))):
            return block  # all of it, in order: no copy (callers do not write to it)
        return block[where]

    def items(self) -> tuple[list[str], Matrix]:
        """Every sha held and the matrix of their vectors, in the same order."""
        shas = sorted(self._index, key=self._index.__getitem__)
        return shas, self.gather(shas)


class MemoryVectorCache:
    """A VectorCache in memory, for one process."""

    def __init__(self) -> None:
        self._tables: dict[str, VectorTable] = {}

    def has(self, model: str, shas: Sequence[str]) -> list[bool]:
        table = self._tables.get(model)
        return [table is not None and s in table for s in shas]

    def rows(self, model: str, shas: Sequence[str]) -> Matrix:
        if not shas:
            return numpy_module("embeddings").zeros((0, 0), "float32")
        return self._tables[model].gather(shas)

    def put(self, model: str, shas: Sequence[str], rows: ArrayLike) -> None:
        self._tables.setdefault(model, VectorTable()).add(shas, rows)


def ensure_embeddings(
    store: Store[VectorTx],
    embedder: Embedder,
    pool: Sequence[PoolItem],
    *,
    cache: VectorCache | None = None,
    progress: Progress | None = None,
    embed_batch: int = EMBED_BATCH,
):
    """The embeddings of `pool`'s texts as a float32 array, row i for item i, computing and
    storing only those missing or stale in the store (and in `cache`)."""
    np = numpy_module("embeddings")
    cache = cache if cache is not None else MemoryVectorCache()
    model = embedder.model_name
    if not pool:
        return np.zeros((0, 0), dtype=np.float32)
    shas = [text_sha256(text) for _, text in pool]
    cached = dict(zip(shas, cache.has(model, shas)))
    keys = store.read(lambda tx: tx.embedding_keys([i for i, _ in pool]))
    current = {i for (i, _), sha in zip(pool, shas) if keys.get(i) == (sha, model)}

    # vectors the store has and the cache lacks: read them, in batches
    to_read = sorted({i for (i, _), sha in zip(pool, shas) if i in current and not cached[sha]})
    for start in range(0, len(to_read), READ_BATCH):
        chunk = to_read[start:start + READ_BATCH]
        rows = [e for e in store.read(lambda tx: tx.embeddings(chunk)).values()
                if e.model == model and not cached[e.sha256]]
        if rows:
            cache.put(model, [e.sha256 for e in rows],
                      np.asarray([e.vector for e in rows], dtype=np.float32))
            cached.update((e.sha256, True) for e in rows)

    # texts nobody has a vector for: compute them, storing each batch as it is done
    todo: dict[str, str] = {}  # sha -> text
    ids_of: dict[str, list[str]] = {}  # sha -> the pool ids with that text
    for (i, text), sha in zip(pool, shas):
        if not cached[sha]:
            todo.setdefault(sha, text)
            ids_of.setdefault(sha, []).append(i)
    pending = list(todo.items())
    for start in range(0, len(pending), embed_batch):
        batch = pending[start:start + embed_batch]
        vectors = np.asarray(embedder.embed([text for _, text in batch]), dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(batch):
            raise ModelError(f"the embedder returned {vectors.shape} for {len(batch)} texts",
                             model=model)
        batch_shas = [sha for sha, _ in batch]
        cache.put(model, batch_shas, vectors)
        _save(store, [StoredEmbedding(i, sha, model, v, todo[sha])
                      for sha, v in zip(batch_shas, vectors) for i in ids_of[sha]], embed_batch)
        if progress is not None:
            progress(start + len(batch), len(pending))

    # vectors the cache had but the store lacks (or holds stale): write them back
    back = [(i, text, sha) for (i, text), sha in zip(pool, shas)
            if i not in current and sha not in todo]
    if back:
        held = cache.rows(model, [sha for _, _, sha in back])
        _save(store, [StoredEmbedding(i, sha, model, v.tolist(), text)
                      for (i, text, sha), v in zip(back, held)], embed_batch)
    return cache.rows(model, shas)


def embedding_source(store: Store[VectorTx], embedder: Embedder, *,
                     cache: VectorCache | None = None,
                     progress: Progress | None = None):
    """A `vectors` function for engine.derive.sampling.make_sampler, backed by the store."""
    cache = cache if cache is not None else MemoryVectorCache()

    def vectors(items: Sequence[PoolItem]):
        return ensure_embeddings(store, embedder, items, cache=cache, progress=progress)

    return vectors


def _save(store: Store[VectorTx], rows: list[StoredEmbedding], batch: int) -> None:
    for start in range(0, len(rows), batch):
        chunk = rows[start:start + batch]
        store.write(lambda tx: tx.save_embeddings(chunk),
                    ChangeEntry("embeddings", {"beliefs": len(chunk)}))


def vectors_through_cache(embedder: Embedder, texts: Sequence[str], *,
                          cache: VectorCache | None = None, embed_batch: int = EMBED_BATCH):
    """The unit embeddings of `texts` (row i for text i) from `cache`, computing only the
    texts it lacks and keeping them there; the store is neither read nor written (for a
    read that must write nothing, such as `health`)."""
    np = numpy_module("embeddings")
    cache = cache if cache is not None else MemoryVectorCache()
    model = embedder.model_name
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    shas = [text_sha256(t) for t in texts]
    todo = {sha: t for sha, t, held in zip(shas, texts, cache.has(model, shas)) if not held}
    pending = list(todo.items())
    for start in range(0, len(pending), embed_batch):
        batch = pending[start:start + embed_batch]
        vectors = np.asarray(embedder.embed([t for _, t in batch]), dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(batch):
            raise ModelError(f"the embedder returned {vectors.shape} for {len(batch)} texts",
                             model=model)
        cache.put(model, [sha for sha, _ in batch], vectors)
    matrix = np.asarray(cache.rows(model, shas), dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms > 0, norms, 1.0)
