"""engine/ask/retrieval.py on the in-memory store: one list, most relevant first; what a
match rests on comes in by its own relevance, else only named as its provenance; near
duplicates on one line (by embeddings, or by words without them); OUT beliefs with why;
the same bundle for the same graph and question."""
from __future__ import annotations

import math

from engine import tms
from engine.ask.retrieval import Role, retrieve
from engine.embedding.upkeep import update_embeddings
from tests.fakes import FakeStore

QUESTION = "why do cache reads go stale after a failover?"


class WordsEmbedder:
    """A vector per text with one axis per word of a small vocabulary (a fake with a
    meaning): texts sharing most of those words point the same way."""

    model_name = "words"
    VOCABULARY = ("cache", "stale", "failover", "replica", "lag", "reads", "auth", "token",
                  "queue", "keys")

    def embed(self, texts):
        out = []
        for text in texts:
            v = [float(w in text.lower()) for w in self.VOCABULARY]
            norm = math.sqrt(sum(x * x for x in v)) or 1.0
            out.append([x / norm for x in v] if any(v) else [0.0] * (len(v) - 1) + [0.01])
        return out


BELIEFS = [
    ("replica-lag", "A replica lags the primary by seconds", ()),
    ("failover-promotes", "Failover promotes the most recent replica", ()),
    ("stale-after-failover", "Cache reads go stale after a failover",
     ("replica-lag", "failover-promotes")),
    ("stale-reads-after-failover", "After a failover the cache reads are stale", ()),
    ("auth-tokens", "Auth tokens expire hourly", ()),
    ("old-cache-rule", "Cache reads never go stale", ()),
]


def shop(order: list[int] | None = None) -> FakeStore:
    s = FakeStore()
    for n in order or range(len(BELIEFS)):  # antecedents before what rests on them
        bid, text, rests_on = BELIEFS[n]
        tms.add(s, bid, text, tms.make_justifications(list(rests_on)) if rests_on else ())
    tms.retract(s, "old-cache-rule", "disproved by the failover drill")
    return s


def test_one_list_most_relevant_first_with_provenance_and_why_out():
    bundle = retrieve(shop(), QUESTION, budget=3000)
    text = bundle.text()
    assert text.startswith(f"# Question: {QUESTION}\n## Beliefs that bear on it, most "
                           "relevant first\n")
    assert bundle.entries[0].id == "stale-after-failover"
    assert ("- stale-after-failover [IN, depth 1]: Cache reads go stale after a failover "
            "(rests on: replica-lag, failover-promotes)") in text
    assert ("- old-cache-rule [OUT, depth 0]: Cache reads never go stale (OUT because: "
            "retracted: disproved by the failover drill)") in text
    assert "auth-tokens" not in bundle.ids  # nothing of it bears on the question
    ids = list(bundle.ids)
    assert ids.index("old-cache-rule") > ids.index("stale-after-failover")  # OUT after IN


def test_what_a_match_rests_on_comes_in_by_its_own_relevance_not_by_a_slot():
    s = shop()
    tms.add(s, "ops-manual", "The operations manual is reviewed yearly")
    tms.add(s, "drill-result", "Cache reads went stale in the drill",
            tms.make_justifications(["ops-manual"]))
    bundle = retrieve(s, "cache reads stale drill", budget=3000)
    by_id = {e.id: e for e in bundle.entries}
    assert "drill-result" in by_id and by_id["drill-result"].rests_on == ("ops-manual",)
    assert "ops-manual" not in by_id  # named as provenance, not shown: nothing asks for it
    failover = retrieve(s, "failover replica lag", budget=3000)
    roles = {e.id: (e.role, e.related) for e in failover.entries}
    assert roles["replica-lag"][0] in (Role.MATCH, Role.SUPPORT)
    assert roles["stale-after-failover"] == (Role.DEPENDENT, roles["stale-after-failover"][1])


def test_near_duplicates_by_their_words_take_one_line_naming_the_other():
    bundle = retrieve(shop(), QUESTION, budget=3000)
    lines = [e for e in bundle.entries if "stale-reads-after-failover" in (e.id, *e.duplicates)]
    assert len(lines) == 1 and lines[0].id == "stale-after-failover"
    assert lines[0].duplicates == ("stale-reads-after-failover",)
    assert "(also said by: stale-reads-after-failover)" in bundle.text()
    assert "stale-reads-after-failover" in bundle.ids  # citable: the bundle names it


def test_near_duplicates_by_their_embeddings_and_never_across_labels():
    s = shop()
    tms.add(s, "replica-lags-too", "The replica lags")  # few words shared, the same meaning
    update_embeddings(s, WordsEmbedder())
    bundle = retrieve(s, "replica lag reads", budget=3000, embedder=WordsEmbedder())
    folded = {d: e.id for e in bundle.entries for d in e.duplicates}
    assert folded.get("replica-lags-too") == "replica-lag" or \
        folded.get("replica-lag") == "replica-lags-too"
    assert "old-cache-rule" not in folded  # OUT: never folded into an IN line
    assert bundle.ranked_by == "words and meaning"


def test_a_small_budget_keeps_the_best_lines_and_counts_the_rest():
    big = retrieve(shop(), QUESTION, budget=3000)
    small = retrieve(shop(), QUESTION, budget=130)
    assert small.tokens <= 130 and 0 < len(small.entries) < len(big.entries)
    assert small.entries[0] == big.entries[0]
    assert small.left_out == len(big.entries) - len(small.entries) + big.left_out
    assert f"({small.left_out} more related beliefs did not fit the budget)" in small.text()


def test_the_same_graph_and_question_give_the_same_bundle_whatever_the_order_of_writes():
    first = retrieve(shop(), QUESTION, budget=800)
    assert retrieve(shop(), QUESTION, budget=800).text() == first.text()
    assert retrieve(shop([5, 4, 3, 1, 0, 2]), QUESTION, budget=800).text() == first.text()
