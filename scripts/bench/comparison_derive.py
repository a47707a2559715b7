"""The derive workload: one round's prompt from the store, for each sampling strategy, and
the coverage of 10 rounds (see comparison.py)."""
from __future__ import annotations

import json
import statistics
from pathlib import Path

from comparison_bench import Bench
from comparison_record import Samples, record_group, rotated, say, timed

STRATEGIES = ("alphabetical", "random", "cluster", "intra-cluster")
BUDGET, SEED, ROUNDS = 300, 7, 10


def derive(bench: Bench, path: Path, size: int, network: str, vectors_kind: str) -> None:
    import numpy as np

    from adapters.clustering import kmeans_clusterer
    from engine.embedding.cache import embedding_source
    from engine.derive.prompt import build_prompt
    from engine.derive.sampling import make_sampler
    from engine.derive.view import read_view

    if "ours" not in bench.args.impl:
        bench.rec.line({"skipped": "derive: needs our side (the vectors come from it)"})
        return
    rf = bench.peers.get("reasonsforge")
    sides = [bench.ours] + ([rf] if rf else [])
    bench.ensure_loaded(path, sides)
    store = bench.ours.store
    pool = store.read(lambda tx: tx.premise_pool())
    data = json.loads(path.read_text(encoding="utf-8"))
    premises = sorted((i, n["text"]) for i, n in data["nodes"].items()
                      if not n.get("justifications"))
    embedder, cache, note = embedder_for(vectors_kind)
    source = embedding_source(store, embedder, cache=cache)
    say(f"derive {network}: embeddings for {len(premises)} premises (untimed set-up)")
    rows = source(premises)  # computes what is missing, stores it in Neo4j and the cache
    failed: dict[str, str] = {}
    if rf is not None:
        npz = bench.workdir / f"vectors-{network}.npz"
        np.savez(npz, ids=np.array([i for i, _ in premises]),
                 vectors=np.asarray(rows, dtype=np.float32))
        bench.attempt(failed, rf.name, "vectors", lambda: rf.call("vectors", npz=str(npz)))
    # warm-up, untimed: the first derive queries of a server's life compile their plans
    bench.attempt(failed, "ours", "warm-up", lambda: build_prompt(read_view(
        store, make_sampler("alphabetical", budget=BUDGET, seed=SEED), 0, budget=BUDGET)))
    if rf is not None:
        bench.attempt(failed, rf.name, "warm-up", lambda: rf.call(
            "prompt", db=rf.db, strategy="alphabetical", round_num=1, budget=BUDGET,
            seed=SEED))
    names = [side.name for side in sides]
    rf_cluster_rounds = bench.args.rf_cluster_rounds or (2 if size <= 20_000 else 1)
    for strategy in STRATEGIES:
        say(f"derive {network}: {ROUNDS} rounds of {strategy}")
        sampler = make_sampler(strategy, budget=BUDGET, seed=SEED,
                               vectors=source if "cluster" in strategy else None,
                               clusterer=kmeans_clusterer() if "cluster" in strategy else None)
        rounds = {name: Samples() for name in names}
        shown: dict[str, list] = {name: [] for name in names}
        pools = {"ours": len(pool)}
        parts: dict[str, dict[str, list]] = {name: {} for name in names}

        def ours_round(r: int) -> None:
            view_s, view = timed(lambda: read_view(store, sampler, r, budget=BUDGET))
            build_s, prompt = timed(lambda: build_prompt(view))
            rounds["ours"].add(view_s + build_s, None)
            shown["ours"].append(prompt.sample_ids)
            parts["ours"].setdefault("read_view_s", []).append(view_s)
            parts["ours"].setdefault("build_prompt_s", []).append(build_s)

        def their_round(r: int) -> None:
            reuse = "cluster" in strategy and r >= rf_cluster_rounds
            answer = rf.call("prompt", db=rf.db, strategy=strategy, round_num=r + 1,
                             budget=BUDGET, seed=SEED, reuse_fit=reuse)
            shown[rf.name].append(answer["shown"])
            pools[rf.name] = answer["pool"]
            if not reuse:
                rounds[rf.name].add(answer["seconds"], None)
                parts[rf.name].setdefault("export_s", []).append(answer["export_s"])
                parts[rf.name].setdefault("build_prompt_s", []).append(
                    answer["build_prompt_s"])

        for r in range(ROUNDS):
            for name in rotated(names, r):
                bench.attempt(failed, name, f"prompt_{strategy}",
                              lambda r=r, name=name: (ours_round if name == "ours"
                                                      else their_round)(r))
        for name in names:
            s = rounds[name]
            s.extra = {"network": network,
                       "first_round_s": round(s.seconds[0], 6) if s.seconds else None,
                       "parts_median_s": {k: round(statistics.median(v), 6)
                                          for k, v in parts[name].items()},
                       "vectors": note if "cluster" in strategy else None}
        record_group(bench.rec, f"prompt_{strategy}", "derive", size, rounds, failed)
        for name in names:
            if len(shown[name]) < ROUNDS:
                continue
            seen: set[str] = set()
            after = []
            for ids in shown[name]:
                seen |= set(ids)
                after.append(round(len(seen) / pools[name], 4))
            bench.rec.measurement(
                f"coverage_{strategy}", "coverage", size, name, [], None,
                network=network, rounds=ROUNDS, budget=BUDGET, pool=pools[name],
                coverage=after[-1], coverage_after_round=after)


def embedder_for(kind: str):
    """The embedder, its vector cache and a note for the report: all-MiniLM-L6-v2 for
    `model` when it is installed, else seeded random unit vectors."""
    from engine.embedding.cache import MemoryVectorCache

    if kind == "model":
        try:
            from sampling_coverage import default_cache_dir

            from adapters.embeddings import SentenceTransformerEmbedder
            from adapters.vector_cache import NpyVectorCache

            embedder = SentenceTransformerEmbedder()
            embedder.embed(["load the model"])
            return embedder, NpyVectorCache(default_cache_dir()), "all-MiniLM-L6-v2"
        except Exception as e:  # no model installed: say so, use random vectors
            say(f"the embedding model is not usable ({e}); random vectors instead")
    from prompt_build import RandomUnitEmbedder

    return RandomUnitEmbedder(), MemoryVectorCache(), "seeded random unit vectors"
