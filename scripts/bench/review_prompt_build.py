"""How long review takes to build one round's prompt on a large network, printed as JSON lines.

    .venv/bin/python scripts/bench/review_prompt_build.py [--size 100000] [--budget 20]
        [--reuse] [--reviewed-layers 1]

WIPES the database of NEO4J_URI (default the local server; NEO4J_PASSWORD, else
.neo4j/password) and imports scripts/bench/synthetic.py's network (N premises + N derived in
10 layers; 2N beliefs: give Neo4j a heap of 4 GB for N = 100k). `--reuse` keeps a network
loaded before (its review stamps too: the first timing then reports how many there are).

Then times `ReviewStage.read_round` (what is due, the material of the beliefs shown, the
prompt and the reply schema), end to end and by step:
- `fresh`: nothing reviewed yet, so what is due is layer 1 (it rests on premises only);
- `reviewed`: after the first `--reviewed-layers` layers (N/10 derived beliefs each) were
  stamped as reviewed with their current hashes, as a long run of review rounds leaves them:
  every stamped belief's hash is checked against its current texts, and what is due is the
  next layer.
`*_cpu_s` is this process's CPU time (the database's is not in it).
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import generate  # noqa: E402

from adapters.cypher_files import cypher  # noqa: E402
from adapters.formats import parse_network  # noqa: E402
from adapters.neo4j.connection import Neo4jSettings, connect  # noqa: E402
from adapters.neo4j.store import Neo4jStore  # noqa: E402
from engine import interchange  # noqa: E402
from engine.review.due import DueOptions, read_due  # noqa: E402
from engine.stages.arguments import read_under_review  # noqa: E402
from engine.review.prompt import build_prompt  # noqa: E402
from engine.review.records import ReviewStamp  # noqa: E402
from engine.review.schema import json_reply  # noqa: E402
from engine.review.stage import ReviewSettings, ReviewStage  # noqa: E402


def emit(**fields) -> None:
    print(json.dumps(fields), flush=True)


def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return round(time.perf_counter() - wall, 3), round(time.process_time() - cpu, 3), result


def steps(store, budget: int) -> dict:
    """The round's steps one by one, each in its own read transaction."""
    out = {}
    out["candidates_s"], out["candidates_cpu_s"], cands = timed(
        lambda: store.read(lambda tx: tx.review_candidates()))
    out["due_s"], out["due_cpu_s"], due = timed(
        lambda: store.read(lambda tx: read_due(tx, DueOptions())))
    chosen = due.due[:budget]
    out["material_s"], _, shown = timed(
        lambda: store.read(lambda tx: read_under_review(tx, chosen)))
    ordered = [shown[i] for i in chosen]
    out["prompt_s"], _, prompt = timed(lambda: (build_prompt(ordered, due_total=len(due.due)),
                                                json_reply(ordered)))
    out.update(candidates=len(cands), reviewed=sum(bool(c.review_sha256) for c in cands),
               due=len(due.due), current=due.current, prompt_chars=len(prompt[0].text))
    return out


def time_round(store, budget: int, repeat: int) -> None:
    stage = ReviewStage(ReviewSettings(budget=budget))
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu, shown = timed(lambda: stage.read_round(store, 1))
        walls.append(wall)
        cpus.append(cpu)
    emit(bench="review_read_round", budget=budget, round_s=min(walls),
         round_cpu_s=min(cpus), rounds_timed=repeat, shown=len(shown.shown),
         **steps(store, budget))


def stamp_layers(store, layers: int, size: int) -> int:
    ids = [f"d{layer:02d}-{i:06d}" for layer in range(1, layers + 1) for i in range(size // 10)]
    for start in range(0, len(ids), 5000):
        chunk = ids[start:start + 5000]
        material = store.read(lambda tx, chunk=chunk: read_under_review(tx, chunk))
        stamps = [ReviewStamp(i, "2026-12-03T00:00:00+00:00", m.sha256, "bench")
                  for i, m in material.items()]
        store.write(lambda tx, stamps=stamps: tx.stamp_reviews(stamps))
    return len(ids)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--budget", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--reviewed-layers", type=int, default=1)
    parser.add_argument("--reuse", action="store_true")
    args = parser.parse_args()
    settings = Neo4jSettings.from_env(os.environ)
    driver = connect(settings)
    store = Neo4jStore(driver, settings.database, settings.uri)
    try:
        if not args.reuse:
            with driver.session(database=settings.database) as session:
                session.run(cypher("wipe_graph_batched")).consume()
            store.init_schema()
            network, stored = parse_network(generate(args.size))
            import_s, _, _ = timed(lambda: interchange.import_network(store, network, stored))
            emit(bench="review_setup", beliefs=len(network.beliefs), import_s=import_s)
        time_round(store, args.budget, args.repeat)
        stamp_s, _, stamped = timed(lambda: stamp_layers(store, args.reviewed_layers, args.size))
        emit(bench="review_stamp", stamped=stamped, stamp_s=stamp_s)
        time_round(store, args.budget, args.repeat)
    finally:
        store.close()


if __name__ == "__main__":
    main()
