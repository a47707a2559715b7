"""Candidate pairs and complete-link clusters, without a server."""
from __future__ import annotations

import random
from itertools import combinations

from engine.pairs.candidates import (
    complete_link,
    current_verdicts,
    id_token_pairs,
    id_tokens,
    jaccard,
    pair,
    unjudged,
)
from engine.pairs.records import PairVerdict


def test_a_chain_is_not_one_cluster():
    """A~B and B~C but not A~C: single link would make {A, B, C}; complete link never does."""
    clusters = complete_link([pair("a", "b", 0.95), pair("b", "c", 0.9)], 8)
    assert [c.members for c in clusters] == [("a", "b")]
    assert all(len(c.members) < 3 for c in clusters)


def test_a_triangle_is_one_cluster_scored_by_its_weakest_pair():
    clusters = complete_link([pair("a", "b", 0.95), pair("b", "c", 0.9), pair("a", "c", 0.86)], 8)
    assert [(c.members, c.score) for c in clusters] == [(("a", "b", "c"), 0.86)]


def test_every_pair_of_every_cluster_is_a_candidate_pair():
    rng = random.Random(7)
    ids = [f"b{i}" for i in range(40)]
    pairs = [pair(x, y, rng.random()) for x, y in combinations(ids, 2) if rng.random() < 0.3]
    linked = {(p.a, p.b) for p in pairs}
    clusters = complete_link(pairs, 5)
    # enough clusters, some of more than two, for the loop below to check something
    assert len(clusters) >= 10 and sum(len(c.members) > 2 for c in clusters) >= 3
    seen: set[str] = set()
    for c in clusters:
        assert 2 <= len(c.members) <= 5
        assert not seen & set(c.members)  # clusters are disjoint
        seen |= set(c.members)
        assert all((x, y) in linked for x, y in combinations(c.members, 2))


def test_the_size_cap_holds():
    ids = [f"x{i}" for i in range(12)]
    clique = [pair(x, y, 0.9) for x, y in combinations(ids, 2)]
    clusters = complete_link(clique, 8)
    assert max(len(c.members) for c in clusters) == 8
    assert sorted(len(c.members) for c in clusters) == [4, 8]


def test_id_token_pairs_find_exactly_the_pairs_at_the_threshold():
    rng = random.Random(3)
    words = ["cache", "auth", "db", "queue", "is", "slow", "fast", "jwt", "token", "read", "write"]
    ids = sorted({"-".join(rng.sample(words, rng.randint(1, 4))) for _ in range(120)})
    for threshold in (0.4, 0.5, 0.75):
        got = {(p.a, p.b) for p in id_token_pairs(ids, threshold=threshold, k=len(ids))}
        want = {(a, b) for a, b in combinations(sorted(ids), 2)
                if jaccard(id_tokens(a), id_tokens(b)) >= threshold}
        assert got == want


def test_id_token_pairs_keep_each_ids_k_best():
    ids = ["a-b-c", "a-b-c-d", "a-b-c-e", "a-b-x"]
    got = id_token_pairs(ids, threshold=0.4, k=1)
    assert all(p.score >= 0.4 for p in got)
    partners = {i: [p for p in got if i in (p.a, p.b)] for i in ids}
    assert partners["a-b-c"]  # its best partner is kept


def test_a_verdict_counts_only_while_both_texts_are_unchanged():
    v = PairVerdict("dedup", "a", "b", "sa", "sb", "DIFFERENT")
    assert current_verdicts([v], {"a": "sa", "b": "sb"}) == {("a", "b"): v}
    assert current_verdicts([v], {"a": "sa", "b": "changed"}) == {}
    pairs = [pair("a", "b", 0.9), pair("a", "c", 0.9)]
    assert unjudged(pairs, {("a", "b"): v}) == [pair("a", "c", 0.9)]
