"""A derive round's prompt build, end to end, on the synthetic network in Neo4j (JSON lines).

    .venv/bin/python scripts/bench/derive_round.py [--size 100000] [--budget 300] [--rounds 3]
        [--reuse]

WIPES the database of NEO4J_URI (default the local server; NEO4J_PASSWORD, else
.neo4j/password), imports scripts/bench/synthetic.py's network (N premises + N derived), stores
a seeded random unit embedding on every premise (as prompt_build.py does: the target is for a
network whose embeddings are already stored) and warms the file cache; then, per strategy,
times what a round does before it calls the model: `read_view` (status and pool read, the
sampler, the derived-section fixpoint) and `build_prompt`. Round 1 of a `cluster` run includes
the KMeans fit. Target (issue 4): the prompt of a --cluster round on a 100k network with
embeddings stored in <= 2 s.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from prompt_build import MODEL, RandomUnitEmbedder, emit, timed, unit_rows  # noqa: E402

from adapters.clustering import kmeans_clusterer  # noqa: E402
from adapters.vector_cache import NpyVectorCache  # noqa: E402
from engine.embedding.cache import embedding_source, text_sha256  # noqa: E402
from engine.derive.prompt import build_prompt  # noqa: E402
from engine.derive.sampling import make_sampler  # noqa: E402
from engine.derive.view import read_view  # noqa: E402
from engine.embedding.records import StoredEmbedding  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--budget", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--reuse", action="store_true",
                        help="keep the network (and embeddings) a previous run of this size left")
    args = parser.parse_args()

    from synthetic import generate

    from adapters.cypher_files import cypher
    from adapters.formats import parse_network
    from adapters.neo4j.connection import Neo4jSettings, connect
    from adapters.neo4j.store import Neo4jStore
    from engine import interchange

    settings = Neo4jSettings.from_env(os.environ)
    driver = connect(settings)
    store = Neo4jStore(driver, settings.database, settings.uri)
    emit(bench="machine", cpus=os.cpu_count(), load_average=round(os.getloadavg()[0], 2))
    try:
        status = store.read(lambda tx: tx.status())
        if not (args.reuse and status.premises == args.size and status.derived == args.size):
            with driver.session(database=settings.database) as session:
                session.run(cypher("wipe_graph_batched")).consume()
            store.init_schema()
            network, stored = parse_network(generate(args.size))
            import_s, _ = timed(lambda: interchange.import_network(store, network, stored))
        else:
            import_s = None
        pool = store.read(lambda tx: tx.premise_pool())
        rows = unit_rows(len(pool), 0)
        shas = [text_sha256(t) for _, t in pool]
        started = time.perf_counter()
        if import_s is not None:
            for start in range(0, len(pool), 1000):
                chunk = [StoredEmbedding(i, sha, MODEL, rows[start + j]) for j, ((i, _), sha)
                         in enumerate(zip(pool[start:start + 1000], shas[start:start + 1000]))]
                store.write(lambda tx, chunk=chunk: tx.save_embeddings(chunk))
        emit(bench="setup", premises=len(pool), reused=import_s is None,
             import_s=round(import_s, 2) if import_s is not None else None,
             store_embeddings_s=round(time.perf_counter() - started, 2))

        with tempfile.TemporaryDirectory(prefix="eem-bench-cache-") as folder:
            NpyVectorCache(folder).put(MODEL, shas, rows)
            for strategy in ("alphabetical", "random", "cluster", "intra-cluster"):
                vectors = None
                if strategy in ("cluster", "intra-cluster"):
                    vectors = embedding_source(store, RandomUnitEmbedder(),
                                               cache=NpyVectorCache(folder))
                clusterer = kmeans_clusterer() if "cluster" in strategy else None
                sampler = make_sampler(strategy, budget=args.budget, seed=7, vectors=vectors,
                                       clusterer=clusterer)
                for r in range(args.rounds):
                    view_s, view = timed(lambda r=r: read_view(store, sampler, r,
                                                               budget=args.budget))
                    build_s, prompt = timed(lambda view=view: build_prompt(view))
                    total = view_s + build_s
                    emit(bench="prompt", strategy=strategy, round=r + 1, premises=len(pool),
                         shown=len(view.sample_ids), derived_shown=len(view.derived),
                         k=sampler.n_clusters, read_view_s=round(view_s, 3),
                         build_prompt_s=round(build_s, 4), total_s=round(total, 3),
                         prompt_chars=len(prompt.text), target_s=2.0, met=total <= 2.0)
    finally:
        store.close()


if __name__ == "__main__":
    main()
