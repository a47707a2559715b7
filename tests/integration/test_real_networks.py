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
# What importing each network gives, pinned: its beliefs, those stored IN by their engine whose
# only support is circular (OUT here, with no finite derivation), the self-listed among them,
# and the retractions the file implies. No other label differs from theirs.
EXPECTED = {
    "system-design-eem.json": {"beliefs": 1296, "circular_support": 82, "self_listed": 1,
                               "retractions_kept": 36},
    "data-intensive-applications-eem.json": {"beliefs": 1134, "circular_support": 66,
                                             "self_listed": 4, "retractions_kept": 44},
}


def their_labels(path) -> dict[str, str]:
    """The truth_value their engine stored for each node, read from the file as it is."""
    return {bid: node["truth_value"]
            for bid, node in json.loads(path.read_text(encoding="utf-8"))["nodes"].items()}


def differences(theirs: dict[str, str], ours: dict[str, Truth]) -> dict[str, tuple[str, str]]:
    return {bid: (theirs[bid], ours[bid].value) for bid in sorted(theirs)
            if theirs[bid] != ("IN" if ours[bid] == Truth.IN else "OUT")}


@pytest.mark.parametrize("name", NETWORKS)
def test_import_labels_the_network_and_reports_differences(store, shared_networks, name):
    network, stored = read_network_file(shared_networks / name)
    report = interchange.import_network(store, network, stored)
    expected = EXPECTED[name]

    assert tms.verify(store) == []
    assert tms.status(store).beliefs == len(network.beliefs) == expected["beliefs"]
    ours = tms.show_many(store, list(network.beliefs))
    # Every label that differs from the one their engine stored, named: exactly the beliefs
    # the report files as circular support, each stored IN there and OUT here.
    found = differences(their_labels(shared_networks / name),
                        {bid: b.truth for bid, b in ours.items()})
    assert found == {bid: ("IN", "OUT") for bid in report.circular_support}, found
    assert len(found) == expected["circular_support"]
    assert (report.stale, report.undetermined) == ([], [])
    # Circular indeed: no finite derivation, here and by the definition computed from scratch.
    from_scratch = compute_labels(store.read(lambda tx: tx.read_network()).beliefs)
    for bid in report.circular_support:
        assert ours[bid].depth is None and from_scratch[bid].depth is None, bid
        assert not ours[bid].retracted, bid
    # and no belief they stored IN has no finite derivation here but those
    assert {bid for bid, b in ours.items() if b.depth is None and stored[bid] == Truth.IN} == set(
        report.circular_support)
    # Self-listed beliefs (naming themselves) are among them.
    assert len(report.self_listed) == expected["self_listed"]
    assert set(report.self_listed) <= set(report.circular_support)
    # A stored-OUT belief whose support is valid comes in retracted, so it stays OUT.
    assert len(report.retractions_kept) == expected["retractions_kept"]
    for bid in report.retractions_kept:
        assert ours[bid].retracted and ours[bid].truth == Truth.OUT, bid


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


@pytest.mark.slow
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
