"""The real belief networks in ../shared/data/networks (skipped where absent)."""
from __future__ import annotations

import json
import random

import pytest

from adapters.formats import dump_network, parse_network, read_network_file
from engine import interchange, tms
from engine.model import Truth
from engine.tms.semantics import compute_labels

pytestmark = [pytest.mark.neo4j, pytest.mark.network_data]

NETWORKS = ["system-design-eem.json", "data-intensive-applications-eem.json"]


@pytest.mark.parametrize("name", NETWORKS)
def test_import_labels_the_network_and_reports_differences(store, shared_networks, name):
    network, stored = read_network_file(shared_networks / name)
    report = interchange.import_network(store, network, stored)

    assert tms.verify(store) == []
    status = tms.status(store)
    assert status.beliefs == len(network.beliefs)
    # Self-listed beliefs are OUT (circular support), and so is what rests only on them.
    assert report.self_listed
    for bid in report.self_listed:
        assert tms.show(store, bid)[0].truth == Truth.OUT
    assert set(report.self_listed) <= set(report.circular_support)
    # A stored-OUT belief whose support is valid comes in retracted, so it stays OUT.
    assert report.retractions_kept
    for bid in report.retractions_kept:
        belief = tms.show(store, bid)[0]
        assert belief.retracted and belief.truth == Truth.OUT
    # Stored labels agree with ours except where the report says why.
    explained = set(report.circular_support) | set(report.stale) | set(report.undetermined)
    for bid, b in tms.show_many(store, list(network.beliefs)).items():
        if stored[bid] == Truth.IN and b.truth != Truth.IN:
            assert bid in explained


@pytest.mark.parametrize("name", NETWORKS)
def test_export_then_import_gives_the_same_graph(store, shared_networks, name):
    original = json.loads((shared_networks / name).read_text())
    network, stored = read_network_file(shared_networks / name)
    report = interchange.import_network(store, network, stored)
    first = json.loads(dump_network(interchange.export_network(store)))
    assert set(first["nodes"]) == set(original["nodes"])
    for bid, node in original["nodes"].items():
        for key, value in node.items():
            if key == "truth_value":
                continue
            if key == "retracted_at" and not value and bid in report.retractions_kept:
                # a retraction the file implied (stored OUT, support valid) is dated on import
                assert first["nodes"][bid]["retracted_at"]
                assert first["nodes"][bid]["retract_reason"] == interchange.KEPT_REASON
                continue
            assert first["nodes"][bid][key] == value, (bid, key)

    tms.reset(store)
    again, again_stored = parse_network(first)
    interchange.import_network(store, again, again_stored)
    second = json.loads(dump_network(interchange.export_network(store)))
    assert second["nodes"] == first["nodes"]
    assert second["nogoods"] == first["nogoods"]


@pytest.mark.parametrize("name", NETWORKS)
def test_fifty_random_retractions_and_assertions_keep_labels_exact(store, shared_networks, name):
    network, stored = read_network_file(shared_networks / name)
    interchange.import_network(store, network, stored)
    rng = random.Random(20261202)
    ids = sorted(network.beliefs)
    retracted: list[str] = []
    for step in range(50):
        if retracted and rng.random() < 0.4:
            bid = retracted.pop(rng.randrange(len(retracted)))
            change = tms.assert_belief(store, bid)
        else:
            bid = rng.choice(ids)
            retracted.append(bid)
            change = tms.retract(store, bid, f"random step {step}")
        current = store.read(lambda tx: tx.read_network())
        labels = compute_labels(current.beliefs)
        for b in change.went_out:
            assert labels[b].truth != Truth.IN
        for b in change.went_in:
            assert labels[b].truth == Truth.IN
        assert tms.verify(store) == [], f"step {step}: {bid}"
