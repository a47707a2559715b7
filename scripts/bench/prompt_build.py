"""Sampling and clustering time on a synthetic 100k-premise pool, printed as JSON lines.

    .venv/bin/python scripts/bench/prompt_build.py [--size 100000] [--budget 300]
        [--rounds 5] [--neo4j]

The vectors are seeded random unit vectors of 384 dimensions, not model embeddings: embedding
100k texts with the real model takes 15+ minutes on two cores, and the target (issue 4) is for
a network whose embeddings are already stored. Random vectors are the hard case for KMeans
(no structure to converge to).

Without --neo4j (no database needed):
- `file_cache`: writing the 100k vectors to adapters/vector_cache.NpyVectorCache and reading
  them back with a fresh instance (what a new run on the same machine does);
- `sampling`, per strategy: the first round (for the cluster strategies: KMeans fit on a
  10k subsample and assignment of all 100k), later rounds, and a round after the pool changed
  (10 premises gone OUT, 10 new ones).

With --neo4j (use --skip-offline too, so that the first round pays for importing
scikit-learn as a derive process does; --reuse keeps a network loaded before): WIPES the
database of NEO4J_URI (default the local server; NEO4J_PASSWORD, else .neo4j/password),
imports scripts/bench/synthetic.py's network (N premises + N derived),
stores an embedding on every premise, then times what a derive round does before building the
prompt (`round`): read the pool (`premise_pool`, one collected list), get the vectors
(`embedding_source`: the store's hashes checked, the vectors from the warm file cache; nothing
computed), sample. `cold_vectors` is the same vector step with no file cache: every vector read
over Bolt. `list_beliefs_pool` is the pool read through `list_beliefs` instead (its `b {.*}`
ships every stored vector too), for comparison.
The prompt text itself (grouping, derived section) is engine/derive/prompt.py's, not timed
here. Target: round 1 of a --cluster run on a 100k network with embeddings stored <= 2 s.
`*_cpu_s` is this process's CPU time (the database's is not in it): on a shared machine it
says what the wall time would be without the other load.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

from adapters.clustering import kmeans_clusterer  # noqa: E402
from adapters.vector_cache import NpyVectorCache  # noqa: E402
from engine.embedding.cache import (  # noqa: E402
    MemoryVectorCache,
    embedding_source,
    ensure_embeddings,
    text_sha256,
)
from engine.derive.sampling import STRATEGIES, make_sampler  # noqa: E402
from engine.embedding.records import StoredEmbedding  # noqa: E402

DIM = 384
MODEL = "bench-random-unit-384"


def emit(**fields) -> None:
    print(json.dumps(fields), flush=True)


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def unit_rows(n: int, seed: int) -> np.ndarray:
    rows = np.random.default_rng(seed).normal(size=(n, DIM)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


class RandomUnitEmbedder:
    """An Embedder for the synthetic case: a seeded random unit vector per text."""

    model_name = MODEL

    def __init__(self) -> None:
        self.embedded = 0

    def embed(self, texts):
        self.embedded += len(texts)
        return [unit_rows(1, int(text_sha256(t)[:8], 16))[0].tolist() for t in texts]


def synthetic_pool(size: int) -> list[tuple[str, str]]:
    topics = [f"topic{t:03d}" for t in range(200)]
    return sorted((f"{topics[i % 200]}-fact-{i:06d}", f"Observed fact number {i} about "
                   f"{topics[i % 200]}.") for i in range(size))


def rounds_of(strategy, pool, vectors, args, label: str) -> None:
    sampler = make_sampler(strategy, budget=args.budget, seed=7, vectors=vectors,
                           clusterer=kmeans_clusterer() if "cluster" in strategy else None)
    cpu = time.process_time()
    first, sample = timed(lambda: sampler.sample(0, pool))
    cpu = time.process_time() - cpu
    later = [timed(lambda r=r: sampler.sample(r, pool))[0] for r in range(1, args.rounds)]
    changed = pool[10:] + [(f"zz-new-{i}", f"a new premise {i}") for i in range(10)]
    changed_s, _ = timed(lambda: sampler.sample(args.rounds, changed))
    emit(bench=label, strategy=strategy, size=len(pool), budget=args.budget,
         k=sampler.n_clusters, shown=len(sample.ids), first_round_s=round(first, 3),
         first_round_cpu_s=round(cpu, 3),
         later_round_s=round(statistics.median(later), 4) if later else None,
         changed_pool_round_s=round(changed_s, 4))


def offline(args) -> None:
    pool = synthetic_pool(args.size)
    rows = unit_rows(len(pool), 0)
    shas = [text_sha256(t) for _, t in pool]
    with tempfile.TemporaryDirectory(prefix="eem-bench-cache-") as folder:
        write_s, _ = timed(lambda: NpyVectorCache(folder).put(MODEL, shas, rows))
        fresh = NpyVectorCache(folder)
        load_s, _ = timed(lambda: fresh.has(MODEL, shas))
        gather_s, got = timed(lambda: fresh.rows(MODEL, shas))
        assert np.array_equal(got, rows)
        emit(bench="file_cache", size=len(pool), dim=DIM, write_s=round(write_s, 3),
             load_and_check_s=round(load_s, 3), gather_s=round(gather_s, 3),
             megabytes=round(sum(p.stat().st_size for p in Path(folder).rglob("*.npy")) / 2**20, 1))
    row_of = {i: r for r, (i, _) in enumerate(pool)}
    extra = {f"zz-new-{i}": unit_rows(1, 1000 + i)[0] for i in range(10)}

    def vectors(items):
        return np.stack([rows[row_of[i]] if i in row_of else extra[i] for i, _ in items])

    for strategy in STRATEGIES:
        rounds_of(strategy, pool, vectors, args, "sampling")


def with_neo4j(args) -> None:
    from synthetic import generate

    from adapters.cypher_files import cypher
    from adapters.formats import parse_network
    from adapters.neo4j.connection import Neo4jSettings, connect
    from adapters.neo4j.store import Neo4jStore
    from engine import interchange
    from engine.model import Truth
    from engine.tms.records import BeliefFilter

    def view_premise_pool(tx):  # the pool as list_beliefs gives it (b {.*}: vectors too)
        return [(b.id, b.text) for b in tx.list_beliefs(BeliefFilter(Truth.IN, premises=True))]

    settings = Neo4jSettings.from_env(os.environ)
    driver = connect(settings)
    store = Neo4jStore(driver, settings.database, settings.uri)
    try:
        embedder = RandomUnitEmbedder()
        if args.reuse:
            pool = store.read(lambda tx: tx.premise_pool())
            keys = store.read(lambda tx: tx.embedding_keys([i for i, _ in pool]))
            if len(pool) != args.size or len(keys) != len(pool):
                raise SystemExit(f"--reuse: the database has {len(pool)} premises and "
                                 f"{len(keys)} embeddings, not {args.size}: run without it")
            rows = unit_rows(len(pool), 0)
            shas = [text_sha256(t) for _, t in pool]
            time_rounds(args, store, embedder, pool, rows, shas, view_premise_pool)
            return
        with driver.session(database=settings.database) as session:
            session.run(cypher("wipe_graph_batched")).consume()
        store.init_schema()
        network, stored = parse_network(generate(args.size))
        import_s, _ = timed(lambda: interchange.import_network(store, network, stored))
        pool = store.read(lambda tx: tx.premise_pool())
        rows = unit_rows(len(pool), 0)
        shas = [text_sha256(t) for _, t in pool]

        def save_all():
            for start in range(0, len(pool), 1000):
                chunk = [StoredEmbedding(i, sha, MODEL, rows[start + j])
                         for j, ((i, _), sha) in enumerate(zip(pool[start:start + 1000],
                                                               shas[start:start + 1000]))]
                store.write(lambda tx, chunk=chunk: tx.save_embeddings(chunk))

        save_s, _ = timed(save_all)
        emit(bench="neo4j_setup", uri=settings.uri, beliefs=len(network.beliefs),
             premises=len(pool), import_s=round(import_s, 2), store_embeddings_s=round(save_s, 2))
        time_rounds(args, store, embedder, pool, rows, shas, view_premise_pool)
    finally:
        store.close()


def time_rounds(args, store, embedder, pool, rows, shas, view_premise_pool) -> None:
    """What a derive round does before the prompt, against the loaded network."""
    list_s, via_list = timed(lambda: store.read(lambda tx: view_premise_pool(tx)))
    pool_s, _ = timed(lambda: store.read(lambda tx: tx.premise_pool()))
    keys_s, _ = timed(lambda: store.read(lambda tx: tx.embedding_keys([i for i, _ in pool])))
    emit(bench="pool_read", premises=len(pool), premise_pool_s=round(pool_s, 3),
         list_beliefs_pool_s=round(list_s, 3), same=via_list == pool,
         embedding_keys_s=round(keys_s, 3))

    cold_s, _ = timed(lambda: ensure_embeddings(store, embedder, pool,
                                                cache=MemoryVectorCache()))
    emit(bench="cold_vectors", premises=len(pool), seconds=round(cold_s, 2),
         computed=embedder.embedded)

    with tempfile.TemporaryDirectory(prefix="eem-bench-cache-") as folder:
        NpyVectorCache(folder).put(MODEL, shas, rows)
        for strategy in ("cluster", "intra-cluster"):
            cache = NpyVectorCache(folder)  # a new run: the file cache is on disk
            source = embedding_source(store, embedder, cache=cache)
            parts: dict[str, float] = {}

            def vectors(items, source=source, parts=parts):
                seconds, out = timed(lambda: source(items))
                parts["vectors_s"] = parts.get("vectors_s", 0.0) + seconds
                return out

            with_import = "sklearn.cluster" not in sys.modules
            started, cpu = time.perf_counter(), time.process_time()
            sampler = make_sampler(strategy, budget=args.budget, seed=7, vectors=vectors,
                                   clusterer=kmeans_clusterer() if "cluster" in strategy else None)
            read_s, now = timed(lambda: store.read(lambda tx: tx.premise_pool()))
            sample_s, sample = timed(lambda: sampler.sample(0, now))
            total, cpu = time.perf_counter() - started, time.process_time() - cpu
            later = []
            for r in range(1, args.rounds):
                t, _ = timed(lambda r=r: sampler.sample(r, store.read(
                    lambda tx: tx.premise_pool())))
                later.append(t)
            emit(bench="round", strategy=strategy, premises=len(now), k=sampler.n_clusters,
                 shown=len(sample.ids), first_round_s=round(total, 3),
                 first_round_cpu_s=round(cpu, 3), pool_read_s=round(read_s, 3),
                 vectors_s=round(parts.get("vectors_s", 0.0), 3),
                 fit_and_sample_s=round(sample_s - parts.get("vectors_s", 0.0), 3),
                 later_round_s=round(statistics.median(later), 3) if later else None,
                 computed=embedder.embedded, includes_sklearn_import=with_import,
                 target_s=2.0, met=total <= 2.0,
                 load_average=round(os.getloadavg()[0], 2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--budget", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--neo4j", action="store_true",
                        help="also time the store path (wipes the database of NEO4J_URI)")
    parser.add_argument("--reuse", action="store_true",
                        help="with --neo4j: keep the network an earlier --neo4j run loaded")
    parser.add_argument("--skip-offline", action="store_true")
    args = parser.parse_args()
    emit(bench="machine", cpus=os.cpu_count(), load_average=round(os.getloadavg()[0], 2))
    if not args.skip_offline:
        import_s, _ = timed(lambda: __import__("sklearn.cluster"))
        emit(bench="sklearn_import", seconds=round(import_s, 3),
             note="once per process; the offline first_round_s figures do not include it")
    if not args.skip_offline:
        offline(args)
    if args.neo4j:
        with_neo4j(args)


if __name__ == "__main__":
    main()
