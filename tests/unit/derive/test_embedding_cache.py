"""ensure_embeddings over the FakeStore, and the file cache (adapters/vector_cache.py).

`WordHashEmbedder` is a real, if crude, Embedder (hashed bag of words, normalized); it
counts what it was asked to embed, so the tests can see that only what is missing or stale
is computed.
"""
from __future__ import annotations

import hashlib
import math

import numpy as np
import pytest

from adapters.vector_cache import MAX_SEGMENTS, NpyVectorCache, model_slug
from engine.embedding.cache import (
    MemoryVectorCache,
    embedding_source,
    ensure_embeddings,
    text_sha256,
)
from engine.embedding.records import StoredEmbedding
from engine.model import Belief, Justification
from tests.fakes import FakeStore


class WordHashEmbedder:
    def __init__(self, model_name: str = "word-hash-16", dim: int = 16):
        self.model_name = model_name
        self.dim = dim
        self.calls: list[list[str]] = []

    @property
    def embedded(self) -> list[str]:
        return [t for call in self.calls for t in call]

    def embed(self, texts):
        self.calls.append(list(texts))
        out = []
        for t in texts:
            v = [0.0] * self.dim
            for w in t.lower().split():
                v[int(hashlib.md5(w.encode()).hexdigest(), 16) % self.dim] += 1.0
            n = math.sqrt(sum(x * x for x in v)) or 1.0
            out.append([x / n for x in v])
        return out


def network(store: FakeStore, n: int = 10) -> list[tuple[str, str]]:
    beliefs = [Belief(f"p-{i:02d}", f"premise number {i} about topic {i % 3}") for i in range(n)]
    beliefs.append(Belief("d-1", "derived", justifications=(Justification(("p-00", "p-01")),)))
    store.write(lambda tx: (tx.create_beliefs(beliefs), tx.relabel([b.id for b in beliefs])))
    return store.read(lambda tx: tx.premise_pool())


def test_the_pool_is_the_in_premises_by_id_filtered_by_topic():
    store = FakeStore()
    pool = network(store)
    assert [i for i, _ in pool] == [f"p-{i:02d}" for i in range(10)]  # no derived belief
    topical = store.read(lambda tx: tx.premise_pool(["TOPIC 1", "p-02"]))
    assert [i for i, _ in topical] == ["p-01", "p-02", "p-04", "p-07"]


def test_first_call_computes_and_stores_everything_in_batches():
    store = FakeStore()
    pool = network(store)
    embedder = WordHashEmbedder()
    writes_before = store.writes
    vectors = ensure_embeddings(store, embedder, pool, embed_batch=4)
    assert vectors.shape == (10, 16) and vectors.dtype == np.float32
    assert [len(c) for c in embedder.calls] == [4, 4, 2]
    assert store.writes - writes_before == 3  # one small write transaction per batch
    stored = store.read(lambda tx: tx.embeddings([i for i, _ in pool]))
    for row, (i, text) in enumerate(pool):
        assert stored[i].sha256 == text_sha256(text)
        assert stored[i].model == "word-hash-16"
        assert np.allclose(stored[i].vector, vectors[row])


def test_nothing_is_recomputed_when_the_store_has_it_and_only_stale_texts_are():
    store = FakeStore()
    pool = network(store)
    ensure_embeddings(store, WordHashEmbedder(), pool)
    again = WordHashEmbedder()
    first = ensure_embeddings(store, again, pool)  # a new run: read back from the store
    assert again.calls == []
    changed = [(i, t + " (revised)" if i == "p-03" else t) for i, t in pool]
    third = WordHashEmbedder()
    vectors = ensure_embeddings(store, third, changed)
    assert third.embedded == ["premise number 3 about topic 0 (revised)"]
    assert store.read(lambda tx: tx.embedding_keys(["p-03"]))["p-03"][0] == \
        text_sha256("premise number 3 about topic 0 (revised)")
    assert np.allclose(np.delete(vectors, 3, axis=0), np.delete(first, 3, axis=0))


def test_another_model_makes_every_stored_vector_stale():
    store = FakeStore()
    pool = network(store)
    ensure_embeddings(store, WordHashEmbedder(), pool)
    other = WordHashEmbedder(model_name="word-hash-8", dim=8)
    vectors = ensure_embeddings(store, other, pool)
    assert len(other.embedded) == 10 and vectors.shape == (10, 8)
    keys = store.read(lambda tx: tx.embedding_keys([i for i, _ in pool]))
    assert {model for _, model in keys.values()} == {"word-hash-8"}


def test_the_cache_saves_store_reads_and_is_written_back_where_the_store_lacks_it():
    store = FakeStore()
    pool = network(store)
    cache = MemoryVectorCache()
    ensure_embeddings(store, WordHashEmbedder(), pool, cache=cache)
    fresh = FakeStore()  # another database with the same texts
    pool2 = network(fresh)
    embedder = WordHashEmbedder()
    ensure_embeddings(fresh, embedder, pool2, cache=cache)
    assert embedder.calls == []  # served by the cache ...
    assert len(fresh.read(lambda tx: tx.embedding_keys([i for i, _ in pool2]))) == 10  # ... and stored


def test_the_same_text_is_embedded_once():
    store = FakeStore()
    beliefs = [Belief("a", "same words"), Belief("b", "same words"), Belief("c", "other")]
    store.write(lambda tx: (tx.create_beliefs(beliefs), tx.relabel(["a", "b", "c"])))
    pool = store.read(lambda tx: tx.premise_pool())
    embedder = WordHashEmbedder()
    vectors = ensure_embeddings(store, embedder, pool)
    assert sorted(embedder.embedded) == ["other", "same words"]
    assert np.allclose(vectors[0], vectors[1])
    assert len(store.read(lambda tx: tx.embeddings(["a", "b", "c"]))) == 3


def test_embedding_source_feeds_a_sampler_and_reports_progress():
    from adapters.clustering import kmeans_labels
    from engine.derive.sampling import make_sampler

    store = FakeStore()
    pool = network(store, 30)
    seen = []
    vectors = embedding_source(store, WordHashEmbedder(), progress=lambda d, t: seen.append((d, t)))
    sampler = make_sampler("intra-cluster", budget=10, seed=0, n_clusters=3, vectors=vectors,
                           clusterer=kmeans_labels)
    sample = sampler.sample(0, pool)
    assert 0 < len(sample.ids) <= 10 and sample.cluster == 0
    assert seen[-1] == (30, 30)


def test_similar_beliefs_in_the_fake_ranks_by_cosine():
    store = FakeStore()
    pool = network(store, 4)
    ensure_embeddings(store, WordHashEmbedder(), pool)
    [q] = WordHashEmbedder().embed(["premise number 2 about topic 2"])
    best = store.read(lambda tx: tx.similar_beliefs(q, 2))
    assert best[0][0] == "p-02" and best[0][1] == pytest.approx(1.0)


# --- the file cache -----------------------------------------------------------------------
def vecs(n: int, dim: int = 8, seed: int = 0) -> tuple[list[str], np.ndarray]:
    rng = np.random.default_rng(seed)
    return ([text_sha256(f"t{seed}-{i}") for i in range(n)],
            rng.normal(size=(n, dim)).astype(np.float32))


def test_file_cache_round_trips_across_instances(tmp_path):
    NpyVectorCache(tmp_path)  # constructing touches nothing
    assert list(tmp_path.iterdir()) == []
    a = NpyVectorCache(tmp_path)
    shas, rows = vecs(50)
    a.put("m", shas, rows)
    a.put("m", *vecs(5, seed=1))
    a.put("m", shas[:3], rows[:3] + 1)  # already held: kept as first written
    b = NpyVectorCache(tmp_path)
    assert b.has("m", shas + ["0" * 64]) == [True] * 50 + [False]
    assert np.array_equal(b.rows("m", shas[::-1]), rows[::-1])
    assert b.has("other-model", shas[:1]) == [False]
    assert (tmp_path / model_slug("m")).is_dir()


def test_file_cache_merges_segments_and_skips_a_damaged_one(tmp_path):
    cache = NpyVectorCache(tmp_path)
    every: list[str] = []
    for seed in range(MAX_SEGMENTS + 3):
        shas, rows = vecs(3, seed=seed)
        cache.put("m", shas, rows)
        every += shas
    folder = tmp_path / model_slug("m")
    assert len(list(folder.glob("seg-*.npy"))) <= MAX_SEGMENTS
    (folder / "seg-zzzz-damaged.npy").write_bytes(b"not a numpy file")
    again = NpyVectorCache(tmp_path)
    assert all(again.has("m", every))
    assert np.array_equal(again.rows("m", every[-3:]), vecs(3, seed=MAX_SEGMENTS + 2)[1])


def test_an_unwritable_cache_directory_only_costs_time(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("in the way")
    cache = NpyVectorCache(blocker / "cache")  # its parent is a file: mkdir fails
    shas, rows = vecs(2)
    cache.put("m", shas, rows)
    assert cache.error and "cannot write the embedding cache" in cache.error
    assert np.array_equal(cache.rows("m", shas), rows)  # still held for this process


def test_ensure_embeddings_through_the_file_cache_reads_nothing_the_second_time(tmp_path):
    store = FakeStore()
    pool = network(store)
    first = ensure_embeddings(store, WordHashEmbedder(), pool, cache=NpyVectorCache(tmp_path))
    reads = []

    class CountingStore(FakeStore):
        def read(self, work):
            reads.append(work)
            return super().read(work)

    counting = CountingStore()
    counting.state = store.state
    again = ensure_embeddings(counting, WordHashEmbedder(), pool,
                              cache=NpyVectorCache(tmp_path))
    assert np.array_equal(first, again)
    assert len(reads) == 1  # the hash check only; no vector read


def test_stored_embedding_rows_only_land_on_existing_beliefs():
    store = FakeStore()
    network(store, 2)
    n = store.write(lambda tx: tx.save_embeddings([
        StoredEmbedding("p-00", "s", "m", [1.0, 0.0]),
        StoredEmbedding("nope", "s", "m", [1.0, 0.0]),
    ]))
    assert n == 1
