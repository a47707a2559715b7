"""The real networks through the markdown registry: export, reset, import gives a graph that
verifies clean, with every label, depth and pin as before, and the same network.json."""
from __future__ import annotations

import pytest

from adapters.formats import network_to_json, read_network_file
from adapters.markdown_registry import dump_markdown, parse_markdown
from engine import interchange, tms

pytestmark = [pytest.mark.neo4j, pytest.mark.network_data, pytest.mark.slow]

NETWORKS = ["system-design-eem.json", "data-intensive-applications-eem.json"]


def _labels(network):
    return {b.id: (b.truth, b.depth, b.retracted, b.asserted) for b in network.beliefs.values()}


@pytest.mark.parametrize("name", NETWORKS)
def test_real_network_round_trips_through_markdown(store, shared_networks, name):
    interchange.import_network(store, *read_network_file(shared_networks / name))
    before = interchange.export_network(store)
    text = dump_markdown(before)
    tms.reset(store)
    interchange.import_network(store, *parse_markdown(text, source=name + ".md"))
    assert tms.verify(store) == []
    after = interchange.export_network(store)
    assert _labels(after) == _labels(before)
    assert network_to_json(after) == network_to_json(before)
    assert dump_markdown(after) == text
