"""How many dedup candidate clusters the real networks give, printed as JSON lines.

    .venv/bin/python scripts/bench/dedup_real_networks.py [--threshold T ...]

For each network in ../shared/data/networks/ (EEM_NETWORKS_DIR): WIPES the database of
NEO4J_URI, imports it, and runs what `python -m engine.dedup --candidates` runs (the
all-MiniLM-L6-v2 embeddings computed where missing and stored, through the file cache in
~/.cache/eem-engine/embeddings, so a second run computes nothing; then the vector-index
search and complete-link clusters) at each threshold asked (default: the default). Prints,
per network and threshold, the IN beliefs, the candidate pairs, the clusters and their sizes,
the seconds, and the three strongest clusters' ids.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def main() -> None:
    from adapters.cypher_files import cypher
    from adapters.embeddings import SentenceTransformerEmbedder
    from adapters.formats import parse_network
    from adapters.neo4j.connection import Neo4jSettings, connect
    from adapters.neo4j.store import Neo4jStore
    from adapters.vector_cache import NpyVectorCache
    from engine import interchange
    from engine.dedup.stage import DEFAULT_THRESHOLD, DedupOptions, find_clusters
    from engine.pairs.source import CandidateSource
    from engine.wiring.settings import Settings

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threshold", type=float, action="append")
    args = parser.parse_args()
    thresholds = args.threshold or [DEFAULT_THRESHOLD]
    folder = Path(os.environ.get("EEM_NETWORKS_DIR")
                  or ROOT.parent / "shared" / "data" / "networks")
    settings = Neo4jSettings.from_env(os.environ)
    driver = connect(settings)
    store = Neo4jStore(driver, settings.database, settings.uri)
    embedder = SentenceTransformerEmbedder()
    cache = NpyVectorCache(Settings.of(os.environ).cache_folder / "embeddings")
    try:
        for path in sorted(folder.glob("*.json")):
            with driver.session(database=settings.database) as session:
                session.run(cypher("wipe_graph_batched")).consume()
            store.init_schema()
            network, stored = parse_network(json.loads(path.read_text()))
            interchange.import_network(store, network, stored)
            for threshold in thresholds:
                options = DedupOptions(threshold=threshold)
                source = CandidateSource(options, embedder=embedder, cache=cache)
                start = time.perf_counter()
                clusters, shas = find_clusters(store, source)
                sizes: dict[int, int] = {}
                for c in clusters:
                    sizes[len(c.members)] = sizes.get(len(c.members), 0) + 1
                print(json.dumps({
                    "bench": "dedup_real_network", "network": path.stem,
                    "beliefs": len(network.beliefs), "in_beliefs": len(shas),
                    "threshold": threshold, "k": options.k, "pairs": len(source._pairs or ()),
                    "clusters": len(clusters), "cluster_sizes": dict(sorted(sizes.items())),
                    "seconds": round(time.perf_counter() - start, 1),
                    "strongest": [list(c.members) for c in clusters[:3]]}), flush=True)
    finally:
        store.close()


if __name__ == "__main__":
    main()
