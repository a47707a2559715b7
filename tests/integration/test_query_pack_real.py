"""The query pack on a real network (../shared/data/networks, skipped where absent): on a
sample of its beliefs, the queries that restate an engine operation agree with it."""
from __future__ import annotations

import pytest

from adapters.formats import read_network_file
from engine import interchange, tms
from engine.tms import explain as explaining
from tests.integration.test_query_pack import _support_tree, rows

pytestmark = [pytest.mark.neo4j, pytest.mark.network_data]

SAMPLE = 20


@pytest.fixture(scope="module")
def real(driver, neo4j_settings):
    from adapters.neo4j.store import Neo4jStore
    from tests.conftest import SHARED_NETWORKS, empty_graph

    path = SHARED_NETWORKS / "system-design-eem.json"
    if not path.is_file():
        pytest.skip(f"real networks not present at {SHARED_NETWORKS}")
    empty_graph(driver, neo4j_settings.database)
    store = Neo4jStore(driver, neo4j_settings.database, neo4j_settings.uri)
    store.init_schema()
    network, stored = read_network_file(path)
    interchange.import_network(store, network, stored)
    derived = sorted(b.id for b in tms.list_beliefs(store) if not b.is_premise)
    premises = sorted(b.id for b in tms.list_beliefs(store) if b.is_premise)
    # every k-th derived belief and premise: deterministic, spread over the ids
    sample = (derived[:: max(1, len(derived) // SAMPLE)]
              + premises[:: max(1, len(premises) // SAMPLE)])
    return store, sample


def test_premises_why_in_and_out_if_retracted_on_a_real_network(real):
    store, sample = real
    compared = 0
    for bid in sample:
        expected = [(e.id, e.truth, e.kind) for e in explaining.trace(store, bid)]
        got = rows(store, "premises", id=bid)
        assert [(r["premise"], r["truth"], r["kind"]) for r in got] == expected, bid
        why = {(r["belief"], r["why"], tuple(r["antecedents"]))
               for r in rows(store, "why_in", id=bid)}
        if tms.show(store, bid)[0].truth.value == "IN":
            assert why == _support_tree(store.read(lambda tx: tx.upstream([bid])), bid), bid
        out = rows(store, "out_if_retracted", id=bid)
        if not any(r["effect"] == "may go IN" for r in out):
            change = tms.what_if(store, "retract", bid)
            assert sorted(r["belief"] for r in out) == sorted(change.went_out), bid
            compared += 1
    assert compared >= len(sample) // 2
