"""Dedup candidate generation at 100k + 100k, printed as JSON lines.

    .venv/bin/python scripts/bench/dedup_candidates.py [--size 100000] [--reuse]

WIPES the database of NEO4J_URI (NEO4J_PASSWORD, else .neo4j/password), imports
scripts/bench/synthetic.py's network (N premises + N derived), and stores an embedding on
every belief. The vectors are seeded synthetic ones, random but clustered, not model
embeddings: embedding 200k texts with all-MiniLM-L6-v2 takes most of an hour on two cores.
Each belief gets a unit vector near one of N/50 topic centres (cosine about 0.35 to the others
of its topic), and 3% of them are near-copies of another belief (cosine about 0.95), a few of
those chained (copies of copies), so there are real clusters to find.

Then, in a fresh process (so its peak memory is the candidate step's alone), times what
`python -m engine.dedup --candidates` does: read the IN beliefs, get their embeddings through
derive's cache (checked current, none computed; read over Bolt, as a first run on a machine
does), the k-NN search (`--search auto`: block by block over the vectors above 10k beliefs,
engine/pairs/neighbours.py), complete-link clusters. Last, `dedup_index_rate` times the
vector-index search (`--search index`) on a sample and says what the whole network would take.
Targets (issue 14): under 60 s and under 2 GB of Python memory (peak RSS), where an N x N
similarity matrix would need 40 GB for 100k beliefs.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

MODEL = "bench-clustered-vectors"
DIM = 384


def emit(**fields) -> None:
    print(json.dumps(fields), flush=True)


class StoredOnlyEmbedder:
    """Every embedding is stored before the timed step: being asked for one is a failure."""

    model_name = MODEL

    def embed(self, texts):
        raise SystemExit(f"the benchmark expected every embedding stored; asked for {len(texts)}")


def clustered_rows(n: int, seed: int):
    import numpy as np

    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((max(1, n // 50), DIM)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    rows = rng.standard_normal((n, DIM)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    rows = 0.6 * centres[rng.integers(0, len(centres), n)] + 0.8 * rows
    copies = rng.choice(n, size=n * 3 // 100, replace=False)
    for i in copies:
        j = int(rng.integers(0, n))
        noise = rng.standard_normal(DIM).astype(np.float32)
        rows[i] = rows[j] / np.linalg.norm(rows[j]) + 0.33 * noise / np.linalg.norm(noise)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return rows


def open_store():
    from adapters.neo4j.connection import Neo4jSettings, connect
    from adapters.neo4j.store import Neo4jStore

    settings = Neo4jSettings.from_env(os.environ)
    return Neo4jStore(connect(settings), settings.database, settings.uri), settings


def setup(size: int) -> None:
    from synthetic import generate

    from adapters.cypher_files import cypher
    from adapters.formats import parse_network
    from engine import interchange
    from engine.embedding.cache import text_sha256
    from engine.embedding.records import StoredEmbedding

    store, settings = open_store()
    try:
        with store._driver.session(database=settings.database) as session:
            session.run(cypher("wipe_graph_batched")).consume()
        store.init_schema()
        network, stored = parse_network(generate(size))
        start = time.perf_counter()
        interchange.import_network(store, network, stored)
        import_s = time.perf_counter() - start
        pool = store.read(lambda tx: tx.in_belief_texts())
        rows = clustered_rows(len(pool), 11)
        start = time.perf_counter()
        for lo in range(0, len(pool), 1000):
            chunk = [StoredEmbedding(i, text_sha256(t), MODEL, rows[lo + j])
                     for j, (i, t) in enumerate(pool[lo:lo + 1000])]
            store.write(lambda tx, chunk=chunk: tx.save_embeddings(chunk))
        save_s = time.perf_counter() - start
        with store._driver.session(database=settings.database) as session:
            session.run(cypher("await_indexes"), {"seconds": 3600}).consume()
        emit(bench="dedup_setup", beliefs=len(network.beliefs), in_beliefs=len(pool),
             import_s=round(import_s, 1), store_embeddings_s=round(save_s, 1),
             index_online_s=round(time.perf_counter() - start - save_s, 1))
    finally:
        store.close()


def index_rate(sample: int, k: int, threshold: float) -> None:
    """The vector-index search on `sample` beliefs: ms per belief, and what the whole network
    would take at that rate."""
    store, _ = open_store()
    try:
        pool = store.read(lambda tx: tx.in_belief_texts())
        ids = [i for i, _ in pool][::max(1, len(pool) // sample)][:sample]
        start = time.perf_counter()
        for lo in range(0, len(ids), 500):
            chunk = ids[lo:lo + 500]
            store.read(lambda tx, chunk=chunk: tx.nearest_beliefs(chunk, k, threshold))
        per = (time.perf_counter() - start) / len(ids)
        emit(bench="dedup_index_rate", sampled=len(ids), ms_per_belief=round(per * 1000, 2),
             whole_network_s=round(per * len(pool)), in_beliefs=len(pool))
    finally:
        store.close()


def candidates(threshold: float, k: int, max_cluster: int, search: str) -> None:
    from engine.dedup.stage import DedupOptions, find_clusters
    from engine.pairs.source import CandidateSource

    store, _ = open_store()
    try:
        options = DedupOptions(threshold=threshold, k=k, max_cluster=max_cluster, search=search)
        source = CandidateSource(options, embedder=StoredOnlyEmbedder())
        start = time.perf_counter()
        cpu = time.process_time()
        clusters, shas = find_clusters(store, source, max_cluster)
        seconds = time.perf_counter() - start
        sizes: dict[int, int] = {}
        for c in clusters:
            sizes[len(c.members)] = sizes.get(len(c.members), 0) + 1
        emit(bench="dedup_candidates", search=search, in_beliefs=len(shas), threshold=threshold,
             k=k,
             max_cluster=max_cluster, pairs=len(source._pairs or ()), clusters=len(clusters),
             cluster_sizes=dict(sorted(sizes.items())), seconds=round(seconds, 1),
             python_cpu_s=round(time.process_time() - cpu, 1),
             peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
             target_seconds=60, target_rss_mb=2048)
    finally:
        store.close()


def main() -> None:
    from engine.dedup.stage import DEFAULT_K, DEFAULT_MAX_CLUSTER, DEFAULT_THRESHOLD

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--reuse", action="store_true", help="keep the network loaded before")
    parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD)
    parser.add_argument("--k", type=int, default=DEFAULT_K)
    parser.add_argument("--max-cluster", type=int, default=DEFAULT_MAX_CLUSTER)
    parser.add_argument("--search", default="auto", help="auto, index or vectors")
    parser.add_argument("--index-sample", type=int, default=2000, metavar="N",
                        help="time the vector-index search on N beliefs (0: skip)")
    parser.add_argument("--phase", choices=["all", "candidates"], default="all",
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase == "candidates":
        candidates(args.threshold, args.k, args.max_cluster, args.search)
        return
    if not args.reuse:
        setup(args.size)
    subprocess.run([sys.executable, __file__, "--phase", "candidates", "--search", args.search,
                    "--threshold", str(args.threshold), "--k", str(args.k),
                    "--max-cluster", str(args.max_cluster)], check=True)
    if args.index_sample:
        index_rate(args.index_sample, args.k, args.threshold)


if __name__ == "__main__":
    main()
