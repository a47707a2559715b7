"""Forge against the real Neo4j: grounded premises with their sources and provenance, zero
model calls on unchanged sources, staleness after an edit or a deletion, re-forging that keeps
the premises whose quotes survive, documents through the converter, the --similar rule on
the vector index, and a proposals file accepted later."""
from __future__ import annotations

import json

import pytest

from adapters.sources.reader import FileSourceReader
from engine import tms
from engine.model import Justification, Truth
from engine.tms.records import BeliefFilter
from engine.sources.staleness import retract_stale, source_states, stale_beliefs
from engine.stages.accept import accept
from tests.derive_fakes import ScriptedChatModel
from tests.forge_fakes import BagOfWordsEmbedder, QuotingChatModel, tiny_pdf, write_tree
from tests.forge_run import run_forge, stage_factory

pytestmark = pytest.mark.neo4j

AUTH = """# Authentication

The auth service validates the JWT signature on every request.
The JWKS key cache expires every five minutes.
Token refresh runs on a single worker thread.
"""
SETTINGS = '''"""Catalog settings."""

# Each catalog instance keeps a pool of 10 connections.
POOL_SIZE = 10
'''
IDS = {
    "jwt": "the-auth-service-validates-the-jwt",
    "jwks": "the-jwks-key-cache-expires-every",
    "refresh": "token-refresh-runs-on-a-single",
    "pool": "each-catalog-instance-keeps-a-pool",
}


def beliefs(store, ids=None):
    def read(tx):
        return tx.get_beliefs(ids) if ids is not None else {
            b.id: b for b in tx.list_beliefs(BeliefFilter())}
    return store.read(read)


def graph(driver, query, **params):
    with driver.session() as s:
        return [r.data() for r in s.run(query, params)]


@pytest.fixture
def tree(tmp_path):
    return write_tree(tmp_path / "src-tree", {"docs/auth.md": AUTH, "src/settings.py": SETTINGS})


def test_forge_adds_grounded_premises_with_sources_and_provenance(store, driver, tree):
    chat = QuotingChatModel(twist={
        "Token refresh runs on a single worker thread.": "Token refresh runs on many threads."})
    result = run_forge(store, tree, chat)
    assert result.status == "complete" and len(chat.calls) == 2
    got = beliefs(store)
    assert set(got) == {IDS["jwt"], IDS["jwks"], IDS["pool"]}
    skipped = [s for r in result.rounds for s in r.skipped]
    assert [(s.id, s.reason) for s in skipped] == [
        (IDS["refresh"], "not grounded: the quote does not occur in docs/auth.md lines 1-5")]
    jwt = got[IDS["jwt"]]
    assert jwt.truth == Truth.IN and jwt.is_premise and jwt.source == "docs/auth.md"
    assert jwt.metadata["source_type"] == "forge" and jwt.metadata["lines"] == [3, 3]
    assert jwt.metadata["quote"] == "The auth service validates the JWT signature on every request."
    assert got[IDS["pool"]].metadata["lines"] == [3, 3]
    reader = FileSourceReader(tree)
    assert jwt.source_hash == reader.fingerprint("docs/auth.md").sha256
    edges = graph(driver, "MATCH (b:Belief)-[f:FROM]->(s:Source) RETURN b.id AS id, "
                          "f.lines AS lines, s.path AS path ORDER BY id")
    assert {(e["id"], e["path"], tuple(e["lines"])) for e in edges} == {
        (IDS["jwt"], "docs/auth.md", (3, 3)), (IDS["jwks"], "docs/auth.md", (4, 4)),
        (IDS["pool"], "src/settings.py", (3, 3))}
    sources = graph(driver, "MATCH (s:Source) RETURN s.path AS path, s.size AS size, "
                            "size(s.chunks) AS chunks, s.forged_at AS at ORDER BY path")
    assert [(s["path"], s["size"], s["chunks"]) for s in sources] == [
        ("docs/auth.md", len(AUTH), 1), ("src/settings.py", len(SETTINGS), 1)]
    rounds = graph(driver, "MATCH (r:Run {stage: 'forge'})-[:HAS_ROUND]->(d:Round) "
                           "OPTIONAL MATCH (d)-[:PROPOSED]->(b) RETURN d.n AS n, "
                           "collect(b.id) AS ids ORDER BY n")
    assert [(r["n"], len(r["ids"])) for r in rounds] == [(1, 2), (2, 1)]
    assert result.report.grounding()["grounded_share"] == 0.75
    assert result.report.to_json()["grounding"]["not_grounded"] == 1


def test_a_rerun_on_unchanged_sources_calls_the_model_zero_times(store, tree):
    run_forge(store, tree, QuotingChatModel())
    again = QuotingChatModel()
    result = run_forge(store, tree, again)
    assert again.calls == [] and result.rounds == [] and result.plan.pending == ()
    assert len(beliefs(store)) == 4


def test_edit_one_file_status_stale_retract_and_reforge(store, tree):
    run_forge(store, tree, QuotingChatModel())
    tms.add(store, "auth-cache-risk", "Auth depends on its key cache.",
            [Justification((IDS["jwt"], IDS["jwks"]))])
    tms.add(store, "catalog-pool-ok", "The pool is fine.",
            [Justification((IDS["pool"], IDS["jwt"]))])
    (tree / "docs/auth.md").write_text(
        AUTH.replace("The JWKS key cache expires every five minutes.",
                     "The JWKS key cache never expires.")
        .replace("# Authentication\n", "# Authentication\n\nIntroduction.\n"), encoding="utf-8")
    reader = FileSourceReader(tree)

    states = {s.path: s.status for s in source_states(store, reader)}
    assert states == {"docs/auth.md": "changed", "src/settings.py": "unchanged"}

    stale = {s.id: s for s in stale_beliefs(store, reader)}
    assert set(stale) == {IDS["jwt"], IDS["jwks"], IDS["refresh"]}
    assert stale[IDS["jwt"]].now == "quote moved to lines 5-5"
    assert stale[IDS["jwks"]].now == "quote gone"

    # each belief on its own pin: the moved quotes are re-pinned, only the gone one retracted
    _, done = retract_stale(store, reader, at="2026-12-03T08:00:00+00:00")
    assert done.retracted == [IDS["jwks"]]
    assert sorted(done.repinned) == sorted([IDS["jwt"], IDS["refresh"]])
    got = beliefs(store)
    assert got[IDS["jwks"]].truth == Truth.OUT
    assert got[IDS["jwks"]].retract_reason == "source changed: docs/auth.md"
    assert got[IDS["jwt"]].truth == Truth.IN and got[IDS["jwt"]].metadata["lines"] == [5, 5]
    assert got[IDS["jwt"]].source_hash == reader.fingerprint("docs/auth.md").sha256
    assert "auth-cache-risk" in done.change.went_out
    assert got["catalog-pool-ok"].truth == Truth.IN and got[IDS["pool"]].truth == Truth.IN

    chat = QuotingChatModel()
    run_forge(store, tree, chat)
    assert len(chat.calls) == 1  # the changed chunk only
    got = beliefs(store)
    assert got[IDS["jwks"]].truth == Truth.OUT  # its words are gone
    assert got["auth-cache-risk"].truth == Truth.OUT
    assert "the-jwks-key-cache-never-expires" in got
    assert tms.verify(store) == []
    assert {s.status for s in source_states(store, reader)} == {"unchanged"}
    assert stale_beliefs(store, reader) == [s for s in stale_beliefs(store, reader)
                                            if s.id == IDS["jwks"]]


def test_reforging_a_changed_file_directly_keeps_survivors_and_retracts_the_rest(store, tree):
    run_forge(store, tree, QuotingChatModel())
    (tree / "docs/auth.md").write_text(AUTH.replace(
        "Token refresh runs on a single worker thread.\n", ""), encoding="utf-8")
    result = run_forge(store, tree, QuotingChatModel())
    [r] = result.reconciled
    assert r.retracted == [IDS["refresh"]] and {i for i, _ in r.kept} == {IDS["jwt"], IDS["jwks"]}
    got = beliefs(store)
    assert got[IDS["refresh"]].retract_reason == "source changed: docs/auth.md"
    assert got[IDS["jwt"]].truth == Truth.IN


def test_a_deleted_file_is_missing_and_its_beliefs_go_out(store, tree):
    run_forge(store, tree, QuotingChatModel())
    (tree / "src/settings.py").unlink()
    reader = FileSourceReader(tree)
    assert {s.path: s.status for s in source_states(store, reader)}["src/settings.py"] == "missing"
    _, done = retract_stale(store, reader, at="2026-12-03T08:00:00+00:00")
    assert done.left_missing == [IDS["pool"]]  # a missing file is not a changed one
    stale, _ = retract_stale(store, reader, at="2026-12-03T08:00:00+00:00", missing=True)
    assert [(s.id, s.now) for s in stale] == [(IDS["pool"], "source missing")]
    pool = beliefs(store, [IDS["pool"]])[IDS["pool"]]
    assert pool.truth == Truth.OUT and pool.retract_reason == "source missing: src/settings.py"


def test_new_files_are_named_by_status_with_paths(store, tree):
    run_forge(store, tree, QuotingChatModel())
    write_tree(tree, {"docs/new.md": "# New\n\nFresh.\n"})
    states = {s.path: s.status for s in source_states(store, FileSourceReader(tree), [str(tree)])}
    assert states["docs/new.md"] == "new"


def test_a_pdf_and_a_markdown_file_through_the_converter(store, tmp_path):
    pytest.importorskip("markitdown", reason="the documents extra converts PDFs")
    root = write_tree(tmp_path / "docs", {
        "paper.pdf": tiny_pdf(["Queue consumers retry five times.",
                               "The dead-letter queue is never alerted on."]),
        "notes.md": "# Notes\n\nOrders are delivered at least once.\n"})
    result = run_forge(store, root, QuotingChatModel())
    assert result.status == "complete" and not result.report.skipped_files
    got = beliefs(store)
    assert got["queue-consumers-retry-five-times"].source == "paper.pdf"
    assert got["orders-are-delivered-at-least-once"].metadata["lines"] == [3, 3]
    pdf_lines = got["the-dead-letter-queue-is-never"].metadata["lines"]
    assert pdf_lines[0] >= 1


def test_the_similar_rule_on_the_vector_index(store, tmp_path):
    root = write_tree(tmp_path / "t", {
        "a.md": "# A\n\nRedis runs as a single node in production.\n",
        "b.md": "# B\n\nIn production Redis runs as a single node.\n"})
    embedder = BagOfWordsEmbedder()
    result = run_forge(store, root, QuotingChatModel(), embedder=embedder, similar=0.9)
    skipped = [s for r in result.rounds for s in r.skipped]
    assert [s.id for s in skipped] == ["in-production-redis-runs-as-a"]
    assert skipped[0].reason.startswith(
        "likely duplicate of existing belief 'redis-runs-as-a-single-node'")
    assert "## Nearest existing beliefs" in result.rounds[1].prompt
    assert "redis-runs-as-a-single-node" in result.rounds[1].prompt.split("## Nearest")[1]


def test_a_format_failure_is_retried_once_then_the_chunk_stays_pending(store, tree):
    good = json.dumps({"premises": [{"id": "auth-checks-jwt", "claim": "Auth checks JWTs.",
                                     "quote": "validates the JWT signature"}]})
    chat = ScriptedChatModel(script=["I cannot", good, "nope", "still nope"])
    result = run_forge(store, tree, chat)
    assert [r.outcome for r in result.rounds] == ["proposed", "format_failure"]
    assert "could not be read" in chat.received[1][-1].content
    assert result.plan.pending and len(beliefs(store)) == 1
    again = QuotingChatModel()
    run_forge(store, tree, again)
    assert len(again.calls) == 1  # only the chunk that failed


def test_proposals_file_then_accept_grounds_again_in_the_current_text(store, tree, tmp_path):
    out = tmp_path / "proposed-premises.md"
    result = run_forge(store, tree, QuotingChatModel(), auto=False, output=out)
    assert result.proposals_file == out and beliefs(store) == {}
    text = out.read_text()
    assert "python -m engine.forge accept" in text and IDS["jwt"] in text
    (tree / "docs/auth.md").write_text(AUTH.replace(
        "The JWKS key cache expires every five minutes.\n", ""), encoding="utf-8")
    reader = FileSourceReader(tree)
    got = accept(store, stage_factory(reader)([]), out)
    assert {e["id"] for e in got.applied.entries} == {IDS["jwt"], IDS["refresh"], IDS["pool"]}
    assert [(s.id, s.reason.split(":")[0]) for s in got.applied.checked.skipped] == [
        (IDS["jwks"], "not grounded")]
    b = beliefs(store, [IDS["refresh"]])[IDS["refresh"]]
    assert b.metadata["lines"] == [4, 4]
    assert {s.status for s in source_states(store, reader)} == {"unchanged"}
