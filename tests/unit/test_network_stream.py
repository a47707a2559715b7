"""network.json walked as a stream, and written as one (write_network) (adapters/network_stream.py) reads what the whole-file reader
reads, refuses what it refuses, and an import from it gives the same graph and report as an
import of the file read whole (engine/interchange.import_source, one code path for both)."""
from __future__ import annotations

import dataclasses
import io
import json
import os
import random
from pathlib import Path

import pytest

from adapters import network_stream
from adapters.formats import dump_network, read_network_file, write_network
from adapters.network_stream import NetworkFile
from engine import interchange
from engine.errors import InvalidInput
from engine.model import Belief
from engine.tms.records import Network
from tests.fakes import FakeStore

EXAMPLE = Path(__file__).resolve().parents[2] / "scripts" / "example-network.json"


@pytest.fixture(params=[7, 1 << 20], ids=["chunks-of-7", "chunks-of-1M"])
def chunk(request, monkeypatch):
    """Small chunks cut every value, key and number somewhere."""
    monkeypatch.setattr(network_stream, "CHUNK", request.param)
    return request.param


def _walk(path: Path):
    f = NetworkFile(path)
    beliefs = list(f.beliefs())
    return beliefs, f.rest()


def test_the_stream_reads_what_the_whole_file_reader_reads(chunk):
    network, stored = read_network_file(EXAMPLE)
    beliefs, rest = _walk(EXAMPLE)
    assert [b.id for b, _ in beliefs] == list(network.beliefs)
    assert {b.id: b for b, _ in beliefs} == network.beliefs
    assert {b.id: t for b, t in beliefs} == stored
    assert (rest.nogoods, rest.meta, rest.repos, rest.supersessions, rest.sources) == (
        network.nogoods, network.meta, network.repos, network.supersessions, network.sources)


def test_numbers_strings_and_escapes_cut_by_a_chunk_read_whole(tmp_path, chunk):
    data = {"meta": {"n": 12345678901234567890, "x": -1.5e-7, "s": "a\\\"b\u00e9\n"},
            "nodes": {"a": {"text": "\u00e9\u00e8 \"quoted\" \\ back", "metadata": {"k": 123456}},
                      "b": {"text": "B", "justifications": [{"antecedents": ["a"]}]}},
            "nogoods": [], "repos": {}}
    path = tmp_path / "n.json"
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    network, stored = read_network_file(path)
    beliefs, rest = _walk(path)
    assert {b.id: b for b, _ in beliefs} == network.beliefs
    assert rest.meta == network.meta == data["meta"]


@pytest.mark.parametrize("text, message", [
    ('{"nodes": {"a": {"text": "A"}, "a": {"text": "again"}}}', "duplicate key 'a'"),
    ('{"nodes": {}, "nodes": {}}', "duplicate key 'nodes'"),
    ('{"nodes": {"a": {"text": "A", "text": "B"}}}', "duplicate key 'text'"),
    ('{"nodes": {"a": {"text": "A"}}', r"not valid JSON: .* at line 1 column \d+"),
    ('{"nodes": {"a": {"text": "A"},\n  "b" {"text": "B"}}}', r"not valid JSON: .* line 2 column 7"),
    ('{"nodes": {}} extra', r"not valid JSON: Extra data at line 1 column 15"),
    ('[1, 2]', "expected a JSON object with a 'nodes' object"),
    ('{"meta": {}}', "'nodes' is missing or not an object"),
    ('{"nodes": []}', "'nodes' is missing or not an object"),
    ('{"nodes": {"Bad Id": {"text": "A"}}}', "invalid id"),
    ('{"nodes": {"a": {"text": ""}}}', "empty or missing 'text'"),
    ('{"nodes": {"a": {"text": "A"}}, "nogoods": {}}', "nogoods"),
])
def test_what_the_stream_refuses_it_names(tmp_path, chunk, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InvalidInput, match=message):
        _walk(path)


def test_a_missing_file_is_named():
    with pytest.raises(InvalidInput, match="no such file"):
        NetworkFile("/nonexistent/network.json")


def test_a_file_that_changes_between_walks_is_refused(tmp_path):
    path = tmp_path / "n.json"
    path.write_text('{"nodes": {"a": {"text": "A"}}}', encoding="utf-8")
    f = NetworkFile(path)
    list(f.beliefs())
    path.write_text('{"nodes": {"a": {"text": "A changed"}}}', encoding="utf-8")
    os.utime(path, ns=(1, 1))
    with pytest.raises(InvalidInput, match="changed while it was being imported"):
        list(f.beliefs())


def _random_file(rng: random.Random, path: Path) -> None:
    """Beliefs in a random order (justifications naming beliefs later in the file and ids no
    belief has), some stored OUT (some with a retraction date), some asserted, outlists."""
    ids = [f"b{i}" for i in range(30)]
    nodes = {}
    for bid in rng.sample(ids, len(ids)):
        node: dict = {"text": f"Belief {bid}.",
                      "truth_value": rng.choice(("IN", "IN", "OUT"))}
        if rng.random() < 0.6:
            node["justifications"] = [
                {"antecedents": rng.sample(ids + ["absent"], rng.randint(1, 3)),
                 "outlist": rng.sample(ids, 1) if rng.random() < 0.3 else []}
                for _ in range(rng.randint(1, 2))]
        if node["truth_value"] == "OUT" and rng.random() < 0.5:
            node["retracted_at"] = "2026-01-01T00:00:00Z"
        if rng.random() < 0.1:
            node["asserted"] = True
        nodes[bid] = node
    path.write_text(json.dumps({"nodes": nodes, "nogoods": [], "meta": {}, "repos": {}}),
                    encoding="utf-8")


@pytest.mark.parametrize("seed", range(25))
def test_an_import_from_the_stream_equals_one_from_the_whole_file(tmp_path, seed):
    path = tmp_path / "n.json"
    _random_file(random.Random(seed), path)
    whole, streamed = FakeStore(), FakeStore()
    network, stored = read_network_file(path)
    want = interchange.import_network(whole, network, stored)
    got = interchange.import_source(streamed, NetworkFile(path))
    assert got == want

    def undated(beliefs):  # a retraction import keeps is dated by the import's clock
        return {b: dataclasses.replace(x, retracted_at="") for b, x in beliefs.items()}

    assert undated(streamed.state.beliefs) == undated(whole.state.beliefs)


def test_the_whole_file_import_keeps_decide_pins_labels(tmp_path):
    """import_source decides pins and differences on the network's shape; decide_pins and
    label_differences on Belief records are the reference: the same retractions, labels and
    differences."""
    for seed in range(25):
        path = tmp_path / f"n{seed}.json"
        _random_file(random.Random(seed), path)
        network, stored = read_network_file(path)
        pinned, labels = interchange.decide_pins(network.beliefs, stored)
        store = FakeStore()
        report = interchange.import_source(store, NetworkFile(path))
        assert report.retractions_kept == sorted(b for b in pinned if pinned[b].retracted)
        assert {b: (x.truth, x.depth) for b, x in store.state.beliefs.items()} == {
            b: (label.truth, label.depth) for b, label in labels.items()}
        differences = interchange.label_differences(pinned, labels, stored)
        assert (report.circular_support, report.stale, report.undetermined) == (
            differences.circular_support, differences.stale, differences.undetermined)


def _written(network) -> str:
    out = io.StringIO()
    rest = Network({}, network.nogoods, network.repos, network.meta, network.supersessions,
                   network.sources)
    write_network(out, rest, len(network.beliefs),
                  (network.beliefs[b] for b in sorted(network.beliefs)))
    return out.getvalue()


def test_the_streamed_export_writes_dump_networks_text():
    network, _ = read_network_file(EXAMPLE)
    assert _written(network) == dump_network(network)
    assert _written(Network({})) == dump_network(Network({}))
    odd = Belief("a", "line one\nline two \u00e9 \"q\" {\n}", metadata={"k": ["x\ny"]},
                 extra={"custom": {"nested": [1, 2]}})
    assert _written(Network({"a": odd, "b": Belief("b", "B")})) == dump_network(
        Network({"a": odd, "b": Belief("b", "B")}))
