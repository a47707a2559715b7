"""engine/reading/search.py on the in-memory store: the text ranking, OUT beliefs only on request,
the meaning ranking from an injected embedder (refused while embeddings are missing), the
graph's proximity, and reciprocal rank fusion."""
from __future__ import annotations

import pytest

from engine import tms
from engine.embedding.upkeep import MissingEmbeddings, update_embeddings
from engine.errors import InvalidInput
from engine.model import Truth
from engine.reading import ranking
from engine.reading import search as searching
from engine.reading.records import BeliefHit
from tests.fakes import FakeStore


class AxisEmbedder:
    """Texts mentioning a keyword point along that keyword's axis (a fake with a meaning)."""

    model_name = "axes"
    AXES = ("cache", "auth", "queue")

    def embed(self, texts):
        out = []
        for text in texts:
            v = [1.0 if axis in text.lower() else 0.0 for axis in self.AXES]
            out.append(v if any(v) else [0.0, 0.0, 0.1])
        return out


@pytest.fixture
def store():
    s = FakeStore()
    tms.add(s, "cache-coherent", "The cache is coherent with the database")
    tms.add(s, "cache-stale-reads", "Readers may see stale values")
    tms.add(s, "auth-uses-jwt", "The auth service validates JWTs")
    tms.add(s, "cache-hot-path", "Reads hit memory first",
            tms.make_justifications(["cache-coherent", "auth-uses-jwt"]))
    tms.add(s, "queue-backlog", "The queue backs up at peak")
    return s


def test_words_rank_by_how_many_match_and_hits_carry_label_depth_dependents(store):
    hits = searching.search(store, "cache coherent")
    assert hits[0].belief.id == "cache-coherent"
    assert {h.belief.id for h in hits} == {"cache-coherent", "cache-stale-reads",
                                           "cache-hot-path"}
    top = hits[0].as_dict()
    assert top["truth"] == "IN" and top["depth"] == 0 and top["dependents"] == 1
    assert top["text_rank"] == 1 and top["semantic_rank"] is None


def test_out_beliefs_only_when_asked(store):
    tms.retract(store, "cache-stale-reads")
    assert "cache-stale-reads" not in {h.belief.id for h in searching.search(store, "stale")}
    hits = searching.search(store, "stale", include_out=True)
    assert [(h.belief.id, h.belief.truth) for h in hits] == [("cache-stale-reads", Truth.OUT)]


def test_the_limit_cuts_the_list(store):
    assert len(searching.search(store, "cache", limit=2)) == 2


@pytest.mark.parametrize("words", ["", "   ", []])
def test_no_words_is_bad_input(store, words):
    with pytest.raises(InvalidInput, match="at least one word"):
        searching.search(store, words)


@pytest.mark.parametrize("limit", [0, -1, 5000])
def test_a_limit_out_of_range_is_bad_input(store, limit):
    with pytest.raises(InvalidInput, match="--limit takes a number from 1"):
        searching.search(store, "cache", limit=limit)


def embedded(store, embedder=None):
    """The store with every belief's embedding computed, as `eem embed` computes them."""
    update_embeddings(store, embedder or AxisEmbedder())
    return store


def test_semantic_adds_beliefs_the_words_miss_and_fuses_the_ranks(store):
    embedder = AxisEmbedder()
    embedded(store, embedder)
    # "database" is a word of cache-coherent only; by meaning every cache belief is near
    hits = searching.search(store, "cache database", embedder=embedder, limit=10)
    by_id = {h.belief.id: h for h in hits}
    assert hits[0].belief.id == "cache-coherent"  # first in both rankings
    assert by_id["cache-coherent"].text_rank == 1 and by_id["cache-coherent"].semantic_rank
    assert "auth-uses-jwt" not in by_id or by_id["auth-uses-jwt"].score < hits[0].score


def test_semantic_leaves_out_out_beliefs_unless_asked(store):
    embedder = AxisEmbedder()
    embedded(store, embedder)
    tms.retract(store, "queue-backlog")
    assert "queue-backlog" not in {h.belief.id for h in
                                   searching.search(store, "queue", embedder=embedder)}
    assert "queue-backlog" in {h.belief.id for h in
                               searching.search(store, "queue", embedder=embedder,
                                                include_out=True)}


def test_semantic_search_is_refused_while_a_belief_has_no_current_embedding(store):
    embedder = AxisEmbedder()
    with pytest.raises(MissingEmbeddings, match="5 of 5 beliefs have no current embedding"):
        searching.search(store, "cache", embedder=embedder)
    embedded(store, embedder)
    tms.add(store, "cache-evicts", "The cache evicts the oldest entries first")
    with pytest.raises(MissingEmbeddings, match="1 of 6 beliefs") as refused:
        searching.search(store, "cache", embedder=embedder)
    assert refused.value.exit_code == 2
    assert searching.search(store, "cache")  # by words, asked for as such, it answers


def test_a_reworded_belief_is_embedded_anew(store):
    embedder = AxisEmbedder()
    embedded(store, embedder)
    store.write(lambda tx: tx.set_fields("queue-backlog", {"text": "The cache backs up"}, "t"))
    with pytest.raises(MissingEmbeddings, match="1 of 5"):
        searching.search(store, "cache", embedder=embedder)
    assert update_embeddings(store, embedder).computed == 1
    assert "queue-backlog" in {h.belief.id for h in
                               searching.search(store, "cache", embedder=embedder)}


def test_a_belief_one_step_from_the_best_matches_rises_above_an_equal_match_alone():
    s = FakeStore()
    tms.add(s, "disk-full", "The disk is full")
    tms.add(s, "logs-grow", "The logs grow without rotation")
    tms.add(s, "alerts-night", "Alerts fire at night", tms.make_justifications(
        ["disk-full", "logs-grow"]))
    tms.add(s, "alerts-muted", "Alerts are muted on weekends")
    # both alerts-* beliefs match one word (by id, alerts-muted would come first); the one
    # the two best matches join rises, here to the top: it ties the question together
    hits = searching.search(s, "disk full logs rotation alerts", limit=5)
    ids = [h.belief.id for h in hits]
    assert ids[-1] == "alerts-muted" and ids.index("alerts-night") < ids.index("disk-full")
    night, muted = hits[ids.index("alerts-night")], hits[-1]
    assert night.text_rank > muted.text_rank  # by its own words alone it ranks lower


def test_fusion_adds_reciprocal_ranks():
    a, b, c = (BeliefHit(i, "", Truth.IN, 0, 0) for i in "abc")
    fused = ranking.fuse({"text": [a, b], "semantic": [b, c]})
    k = searching.RRF_K
    assert fused["b"].relevance == pytest.approx(1 / (k + 2) + 1 / (k + 1))
    assert fused["a"].relevance == pytest.approx(1 / (k + 1))
    assert fused["b"].ranks == {"text": 2, "semantic": 1}
    assert sorted(fused, key=lambda i: -fused[i].relevance) == ["b", "a", "c"]
