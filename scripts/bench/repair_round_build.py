"""How long repair takes to build one round's prompt on a large network with many defeated
justifications, printed as JSON lines.

    .venv/bin/python scripts/bench/repair_round_build.py [--size 100000] [--defeated 1000]
        [--budget 10] [--reuse]

WIPES the database of NEO4J_URI (default the local server; NEO4J_PASSWORD, else
.neo4j/password) and imports scripts/bench/synthetic.py's network (N premises + N derived in
10 layers; give Neo4j a heap of 3-4 GB for N = 100k). Then review's own write path
(engine/review/apply.write_review, one transaction per 500 verdicts) finds `--defeated`
justifications of the top layer invalid, each with a missing property naming a premise, so
each gets its defeater, its REVIEWED edge and its propagation. `--reuse` keeps a network so
prepared.

Then times `RepairStage.read_round` (what is defeated less what repair answered, review's
findings, the claims and justifications shown, the candidate bridges by full-text search,
the prompt and the reply schema), end to end and by step. Target: under 5 s.
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

from synthetic import LAYERS, derived_id, generate  # noqa: E402

from adapters.cypher_files import cypher  # noqa: E402
from adapters.formats import parse_network  # noqa: E402
from adapters.neo4j.connection import Neo4jSettings, connect  # noqa: E402
from adapters.neo4j.store import Neo4jStore  # noqa: E402
from engine import interchange  # noqa: E402
from engine.repair.bridges import query_text, query_words  # noqa: E402
from engine.repair.due import read_due, with_findings  # noqa: E402
from engine.repair.prompt import build_prompt, json_reply  # noqa: E402
from engine.repair.stage import RepairSettings, RepairStage, cases_of  # noqa: E402
from engine.review.apply import write_review  # noqa: E402
from engine.stages.arguments import read_under_review  # noqa: E402
from engine.review.verdicts import Verdict  # noqa: E402
from engine.stages.provenance import RoundRecord, RunRecord  # noqa: E402

AT = "2026-12-03T00:00:00+00:00"
BATCH = 500


def emit(**fields) -> None:
    print(json.dumps(fields), flush=True)


def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return round(time.perf_counter() - wall, 3), round(time.process_time() - cpu, 3), result


def defeat(store, size: int, count: int) -> int:
    """Review finds justification 1 of `count` top-layer beliefs invalid."""
    ids = [derived_id(LAYERS, i) for i in range(min(count, size // LAYERS))]
    run = RunRecord(id="bench-review", model="bench", started_at=AT, params={},
                    stage="review")
    for n, start in enumerate(range(0, len(ids), BATCH), start=1):
        chunk = ids[start:start + BATCH]
        record = RoundRecord(run_id=run.id, round=n, prompt_sha256="0" * 64,
                             strategy="bench", stage="review", at=AT)
        hashes = {i: m.sha256 for i, m in
                  store.read(lambda tx, chunk=chunk: read_under_review(tx, chunk)).items()}
        verdicts = [Verdict(belief=i, justification=1, valid=False,
                            reason_type="missing-bridge",
                            missing_property=f"that observed fact p-{k:06d} holds as well",
                            comment="a step is left unstated")
                    for k, i in enumerate(chunk)]

        def work(tx, verdicts=verdicts, hashes=hashes, record=record):
            tx.create_run(run)
            tx.record_round(record)
            return write_review(tx, verdicts, hashes, run, record, apply_suggestions=False,
                                at=AT)

        store.write(work)
    return len(ids)


def steps(store, budget: int, bridges: int) -> dict:
    out: dict = {}
    out["due_s"], out["due_cpu_s"], due = timed(lambda: store.read(read_due))
    chosen = due.due[:budget]
    out["findings_s"], _, found = timed(
        lambda: store.read(lambda tx: with_findings(tx, list(chosen))))
    claims = store.read(lambda tx: {b.id: b.text for b in
                                    tx.get_beliefs({d.belief for d in found}).values()})
    words = {d.key: query_words(query_text(d, claims.get(d.belief, ""))) for d in found}
    out["cases_s"], _, cases = timed(
        lambda: store.read(lambda tx: cases_of(tx, found, words, {}, bridges)))
    out["prompt_s"], _, prompt = timed(lambda: (build_prompt(cases, due_total=len(due.due)),
                                                json_reply(cases)))
    out.update(due=len(due.due), defeated=due.defeated,
               bridges=sum(len(c.bridges) for c in cases), prompt_chars=len(prompt[0].text))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--defeated", type=int, default=1000)
    parser.add_argument("--budget", type=int, default=10)
    parser.add_argument("--bridges", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
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
            emit(bench="repair_setup", beliefs=len(network.beliefs), import_s=import_s)
            defeat_s, _, made = timed(lambda: defeat(store, args.size, args.defeated))
            emit(bench="repair_defeat", defeated=made, defeat_s=defeat_s)
        stage = RepairStage(RepairSettings(budget=args.budget, bridges=args.bridges))
        walls, cpus = [], []
        for _ in range(args.repeat):
            wall, cpu, shown = timed(lambda: stage.read_round(store, 1))
            walls.append(wall)
            cpus.append(cpu)
        emit(bench="repair_read_round", budget=args.budget, round_s=min(walls),
             round_max_s=max(walls), round_cpu_s=min(cpus), rounds_timed=args.repeat,
             shown=len(shown.shown), target_s=5.0,
             **steps(store, args.budget, args.bridges))
    finally:
        store.close()


if __name__ == "__main__":
    main()
