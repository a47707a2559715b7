"""Import from a network.json walked as a stream, in batches, on Neo4j: beliefs written before
the beliefs they name (the waiting justifications), ids no belief has (placeholders), the
labels exactly the from-scratch model (verify), one transaction whole or nothing; and verify
read page by page finds what it found read whole."""
from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters.formats import read_network_file
from adapters.neo4j import tms_tx
from adapters.network_stream import NetworkFile
from engine import interchange, tms
from engine.model import Belief, Truth
from engine.tms.records import Network
from tests.fakes import FakeStore

pytestmark = pytest.mark.neo4j


def _file(path: Path, seed: int, size: int = 40) -> None:
    rng = random.Random(seed)
    ids = [f"b{i:03d}" for i in range(size)]
    # first in the file: a belief naming one that comes last and one that never comes
    nodes: dict = {"a-first": {"text": "First.", "justifications": [
        {"antecedents": [ids[-1], "never-added"]}, {"antecedents": [ids[-1]]}]}}
    for bid in rng.sample(ids, len(ids)):  # beliefs often before those they name
        node: dict = {"text": f"Belief {bid}.", "truth_value": rng.choice(("IN", "IN", "OUT"))}
        if rng.random() < 0.6:
            node["justifications"] = [
                {"antecedents": rng.sample(ids + ["never-added"], rng.randint(1, 3)),
                 "outlist": rng.sample(ids, 1) if rng.random() < 0.3 else []}
                for _ in range(rng.randint(1, 2))]
        if rng.random() < 0.1:
            node["metadata"] = {"access_tags": ["team-a"]}
        nodes[bid] = node
    nodes[ids[-1]] = nodes.pop(ids[-1])
    path.write_text(json.dumps({"nodes": nodes, "nogoods": [], "meta": {"name": "t"},
                                "repos": {}}), encoding="utf-8")


@pytest.mark.parametrize("seed", range(3))
def test_a_streamed_import_in_small_batches_labels_as_the_whole_file_import(
        store, tmp_path, monkeypatch, seed):
    monkeypatch.setattr(tms_tx, "LABELLED_BATCH", 3)
    path = tmp_path / "n.json"
    _file(path, seed)
    report = interchange.import_source(store, NetworkFile(path))
    assert tms.verify(store) == []

    network, stored = read_network_file(path)
    fake = FakeStore()
    assert interchange.import_network(fake, network, stored).retractions_kept == \
        report.retractions_kept
    got = store.read(lambda tx: tx.read_network()).beliefs
    assert set(got) == set(network.beliefs)
    for bid, want in fake.state.beliefs.items():
        b = got[bid]
        assert (b.truth, b.depth, b.justifications, b.retracted, b.effective_tags) == (
            want.truth, want.depth, want.justifications, want.retracted, want.effective_tags)
    assert "never-added" in store.read(lambda tx: tx.placeholder_ids(["never-added"]))


class _FailsOnSecondWalk:
    """A NetworkSource whose second walk (inside the write transaction) breaks after some
    batches are written: what a file changed mid-import, or a dropped disk, does."""

    def __init__(self, path: Path):
        self.file = NetworkFile(path)
        self.walks = 0

    def beliefs(self) -> Iterator[tuple[Belief, Truth]]:
        self.walks += 1
        for k, item in enumerate(self.file.beliefs()):
            if self.walks == 2 and k == 30:
                raise OSError("the disk went away")
            yield item

    def rest(self) -> Network:
        return self.file.rest()


def test_a_streamed_import_that_fails_midway_writes_nothing(store, tmp_path, monkeypatch):
    monkeypatch.setattr(tms_tx, "LABELLED_BATCH", 3)
    path = tmp_path / "n.json"
    _file(path, 1)
    source = _FailsOnSecondWalk(path)
    with pytest.raises(OSError, match="the disk went away"):
        interchange.import_source(store, source)
    assert source.walks == 2
    assert tms.status(store).beliefs == 0
    assert store.read(lambda tx: tx.placeholder_ids(["never-added"])) == set()


def test_verify_read_page_by_page_finds_a_wrong_label(store, tmp_path, monkeypatch, driver,
                                                        neo4j_settings):
    monkeypatch.setattr(tms_tx, "LABELLING_PAGE", 4)
    path = tmp_path / "n.json"
    _file(path, 2)
    interchange.import_source(store, NetworkFile(path))
    assert tms.verify(store) == []
    with driver.session(database=neo4j_settings.database) as session:
        wrong = session.run("MATCH (b:Belief:In) WITH b ORDER BY b.id DESC LIMIT 1 "
                            "REMOVE b:In SET b:Out RETURN b.id AS id").single()["id"]
    problems = tms.verify(store)
    assert [(p.id, p.stored, p.computed) for p in problems] == [(wrong, "OUT", "IN")]
