"""Benchmarks of the registry: the markdown export and import of the synthetic network, and
the static wiki of it and of a real network. JSON lines on stdout.

    python scripts/bench/registry_bench.py [--size 100000] [--real PATH] [--out DIR]

For N premises + N derived (scripts/bench/synthetic.py): export (read the graph, write the
markdown text), import (parse the markdown, then import into an empty graph), the wiki with
id-prefix topics in pages of 500 beliefs. For --real (a network.json): the wiki with
embedding-cluster topics, run twice, so the second run finds the embeddings cached (in the
store and in the file cache). Targets (issue 24): export < 10 s and import < 20 s at
100k+100k; wiki of the real network < 30 s with embeddings cached; wiki of 100k+100k < 5 min.

WARNING: it WIPES the database at NEO4J_URI.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from synthetic import generate

from adapters.cypher_files import cypher
from adapters.formats import parse_network, read_network_file
from adapters.markdown_registry import dump_markdown, parse_markdown
from adapters.neo4j.connection import Neo4jSettings, connect
from adapters.neo4j.store import Neo4jStore
from engine import interchange
from engine.service import reading
from engine.service.context import Context


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def emit(**fields) -> None:
    print(json.dumps(fields), flush=True)


def fresh(store: Neo4jStore, driver, database: str) -> None:
    with driver.session(database=database) as session:
        session.run(cypher("wipe_graph_batched")).consume()
    store.init_schema()


def wiki(store: Neo4jStore, out: Path, topics: str) -> float:
    from engine.wiring.context import SharedEmbedder

    ctx = Context(store, "bench", embedder=SharedEmbedder())
    seconds, _ = timed(lambda: reading.wiki(ctx, reading.WikiOptions(str(out), "bench", "",
                                                                     topics, 500)))
    return seconds


def synthetic(size: int, store: Neo4jStore, driver, database: str, out: Path) -> None:
    network, stored = parse_network(generate(size))
    total = len(network.beliefs)
    fresh(store, driver, database)
    seconds, _ = timed(lambda: interchange.import_network(store, network, stored))
    emit(workload="import_json", size=total, seconds=round(seconds, 2))

    read_s, exported = timed(lambda: interchange.export_network(store))
    dump_s, text = timed(lambda: dump_markdown(exported))
    emit(workload="markdown_export", size=total, seconds=round(read_s + dump_s, 2),
         read_graph_s=round(read_s, 2), write_text_s=round(dump_s, 2),
         megabytes=round(len(text.encode("utf-8")) / 1e6, 1), target_s=10)

    fresh(store, driver, database)
    parse_s, parsed = timed(lambda: parse_markdown(text))
    load_s, _ = timed(lambda: interchange.import_network(store, *parsed))
    emit(workload="markdown_import", size=total, seconds=round(parse_s + load_s, 2),
         parse_s=round(parse_s, 2), import_s=round(load_s, 2), target_s=20)

    seconds = wiki(store, out / "synthetic-site", "prefix")
    pages = len(list((out / "synthetic-site").glob("*.html")))
    emit(workload="wiki_prefix_topics", size=total, seconds=round(seconds, 1), pages=pages,
         target_s=300)


def real(path: Path, store: Neo4jStore, driver, database: str, out: Path) -> None:
    network, stored = read_network_file(path)
    fresh(store, driver, database)
    interchange.import_network(store, network, stored)
    first = wiki(store, out / "real-site-1", "clusters")
    cached = wiki(store, out / "real-site-2", "clusters")
    emit(workload="wiki_clusters_real", network=path.name, size=len(network.beliefs),
         first_run_s=round(first, 1), embeddings_cached_s=round(cached, 1), target_s=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000, help="N (premises = derived = N)")
    parser.add_argument("--real", type=Path, help="a real network.json for the wiki run")
    parser.add_argument("--out", type=Path, help="where the sites go (default: a temp dir)")
    args = parser.parse_args()
    settings = Neo4jSettings.from_env(os.environ)
    driver = connect(settings)
    store = Neo4jStore(driver, settings.database, settings.uri)
    out = args.out or Path(tempfile.mkdtemp(prefix="registry-bench-"))
    try:
        if args.real:
            real(args.real, store, driver, settings.database, out)
        if args.size:
            synthetic(args.size, store, driver, settings.database, out)
    finally:
        store.close()


if __name__ == "__main__":
    main()
