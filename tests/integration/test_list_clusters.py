"""`python -m engine.derive list-clusters` on the real Neo4j with the packaged embedding
model (issue 46, point 6): the clusters listed are the ones a cluster run samples from (an
--intra-cluster run's first round shows exactly the first cluster), two unrelated topics
fall into two clusters, and nothing is written."""
from __future__ import annotations

import io
import json

import pytest

from engine import tms
from engine.service.context import Context
from engine.wiring.parts import StageParts
from engine.cli.main import Streams
from engine.cli.stage_cli import stage_main
from tests.derive_fakes import load, premise

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]

STORAGE = {f"db-{i}": t for i, t in enumerate([
    "The database keeps a B-tree index on the orders table.",
    "Queries on the orders table read the index before the rows.",
    "The write-ahead log is flushed to disk on every commit.",
    "Replication ships the write-ahead log to two database replicas.",
    "A full table scan of orders takes forty seconds.",
    "Vacuuming the database reclaims space from deleted rows."])}
KITCHEN = {f"bake-{i}": t for i, t in enumerate([
    "Bread dough rises for two hours in a warm kitchen.",
    "The oven is preheated to 220 degrees before baking bread.",
    "Sourdough starter is fed flour and water every day.",
    "A loaf bakes for forty minutes until the crust is brown.",
    "Kneading the dough develops gluten in the flour.",
    "Butter and sugar are creamed together for the cake batter."])}


def run(store, *args: str) -> tuple[int, str, str]:
    from engine.cli.derive import COMMAND, PROG

    out, err = io.StringIO(), io.StringIO()
    code = stage_main(COMMAND, list(args), PROG, context=Context(store), parts=StageParts(),
                      streams=Streams(out, err, io.StringIO()))
    return code, out.getvalue(), err.getvalue()


def test_the_clusters_listed_are_those_a_cluster_run_samples(store):
    load(store, [premise(i, t) for i, t in {**STORAGE, **KITCHEN}.items()])
    before = [(b.id, b.truth, b.text) for b in tms.list_beliefs(store)]
    code, out, err = run(store, "list-clusters", "--n-clusters", "2", "--json")
    assert code == 0, err
    found = json.loads(out)
    assert found["pool"] == 12 and found["n_clusters"] == 2 and found["seed"] == 0
    groups = [{m["id"] for m in c["members"]} for c in found["clusters"]]
    assert sorted(groups, key=sorted) == [set(KITCHEN), set(STORAGE)]
    assert [c["size"] for c in found["clusters"]] == [6, 6]

    # an --intra-cluster run gives its first round to cluster 0, exactly those premises
    code, prompt, err = run(store, "--dry-run", "--intra-cluster", "--n-clusters", "2",
                            "--budget", "20")
    assert code == 0, err
    first = groups[0]
    shown = {i for i in {**STORAGE, **KITCHEN} if f"`{i}`:" in prompt}
    assert shown == first, prompt

    code, text, _ = run(store, "list-clusters", "--n-clusters", "2")
    assert code == 0 and text.startswith("2 clusters of 12 IN premises (seed 0):")
    assert [(b.id, b.truth, b.text) for b in tms.list_beliefs(store)] == before
