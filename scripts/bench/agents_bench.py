"""Other agents' memories (issue 23): import-agent against a plain import of the same
network, and sync-agent of a newer file with 1% of its beliefs changed.

On the synthetic network of synthetic.py (N premises + N derived), into an empty graph each:
1. `import` of the file (the plain import, engine/interchange.py);
2. `import-agent bench` of the same file (ids prefixed, every justification on the switch);
3. `sync-agent bench` of a newer file where 1% of the beliefs changed: half of them a new
   text, half a new justification (one antecedent swapped), plus as many new beliefs as
   gone ones (0.1% each), timed with --dry-run (rolled back) and for real;
4. `verify` after the sync (the labels must equal the from-scratch model).
Targets: import-agent within 1.5x of the plain import; sync-agent under 10 s (100k+100k).

    NEO4J_URI=... python scripts/bench/agents_bench.py --size 100000

WARNING: it WIPES the database at NEO4J_URI.
"""
from __future__ import annotations

import argparse
import copy
import json
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from synthetic import generate  # noqa: E402

from adapters.cypher_files import cypher  # noqa: E402
from adapters.formats import parse_network  # noqa: E402
from adapters.neo4j.connection import Neo4jSettings, connect  # noqa: E402
from adapters.neo4j.store import Neo4jStore  # noqa: E402
from engine import interchange, tms  # noqa: E402
from engine.agents import import_agent as agents
from engine.agents import sync_agent as agent_sync

NAME = "bench"


def emit(**fields) -> None:
    print(json.dumps(fields), flush=True)


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def fresh(store: Neo4jStore, driver, database: str) -> None:
    with driver.session(database=database) as session:
        session.run(cypher("wipe_graph_batched")).consume()
    store.init_schema()


def newer_file(data: dict, share: float, seed: int = 11) -> tuple[dict, dict[str, int]]:
    """A copy of the file with `share` of its beliefs changed (half text, half justification),
    and a tenth of that share gone and as many new."""
    rng = random.Random(seed)
    nodes = copy.deepcopy(data["nodes"])
    ids = sorted(nodes)
    premises = [i for i in ids if not nodes[i]["justifications"]]
    changed = rng.sample(ids, int(len(ids) * share))
    counts = {"text": 0, "justification": 0, "gone": 0, "new": 0}
    for k, bid in enumerate(changed):
        n = nodes[bid]
        if k % 2 and n["justifications"]:
            j = n["justifications"][0]
            j["antecedents"] = j["antecedents"][:-1] + [rng.choice(premises)]
            counts["justification"] += 1
        else:
            n["text"] = n["text"] + " (revised)"
            counts["text"] += 1
    named = {a for n in nodes.values() for j in n["justifications"] for a in j["antecedents"]}
    leaves = [i for i in ids if i not in named and i not in changed]
    for bid in rng.sample(leaves, max(1, int(len(ids) * share / 10))):
        del nodes[bid]
        counts["gone"] += 1
    for k in range(counts["gone"]):
        nodes[f"new-{k:06d}"] = {"text": f"A new claim {k}.", "truth_value": "IN",
                                 "justifications": [{"type": "SL",
                                                     "antecedents": [rng.choice(premises)],
                                                     "outlist": [], "label": ""}]}
        counts["new"] += 1
    return {**data, "nodes": nodes}, counts


def run(size: int, store: Neo4jStore, driver, database: str, share: float) -> None:
    data = generate(size)
    total = len(data["nodes"])
    network, stored = parse_network(data)

    fresh(store, driver, database)
    plain, _ = timed(lambda: interchange.import_network(store, network, stored))
    emit(workload="import", size=total, seconds=round(plain, 3))

    fresh(store, driver, database)
    seconds, report = timed(lambda: agents.import_agent(store, NAME, network, stored))
    emit(workload="import-agent", size=total, seconds=round(seconds, 3),
         came_in=len(report.came_in), over_plain_import=round(seconds / plain, 2),
         target_over_plain=1.5)

    newer, counts = newer_file(data, share)
    parsed, newer_stored = parse_network(newer)
    seconds, dry = timed(lambda: agent_sync.sync_agent(store, NAME, parsed, newer_stored,
                                                       dry_run=True))
    emit(workload="sync-agent --dry-run", size=total, seconds=round(seconds, 3),
         changed=len(dry.diff.changed), added=len(dry.diff.added), gone=len(dry.diff.gone))
    seconds, synced = timed(lambda: agent_sync.sync_agent(store, NAME, parsed, newer_stored))
    emit(workload="sync-agent", size=total, seconds=round(seconds, 3), share=share,
         file_changes=counts, changed=len(synced.diff.changed), added=len(synced.diff.added),
         gone=len(synced.diff.gone), went_in=len(synced.change.went_in),
         went_out=len(synced.change.went_out), target_s=10)
    seconds, problems = timed(lambda: tms.verify(store))
    emit(workload="verify after sync", size=total, seconds=round(seconds, 3),
         mismatches=len(problems))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, action="append", help="N (premises = derived = N)")
    parser.add_argument("--share", type=float, default=0.01,
                        help="the share of beliefs the newer file changes (default 0.01)")
    args = parser.parse_args()
    settings = Neo4jSettings.from_env(os.environ)
    driver = connect(settings)
    store = Neo4jStore(driver, settings.database, settings.uri)
    try:
        for size in args.size or [10000]:
            run(size, store, driver, settings.database, args.share)
    finally:
        driver.close()


if __name__ == "__main__":
    main()
