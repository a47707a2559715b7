"""A forge run on the in-memory FakeStore (the fake implements the same forge verbs as the
Neo4j store): premises with their FROM edges, nothing sent again, and a stale retraction."""
from __future__ import annotations

from adapters.sources.reader import FileSourceReader
from engine.model import Truth
from engine.sources.staleness import retract_stale, source_states
from tests.fakes import FakeStore
from tests.forge_fakes import BagOfWordsEmbedder, QuotingChatModel, write_tree
from tests.forge_run import run_forge


def test_forge_on_the_fake_store(tmp_path):
    root = write_tree(tmp_path, {"a.md": "# A\n\nRedis runs as a single node.\n",
                                 "b.md": "# B\n\nPostgres has one replica.\n"})
    store = FakeStore()
    result = run_forge(store, root, QuotingChatModel(), embedder=BagOfWordsEmbedder())
    assert [str(r.outcome) for r in result.rounds] == ["proposed", "proposed"]
    assert store.state.from_edges == {"redis-runs-as-a-single-node": ("a.md", (3, 3)),
                                      "postgres-has-one-replica": ("b.md", (3, 3))}
    assert set(store.state.embeddings) == set(store.state.from_edges)
    again = QuotingChatModel()
    run_forge(store, root, again)
    assert again.calls == []
    (root / "a.md").write_text("# A\n\nRedis now runs as a cluster.\n")
    reader = FileSourceReader(root)
    assert {s.path: s.status for s in source_states(store, reader)}["a.md"] == "changed"
    retract_stale(store, reader, at="2026-12-03T08:00:00+00:00")
    b = store.state.beliefs["redis-runs-as-a-single-node"]
    assert b.truth == Truth.OUT and b.retract_reason == "source changed: a.md"


def test_a_source_put_back_as_it_was_forged_brings_its_premises_back(tmp_path):
    original = "# A\n\nRedis runs as a single node.\n"
    root = write_tree(tmp_path, {"a.md": original})
    store = FakeStore()
    run_forge(store, root, QuotingChatModel())
    (root / "a.md").write_text("# A\n\nRedis now runs as a cluster.\n")
    retract_stale(store, FileSourceReader(root), at="2026-12-03T08:00:00+00:00")
    assert store.state.beliefs["redis-runs-as-a-single-node"].truth == Truth.OUT
    (root / "a.md").write_text(original)
    again = QuotingChatModel()
    result = run_forge(store, root, again)
    assert [r.restored for r in result.reconciled] == [["redis-runs-as-a-single-node"]]
    b = store.state.beliefs["redis-runs-as-a-single-node"]
    assert b.truth == Truth.IN and not b.retracted and again.calls == []
