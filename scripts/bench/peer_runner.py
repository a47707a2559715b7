"""Drives ftl-reasons or reasonsforge for scripts/bench/comparison.py, in their own interpreter.

    .bench-venv/bin/python scripts/bench/peer_runner.py --impl ftl-reasons|reasonsforge

A small server on stdin/stdout: one JSON request per line ({"op": ..., ...}), one JSON answer
per line ({"ok": true, "seconds": ..., ...} or {"ok": false, "error": ...}). The process keeps
the peer's `Network` object in memory between requests, so the in-process workloads time the
peer's own call and nothing else (no start-up, no IPC: `seconds` is measured here, around the
call). The per-command workloads do not come through here: comparison.py runs the peers'
console scripts (`reasons`, `reasonsforge`) itself.

It never imports eem-engine code: this interpreter has only the peers, numpy and scikit-learn
(.bench-venv). Anything the peers print goes to stderr; stdout carries the answers only.

Requests:
- import {file, db}: a fresh SQLite database `db`, `api.import_json(file, db_path=db)` timed;
  then the saved database is loaded into memory (`Storage(db).load()`, not timed).
- load {db}: load a database into memory (not timed).
- retract {id} / assert {id}: `Network.retract` / `Network.assert_node` in memory, timed;
  answers the ids whose label changed (the peers include the target itself).
- recompute: `Network.recompute_all()` timed (what `propagate` runs); answers the changed ids.
- labels: the ids IN and OUT in memory.
- vectors {npz}: the embedding of each premise text, for the cluster strategies (below).
- prompt {db, strategy, round_num, budget, seed}: one derive round's prompt as reasonsforge's
  `derive` builds it: `api.export_network(db)` then `derive.build_prompt(nodes, ...)`, timed
  together (and apart); answers the premise ids the prompt lists in its beliefs section.
  Strategies: alphabetical (the default), random (`--sample`), cluster (`--cluster`),
  intra-cluster (`--intra-cluster`); `seed` is fixed, as with `--seed`, so the random and
  cluster samples repeat every round; `round_num` is the exhaust loop's round number (1, 2, ...).
  With `reuse_fit`, the cluster strategies reuse the KMeans fit of an earlier round with the
  same input (RememberedKMeans): the same sample, without the fit's time.

Embeddings: reasonsforge's `ClusterCache` embeds with sentence-transformers and keeps the
vectors in memory for the run. Here the vectors come from comparison.py (the same ones our
side uses: seeded random unit vectors on the synthetic network, all-MiniLM-L6-v2 from our file
cache on the real networks), served through a stand-in for the SentenceTransformer model, and
the cache is warmed before the first timed round, so neither side embeds inside a timed round.
sentence-transformers itself (and torch) is not installed in .bench-venv.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import sys
import time
import types

PACKAGES = {"ftl-reasons": "reasons", "reasonsforge": "reasonsforge"}
BELIEF_LINE = re.compile(r"^- `([^`]+)`: ", re.M)


def _remove_db(db: str) -> None:
    for suffix in ("", "-wal", "-shm"):
        try:
            os.remove(db + suffix)
        except FileNotFoundError:
            pass


class GivenVectors:
    """Stands in for sentence_transformers.SentenceTransformer: `encode` looks the texts up
    in the vectors comparison.py handed over."""

    by_text: dict = {}

    def __init__(self, model_name_or_path: str = "", *args, **kwargs) -> None:
        self.model_name = model_name_or_path

    def encode(self, texts, show_progress_bar: bool = False, **kwargs):
        import numpy as np

        missing = [t for t in texts if t not in self.by_text]
        if missing:
            raise KeyError(f"no vector given for {len(missing)} texts (first: {missing[0][:60]!r})")
        return np.stack([self.by_text[t] for t in texts])


class RememberedKMeans:
    """Stands in for sklearn's KMeans in reasonsforge.cluster: a real fit, remembered by its
    parameters and input, handed back when `reuse` is set. reasonsforge refits KMeans with
    `n_init=10` in every round; with a fixed seed and the same vectors the fit is the same
    each time, so reusing it changes no sample, only the time (rounds run that way are
    counted for coverage and not timed)."""

    fits: dict = {}
    reuse = False

    def __init__(self, **params) -> None:
        self.params = params

    def fit_predict(self, rows):
        import hashlib

        import numpy as np
        from sklearn.cluster import KMeans

        rows = np.ascontiguousarray(rows)
        key = (json.dumps(self.params, sort_keys=True, default=str), rows.shape,
               hashlib.sha256(rows.tobytes()).hexdigest())
        if not (self.reuse and key in self.fits):
            self.fits[key] = KMeans(**self.params).fit_predict(rows)
        return self.fits[key]


def _install_model_stand_in() -> None:
    try:
        import sentence_transformers  # noqa: F401  (installed by hand: still not used)
    except ImportError:
        module = types.ModuleType("sentence_transformers")
        module.SentenceTransformer = GivenVectors
        sys.modules["sentence_transformers"] = module


class Peer:
    def __init__(self, impl: str) -> None:
        package = PACKAGES[impl]
        self.impl = impl
        self.api = importlib.import_module(f"{package}.api")
        self.storage = importlib.import_module(f"{package}.storage")
        self.package = package
        self.net = None
        self.clusters: dict = {}  # strategy -> ClusterCache, for the run
        self.vectors_by_id: dict = {}

    # --- preparing the file ------------------------------------------------------------
    def op_add_hashes(self, file: str, out: str) -> dict:
        """Write `file` again with the peers' Merkle fields filled in (each node's
        `text_hash`, each justification's `content_hash`), as their `export` writes them.

        Their import computes a missing content_hash by walking the justification's whole
        ancestry afresh for every node (merkle.compute_content_hash, no cache shared between
        nodes); on the 10-layer synthetic network that grows much faster than the network.
        Here one cache serves every node, so it takes a second."""
        package = importlib.import_module(self.package)
        merkle = importlib.import_module(f"{self.package}.merkle")
        network_module = importlib.import_module(f"{self.package}.network")
        data = json.loads(open(file, encoding="utf-8").read())
        net = network_module.Network()
        for nid, node in data["nodes"].items():
            net.nodes[nid] = package.Node(
                id=nid, text=node["text"], truth_value=node.get("truth_value", "IN"),
                justifications=[package.Justification(
                    type=j["type"], antecedents=list(j.get("antecedents", [])),
                    outlist=list(j.get("outlist", [])), label=j.get("label", ""))
                    for j in node.get("justifications", [])])
        net._rebuild_dependents()
        net.recompute_all()  # sets supporting_justification, which the hashes follow
        cache: dict = {}
        for nid, node in data["nodes"].items():
            live = net.nodes[nid]
            node["text_hash"] = merkle.compute_text_hash(live.text)
            for j, live_j in zip(node.get("justifications", []), live.justifications):
                j["content_hash"] = merkle.compute_content_hash(live, live_j, net, cache=cache)
        with open(out, "w", encoding="utf-8") as f:
            json.dump(data, f)
        return {"beliefs": len(data["nodes"])}

    # --- truth maintenance -------------------------------------------------------------
    def op_import(self, file: str, db: str) -> dict:
        _remove_db(db)
        self._forget_cache()
        started = time.perf_counter()
        result = self.api.import_json(file, db_path=db)
        seconds = time.perf_counter() - started
        self.op_load(db)
        return {"seconds": seconds, "changed": result["nodes_imported"]}

    def op_load(self, db: str) -> dict:
        store = self.storage.Storage(db)
        try:
            self.net = store.load()
        finally:
            store.close()
        return {"beliefs": len(self.net.nodes)}

    def op_retract(self, id: str) -> dict:
        started = time.perf_counter()
        changed = self.net.retract(id)
        return {"seconds": time.perf_counter() - started, "changed": sorted(changed)}

    def op_assert(self, id: str) -> dict:
        started = time.perf_counter()
        changed = self.net.assert_node(id)
        return {"seconds": time.perf_counter() - started, "changed": sorted(changed)}

    def op_recompute(self) -> dict:
        started = time.perf_counter()
        changed = self.net.recompute_all()
        return {"seconds": time.perf_counter() - started, "changed": sorted(changed)}

    def op_labels(self) -> dict:
        nodes = self.net.nodes
        return {"in": sorted(i for i, n in nodes.items() if n.truth_value == "IN"),
                "out": sorted(i for i, n in nodes.items() if n.truth_value != "IN")}

    # --- derive --------------------------------------------------------------------------
    def op_vectors(self, npz: str) -> dict:
        import numpy as np

        data = np.load(npz)
        self.vectors_by_id = dict(zip(data["ids"].tolist(), data["vectors"]))
        self.clusters = {}
        return {"vectors": len(self.vectors_by_id)}

    def op_prompt(self, db: str, strategy: str, round_num: int, budget: int, seed: int,
                  reuse_fit: bool = False) -> dict:
        if self.impl != "reasonsforge":
            raise ValueError("derive prompts are benchmarked for reasonsforge only")
        derive = importlib.import_module("reasonsforge.derive")
        cache = self._cluster_cache(db, strategy) if "cluster" in strategy else None
        RememberedKMeans.reuse = reuse_fit
        started = time.perf_counter()
        nodes = self.api.export_network(db_path=db)["nodes"]
        exported = time.perf_counter()
        prompt, stats = derive.build_prompt(
            nodes, budget=budget, sample=strategy == "random", seed=seed,
            cluster=strategy == "cluster", intra_cluster=strategy == "intra-cluster",
            round_num=round_num, cluster_cache=cache,
        )
        done = time.perf_counter()
        section = prompt.split("## Existing Beliefs", 1)[1].split("## Existing Derived", 1)[0]
        return {"seconds": done - started, "export_s": exported - started,
                "build_prompt_s": done - exported, "shown": BELIEF_LINE.findall(section),
                "pool": sum(1 for n in nodes.values()
                            if n.get("truth_value") == "IN" and not n.get("justifications")),
                "chars": len(prompt), "n_clusters": stats.get("n_clusters")}

    def _cluster_cache(self, db: str, strategy: str):
        """reasonsforge's ClusterCache, warmed with every IN premise (as after a first round)."""
        if strategy in self.clusters:
            return self.clusters[strategy]
        _install_model_stand_in()
        cluster = importlib.import_module("reasonsforge.cluster")
        cluster.KMeans = RememberedKMeans
        nodes = self.api.export_network(db_path=db)["nodes"]
        texts = {i: n["text"] for i, n in nodes.items()
                 if n.get("truth_value") == "IN" and not n.get("justifications")}
        GivenVectors.by_text = {texts[i]: self.vectors_by_id[i] for i in texts
                                if i in self.vectors_by_id}
        cache = object.__new__(cluster.ClusterCache)  # its __init__ would load a real model
        cache.model = GivenVectors("given vectors")
        cache.model_name = "given vectors"
        cache._cache = {}
        cache.embed(texts)
        self.clusters[strategy] = cache
        return cache

    def _forget_cache(self) -> None:
        clear = getattr(self.api, "clear_network_cache", None)  # ftl-reasons caches by mtime
        if clear is not None:
            clear()


def serve(peer: Peer) -> None:
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    sys.stdout = sys.stderr  # whatever the peers print stays off the answer channel
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        op = request.pop("op")
        if op == "quit":
            break
        try:
            answer = {"ok": True, **getattr(peer, f"op_{op}")(**request)}
        except Exception as e:  # reported to comparison.py, which stops with it
            answer = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        answers.write(json.dumps(answer) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--impl", choices=sorted(PACKAGES), required=True)
    args = parser.parse_args()
    serve(Peer(args.impl))


if __name__ == "__main__":
    main()
