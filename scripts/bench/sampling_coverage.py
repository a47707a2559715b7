"""Sampling coverage on the real networks, printed as JSON lines (no model, no database).

    .venv/bin/python scripts/bench/sampling_coverage.py [--rounds 10] [--budget 300]
        [--networks DIR] [--n-clusters K] [--seed 7] [--cache-dir DIR] [--random-vectors]

For each network in ../shared/data/networks/*.json (ftl-reasons network.json; skipped with a
line saying so when absent) and each strategy: the share of IN premises (truth_value IN, no
justifications) that appeared in at least one round's sample after each of R rounds, and the
target of issue 4: every IN premise shown within ceil(premises / budget) + k rounds (k = the
number of clusters) for alphabetical, random and intra-cluster. The pool does not change
between rounds (no model, so nothing is derived). `coverage` is the share after R rounds;
`coverage_after_round` runs on to the bound when that is later, to check the target.

The two `reasonsforge-*` lines are the behaviour this engine replaces, for comparison: the
same first N ids every round, and `random.sample` with the same seed every round.

The cluster strategies embed the premise texts with the real all-MiniLM-L6-v2 model (about a
hundred texts a second on two cores), keeping the vectors in a file cache (--cache-dir,
default $XDG_CACHE_HOME/eem-engine/embeddings) so a second run starts at once;
--random-vectors uses seeded random unit vectors instead (no model needed).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from adapters.clustering import kmeans_clusterer  # noqa: E402
from engine.embedding.cache import text_sha256  # noqa: E402
from engine.derive.sampling import default_n_clusters, make_sampler  # noqa: E402

NETWORKS = ROOT.parent / "shared" / "data" / "networks"
STRATEGIES = ("alphabetical", "random", "cluster", "intra-cluster")
TARGETED = ("alphabetical", "random", "intra-cluster")


def emit(**fields) -> None:
    print(json.dumps(fields), flush=True)


def in_premises(path: Path) -> list[tuple[str, str]]:
    nodes = json.loads(path.read_text(encoding="utf-8"))["nodes"]
    return sorted((i, n.get("text", "")) for i, n in nodes.items()
                  if n.get("truth_value") == "IN" and not n.get("justifications"))


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "eem-engine" / "embeddings"


def real_vectors(pool, cache_dir: Path):
    """The model's vectors for the pool's texts, through the file cache."""
    import numpy as np

    from adapters.embeddings import SentenceTransformerEmbedder
    from adapters.vector_cache import NpyVectorCache

    embedder = SentenceTransformerEmbedder()
    cache = NpyVectorCache(cache_dir)
    shas = [text_sha256(t) for _, t in pool]
    todo = {s: t for (_, t), s, held in zip(pool, shas, cache.has(embedder.model_name, shas))
            if not held}
    load_s = seconds = 0.0
    if todo:
        started = time.perf_counter()
        embedder.embed(["load the model"])  # import + load, timed apart from the throughput
        load_s = time.perf_counter() - started
        started = time.perf_counter()
        computed = embedder.embed(list(todo.values()))
        seconds = time.perf_counter() - started
        cache.put(embedder.model_name, list(todo), np.asarray(computed, dtype=np.float32))
    return cache.rows(embedder.model_name, shas), len(todo), seconds, load_s


def random_vectors(pool, seed: int):
    import numpy as np

    rows = np.random.default_rng(seed).normal(size=(len(pool), 384)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True), 0, 0.0, 0.0


def coverage(samples, premises: int) -> tuple[list[float], int | None]:
    seen: set[str] = set()
    shares, full_at = [], None
    for r, ids in enumerate(samples):
        seen |= set(ids)
        shares.append(round(len(seen) / premises, 4))
        if full_at is None and len(seen) == premises:
            full_at = r + 1
    return shares, full_at


def reasonsforge_samples(pool, budget: int, rounds: int, seed: int):
    ids = [i for i, _ in pool]
    yield "reasonsforge-alphabetical", [ids[:budget]] * rounds
    yield "reasonsforge-sample-fixed-seed", [
        random.Random(seed).sample(ids, min(budget, len(ids))) for _ in range(rounds)]


def run_network(path: Path, args) -> None:
    pool = in_premises(path)
    premises = len(pool)
    name = path.stem
    if not premises:
        emit(network=name, skipped="no IN premises")
        return
    vector_rows = None
    k_default = args.n_clusters or default_n_clusters(premises, args.budget)
    for strategy in STRATEGIES:
        vectors = None
        if strategy in ("cluster", "intra-cluster"):
            if vector_rows is None:
                if args.random_vectors:
                    vector_rows, computed, seconds, load_s = random_vectors(pool, args.seed)
                else:
                    vector_rows, computed, seconds, load_s = real_vectors(pool, args.cache_dir)
                row_of = {i: r for r, (i, _) in enumerate(pool)}
                emit(network=name, embeddings="random unit vectors" if args.random_vectors
                     else "all-MiniLM-L6-v2", premises=premises, computed=computed,
                     model_load_s=round(load_s, 2), embed_s=round(seconds, 2),
                     texts_per_s=round(computed / seconds, 1) if computed else None,
                     cpus=os.cpu_count(), load_average=round(os.getloadavg()[0], 2))

            def vectors(items, rows=vector_rows, row_of=row_of):
                return rows[[row_of[i] for i, _ in items]]
        sampler = make_sampler(strategy, budget=args.budget, seed=args.seed,
                               n_clusters=args.n_clusters, vectors=vectors,
                               clusterer=kmeans_clusterer() if "cluster" in strategy else None)
        started = time.perf_counter()
        samples = [sampler.sample(0, pool).ids]
        k = sampler.n_clusters or k_default
        bound = math.ceil(premises / args.budget) + k
        while len(samples) < max(args.rounds, bound):  # enough rounds to check the target
            samples.append(sampler.sample(len(samples), pool).ids)
        seconds = time.perf_counter() - started
        report(name, strategy, samples, premises, args, k, seconds, sampler)
    for strategy, samples in reasonsforge_samples(pool, args.budget, args.rounds, args.seed):
        report(name, strategy, samples, premises, args, k_default, None, None)


def report(name, strategy, samples, premises, args, k, seconds, sampler) -> None:
    shares, full_at = coverage(samples, premises)
    bound = math.ceil(premises / args.budget) + k
    line = dict(network=name, strategy=strategy, premises=premises, budget=args.budget,
                rounds=args.rounds, k=k, coverage_after_round=shares,
                coverage=shares[args.rounds - 1], all_shown_after=full_at, bound=bound)
    if strategy in TARGETED:
        line["target"] = "met" if full_at is not None and full_at <= bound else "not met"
    if sampler is not None and sampler.n_clusters:
        line["cluster_sizes"] = [len(s) for s in getattr(sampler, "_sweeps", [])]
    if seconds is not None:
        line["sampling_s"] = round(seconds, 3)
    emit(**line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networks", type=Path, default=NETWORKS)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--budget", type=int, default=300)
    parser.add_argument("--n-clusters", type=int, default=None)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--cache-dir", type=Path, default=default_cache_dir())
    parser.add_argument("--random-vectors", action="store_true")
    args = parser.parse_args()
    files = sorted(args.networks.glob("*.json")) if args.networks.is_dir() else []
    if not files:
        emit(skipped=f"no networks at {args.networks}")
        return
    for path in files:
        run_network(path, args)


if __name__ == "__main__":
    main()
