"""Cypher statements per truth-maintenance operation, counted (not timed), as JSON lines.

    .venv/bin/python scripts/bench/tms_statements.py [--size 2000]

On the synthetic network (N premises + N derived, scripts/bench/synthetic.py) with a few
beliefs added that the synthetic one lacks (an outlist, ANY, a positive cycle, a loop through
outlists, a nogood), each operation runs in its own write transaction and prints how many
statements that transaction sent, and how many of each named query. Counts depend on the
code only, not on the machine's load, so a run at one commit compares with a run at another
(copy this file into the other checkout and run it there with the same --size).

WARNING: it WIPES the database at NEO4J_URI.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import HUB, generate, single_dependent_premise
from tms_bench import wipe

from adapters.cypher_files import load_all
from adapters.formats import parse_network
from adapters.neo4j.connection import Neo4jSettings, connect
from adapters.neo4j.store import Neo4jStore
from engine import interchange, tms
from engine.model import Justification


class StatementCounter:
    """Counts the statements the driver runs, by query name (patched for the count)."""

    def __init__(self) -> None:
        from neo4j._sync.work import transaction

        self.names = {q.text: q.name for q in load_all().values()}
        self.counts: Counter[str] = Counter()
        self._base = transaction.TransactionBase
        self._run = self._base.run
        counter = self

        def run(tx, query, parameters=None, **kwargs):
            counter.counts[counter.names.get(query, "(other)")] += 1
            return counter._run(tx, query, parameters, **kwargs)

        self._base.run = run  # type: ignore[method-assign]

    def take(self) -> Counter[str]:
        taken, self.counts = self.counts, Counter()
        return taken

    def close(self) -> None:
        self._base.run = self._run  # type: ignore[method-assign]


def operations(premise: str):
    """(name, call) in order; each call is one write transaction."""
    sl = Justification
    return [
        ("retract_hub", lambda s: tms.retract(s, HUB)),
        ("assert_hub", lambda s: tms.assert_belief(s, HUB)),
        ("retract_single_dependent", lambda s: tms.retract(s, premise)),
        ("assert_single_dependent", lambda s: tms.assert_belief(s, premise)),
        ("add_premise", lambda s: tms.add(s, "x-p", "a premise")),
        ("add_on_layer_1", lambda s: tms.add(s, "x-d", "derived", (
            sl(("d01-000000", "x-p")),))),
        ("add_any", lambda s: tms.add(s, "x-any", "either", (
            sl(("d01-000001",)), sl(("x-d",))))),
        ("add_outlist", lambda s: tms.add(s, "x-gated", "unless", (
            sl(("x-any",), ("x-gate",)),))),
        ("add_the_gate", lambda s: tms.add(s, "x-gate", "the gate")),
        ("retract_the_gate", lambda s: tms.retract(s, "x-gate")),
        ("add_cycle_a", lambda s: tms.add(s, "x-ca", "cycle a", (sl(("x-p", "x-cb")),))),
        ("add_cycle_b", lambda s: tms.add(s, "x-cb", "cycle b", (sl(("x-ca",)),))),
        ("justify_cycle_b", lambda s: tms.add_justification(s, "x-cb", (sl(("x-d",)),))),
        ("add_odd_loop", lambda s: tms.add(s, "x-u", "unless itself", (sl((), ("x-v",)),))),
        ("add_odd_loop_2", lambda s: tms.add(s, "x-v", "unless u", (sl(("x-p",), ("x-u",)),))),
        ("retract_x_p", lambda s: tms.retract(s, "x-p")),
        ("assert_x_p", lambda s: tms.assert_belief(s, "x-p")),
        ("add_nogood", lambda s: tms.add_nogood(s, ["x-any", "x-gated"], "x-ng")),
        ("retract_layer_1", lambda s: tms.retract(s, "d01-000000")),
        ("assert_layer_1", lambda s: tms.assert_belief(s, "d01-000000")),
    ]


def count(store: Neo4jStore, premise: str) -> None:
    counter = StatementCounter()
    total = 0
    try:
        for name, call in operations(premise):
            counter.take()
            change = call(store)
            counts = counter.take()
            total += sum(counts.values())
            print(json.dumps({"operation": name, "statements": sum(counts.values()),
                              "changed": len(change.went_in) + len(change.went_out),
                              "queries": dict(sorted(counts.items()))}), flush=True)
    finally:
        counter.close()
    print(json.dumps({"operation": "total", "statements": total}), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=2000, help="N (premises = derived = N)")
    size = parser.parse_args().size
    settings = Neo4jSettings.from_env(os.environ)
    driver = connect(settings)
    store = Neo4jStore(driver, settings.database, settings.uri)
    try:
        data = generate(size)
        wipe(driver, settings.database)
        store.init_schema()
        interchange.import_network(store, *parse_network(data))
        count(store, single_dependent_premise(data))
        if tms.verify(store):
            raise SystemExit("verify found mismatches after the operations")
    finally:
        store.close()


if __name__ == "__main__":
    main()
