"""engine/embedding/upkeep.py and keeper.py on the in-memory store: every belief's embedding
brought up to date in bounded batches, the memory's model recorded and a new one re-embedding
everything, a reworded belief embedded anew, a ranking by meaning refused while embeddings
are missing (or computed first when few are), and the keeper that does it after writes."""
from __future__ import annotations

import pytest

from engine import tms
from engine.embedding.cache import MemoryVectorCache
from engine.embedding.keeper import COMPUTING, EmbeddingKeeper
from engine.embedding.upkeep import (
    MissingEmbeddings,
    embedding_backlog,
    require_current_embeddings,
    update_embeddings,
    with_current_embeddings,
)
from engine.reading import search as searching
from tests.fakes import FakeStore


class CountingEmbedder:
    """Texts about a keyword point along that keyword's axis; counts what it embeds."""

    AXES = ("cache", "auth", "queue")

    def __init__(self, model_name: str = "axes") -> None:
        self.model_name = model_name
        self.texts: list[str] = []
        self.calls = 0

    def embed(self, texts):
        self.calls += 1
        self.texts += list(texts)
        out = []
        for text in texts:
            v = [1.0 if axis in text.lower() else 0.0 for axis in self.AXES]
            out.append(v if any(v) else [0.0, 0.0, 0.1])
        return out


def memory(n: int = 5) -> FakeStore:
    s = FakeStore()
    for i in range(n):
        tms.add(s, f"b{i}", f"belief {i} about the {('cache', 'auth', 'queue')[i % 3]}")
    return s


def embedding_writes(store: FakeStore) -> list[int]:
    return [e.args["beliefs"] for e in store.state.changes if e.op == "embeddings"]


def test_update_computes_what_is_missing_in_bounded_batches_and_records_the_model():
    store, embedder, seen = memory(5), CountingEmbedder(), []
    assert embedding_backlog(store, "axes").missing == 5
    assert not embedding_backlog(store, "axes").kept
    update = update_embeddings(store, embedder, batch=2,
                               progress=lambda done, total: seen.append((done, total)))
    assert (update.total, update.missing, update.computed, update.written) == (5, 5, 5, 5)
    assert seen == [(2, 5), (4, 5), (5, 5)]
    assert embedding_writes(store) == [2, 2, 1]  # each batch its own small write
    after = embedding_backlog(store, "axes")
    assert after.current and after.recorded_model == "axes"
    assert update_embeddings(store, embedder).computed == 0  # nothing left to do
    assert embedder.calls == 3


def test_texts_the_cache_holds_are_not_computed_again():
    cache, first = MemoryVectorCache(), CountingEmbedder()
    update_embeddings(memory(4), first, cache=cache)
    again = CountingEmbedder()
    update = update_embeddings(memory(4), again, cache=cache)  # another memory, same texts
    assert (update.computed, update.reused, update.written) == (0, 4, 4)
    assert again.calls == 0


def test_a_new_model_re_embeds_everything_and_is_recorded():
    store = memory(3)
    update_embeddings(store, CountingEmbedder("axes"))
    newer = CountingEmbedder("axes-v2")
    assert embedding_backlog(store, "axes-v2").missing == 3
    assert update_embeddings(store, newer).computed == 3
    assert embedding_backlog(store, "axes-v2").recorded_model == "axes-v2"
    assert embedding_backlog(store, "axes").missing == 3  # the old vectors are gone


def test_a_belief_reworded_in_place_is_embedded_anew():
    store, embedder = memory(3), CountingEmbedder()
    update_embeddings(store, embedder)
    store.write(lambda tx: tx.set_fields("b1", {"text": "the queue is full"}, "t"))
    assert embedding_backlog(store, "axes").missing == 1
    embedder.texts.clear()
    assert update_embeddings(store, embedder).computed == 1
    assert embedder.texts == ["the queue is full"]


def test_a_read_by_meaning_computes_a_few_missing_first_and_refuses_many():
    store, embedder = memory(5), CountingEmbedder()
    with pytest.raises(MissingEmbeddings, match="5 of 5 beliefs") as refused:
        with_current_embeddings(store, embedder, lambda: searching.search(
            store, "cache", embedder=embedder), compute_up_to=4, hint="run embed")
    assert str(refused.value).endswith("; run embed") and refused.value.exit_code == 2
    assert embedding_backlog(store, "axes").missing == 5  # nothing computed
    hits = with_current_embeddings(store, embedder, lambda: searching.search(
        store, "cache", embedder=embedder), compute_up_to=5)
    assert hits and embedding_backlog(store, "axes").current
    assert {h.belief.id for h in hits} >= {"b0", "b3"}


def test_require_current_embeddings_names_how_many_are_missing():
    store = memory(2)
    with pytest.raises(MissingEmbeddings, match="2 of 2 beliefs have no current embedding "
                                                "of axes"):
        require_current_embeddings(store, "axes")
    update_embeddings(store, CountingEmbedder())
    require_current_embeddings(store, "axes")


# --- the keeper -----------------------------------------------------------------------------
def test_the_keeper_leaves_a_memory_that_keeps_no_embeddings_alone():
    store, embedder = memory(3), CountingEmbedder()
    keeper = EmbeddingKeeper(store, lambda: embedder)
    keeper.note_write()
    assert keeper.wait_idle(10)
    assert embedder.calls == 0 and embedding_backlog(store, "axes").missing == 3
    keeper.stop()


def test_the_keeper_embeds_what_a_write_added_once_the_memory_keeps_embeddings():
    store, embedder = memory(3), CountingEmbedder()
    update_embeddings(store, embedder)
    updates = []
    keeper = EmbeddingKeeper(store, lambda: embedder, on_update=updates.append)
    tms.add(store, "new", "a new belief about auth")
    keeper.note_write()
    assert keeper.wait_idle(10)
    assert embedding_backlog(store, "axes").current
    assert [u.written for u in updates] == [1]
    keeper.stop()


def test_the_keeper_computes_a_few_for_a_search_and_many_in_the_background():
    store, embedder = memory(4), CountingEmbedder()
    keeper = EmbeddingKeeper(store, lambda: embedder, compute_up_to=3)
    with pytest.raises(MissingEmbeddings, match="4 of 4") as refused:
        keeper.by_meaning(lambda: searching.search(store, "cache", embedder=embedder))
    assert COMPUTING in str(refused.value)
    assert keeper.wait_idle(10) and embedding_backlog(store, "axes").current
    tms.add(store, "late", "the queue again")
    hits = keeper.by_meaning(lambda: searching.search(store, "queue", embedder=embedder))
    assert "late" in {h.belief.id for h in hits}  # one missing: computed on the spot
    keeper.stop()


def test_a_failing_upkeep_is_reported_and_the_keeper_goes_on():
    store, errors = memory(2), []

    class Broken(CountingEmbedder):
        def embed(self, texts):
            raise RuntimeError("no model here")

    keeper = EmbeddingKeeper(store, Broken, on_error=errors.append)
    keeper.compute_all()
    assert keeper.wait_idle(10)
    assert [str(e) for e in errors] == ["no model here"]
    keeper.note_write()  # the thread still answers
    assert keeper.wait_idle(10)
    keeper.stop()


# --- the command's parts ----------------------------------------------------------------------
def test_the_hint_names_the_program_as_it_was_called():
    from engine.service.context import Context
    from engine.service.meaning import embed_hint

    assert embed_hint(Context(FakeStore(), prog="eem")).startswith(
        "compute them with `eem embed`")
    assert "`python -m engine embed`" in embed_hint(Context(FakeStore(), prog="python -m engine"))
    # a stage program names the main program's embed
    assert "`eem embed`" in embed_hint(Context(FakeStore(), prog="eem ask"))
    assert "`python -m engine embed`" in embed_hint(Context(FakeStore(),
                                                            prog="python -m engine.ask"))


def test_the_progress_bar_redraws_on_a_terminal_and_prints_lines_elsewhere():
    import io

    from engine.cli.meaning import ProgressBar

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    piped, terminal = io.StringIO(), Terminal()
    for bar in (ProgressBar(piped), ProgressBar(terminal)):
        bar(256, 512)
        bar(512, 512)
    assert piped.getvalue() == "embeddings: 256/512 computed\nembeddings: 512/512 computed\n"
    assert terminal.getvalue() == ("\rembeddings [" + "#" * 15 + "." * 15 + "] 256/512"
                                   "\rembeddings [" + "#" * 30 + "] 512/512\n")
