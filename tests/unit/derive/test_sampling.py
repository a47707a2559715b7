"""The sampling strategies: windows, passes without repeats, proportional slots, rotation.

The cluster strategies run the real scikit-learn KMeans on vectors built to fall into known
groups; where a test needs exact cluster sizes it uses `FixedLabels`, a Clusterer that
returns labels given in advance.
"""
from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.clustering import kmeans_labels
from engine.derive.sampling import (
    STRATEGIES,
    Sample,
    apportion,
    default_n_clusters,
    make_sampler,
)
from engine.errors import InvalidInput


def pool_of(n: int, prefix: str = "p") -> list[tuple[str, str]]:
    return [(f"{prefix}-{i:04d}", f"premise {i}") for i in range(n)]


def grouped_vectors(sizes: list[int], dim: int = 16, seed: int = 0):
    """A pool whose embeddings fall into len(sizes) tight groups (group g along axis g)."""
    rng = np.random.default_rng(seed)
    pool, vectors, group = [], {}, {}
    n = 0
    for g, size in enumerate(sizes):
        for _ in range(size):
            pid = f"b-{n:04d}"
            v = np.zeros(dim, dtype=np.float32)
            v[g] = 1.0
            v += rng.normal(0, 0.05, dim).astype(np.float32)
            vectors[pid] = v / np.linalg.norm(v)
            pool.append((pid, f"text {n}"))
            group[pid] = g
            n += 1
    return sorted(pool), vectors, group


class Vectors:
    """A VectorSource over a dict, counting the ids it was asked for."""

    def __init__(self, by_id):
        self.by_id = dict(by_id)
        self.asked: list[str] = []

    def __call__(self, items):
        self.asked.extend(i for i, _ in items)
        return np.stack([self.by_id[i] for i, _ in items])


class FixedLabels:
    """A Clusterer whose labels are known in advance (by pool id)."""

    def __init__(self, label_of: dict[str, int], pool):
        self.rows = [label_of[i] for i, _ in pool]

    def __call__(self, vectors, k, seed):
        assert len(vectors) == len(self.rows)
        return self.rows


def run(sampler, pool, rounds: int) -> list[Sample]:
    return [sampler.sample(r, pool) for r in range(rounds)]


# --- alphabetical -------------------------------------------------------------------------
def expected_window(ids: list[str], r: int, n: int) -> set[str]:
    p = len(ids)
    return {ids[(r * n + j) % p] for j in range(min(n, p))}


def test_alphabetical_takes_the_rth_window_and_wraps():
    pool = pool_of(971)
    ids = [i for i, _ in pool]
    s = make_sampler("alphabetical", budget=300)
    samples = run(s, pool, 7)
    assert set(samples[0].ids) == set(ids[:300])
    assert set(samples[1].ids) == set(ids[300:600])
    assert set(samples[3].ids) == set(ids[900:]) | set(ids[:229])  # wraps around
    for r, sample in enumerate(samples):
        assert set(sample.ids) == expected_window(ids, r, 300)
        assert sample.strategy == "alphabetical" and sample.cluster is None
    assert samples[1].description.startswith("alphabetical window 2/4")
    assert "300 of 971 IN premises" in samples[1].description


def test_alphabetical_sweeps_everything_in_ceil_p_over_n_rounds():
    pool = pool_of(971)
    seen = set().union(*(set(s.ids) for s in run(make_sampler("alphabetical"), pool, 4)))
    assert len(seen) == 971


@settings(max_examples=60, deadline=None)
@given(p=st.integers(1, 400), n=st.integers(1, 120), rounds=st.integers(1, 12))
def test_alphabetical_matches_the_window_formula(p, n, rounds):
    pool = pool_of(p)
    ids = [i for i, _ in pool]
    for r, sample in enumerate(run(make_sampler("alphabetical", budget=n), pool, rounds)):
        assert set(sample.ids) == expected_window(ids, r, n)
        assert len(sample.ids) == min(n, p)
        assert list(sample.ids) == sorted(sample.ids)


def test_alphabetical_pool_changes_drop_the_gone_and_reach_the_new():
    pool = pool_of(100)
    s = make_sampler("alphabetical", budget=30)
    first = set(s.sample(0, pool).ids)  # p-0000 .. p-0029
    gone = {"p-0040", "p-0041"}
    # one new id ahead of the cursor, one behind it (reached when the sweep wraps)
    changed = sorted([x for x in pool if x[0] not in gone]
                     + [("p-0035x", "new"), ("a-new", "new")])
    r1, r2, r3 = (set(s.sample(r, changed).ids) for r in (1, 2, 3))
    assert not (r1 | r2 | r3) & gone
    assert "p-0035x" in r1 and "a-new" in r3
    assert not r1 & first and not r2 & (first | r1)  # no repeats within the pass ...
    assert first | r1 | r2 | r3 == {i for i, _ in changed}  # ... which round 3 completes
    assert len(r3 - first - r1 - r2) == 10  # and then starts the next one


# --- random -------------------------------------------------------------------------------
def test_random_shows_no_belief_twice_before_all_once():
    pool = pool_of(971)
    samples = run(make_sampler("random", budget=300, seed=7), pool, 8)
    assert all(len(s.ids) == 300 for s in samples)
    assert set().union(*(set(s.ids) for s in samples[:4])) == {i for i, _ in pool}
    # the shuffle is walked as a cycle: any run of rounds showing at most 971 ids has no
    # repeat, across the pass boundary inside round 4 too
    for start in range(0, 5):
        counts = Counter(i for s in samples[start:start + 3] for i in s.ids)
        assert max(counts.values()) == 1


def test_random_is_deterministic_by_seed_and_differs_across_seeds():
    pool = pool_of(500)
    a = [s.ids for s in run(make_sampler("random", budget=50, seed=3), pool, 6)]
    b = [s.ids for s in run(make_sampler("random", budget=50, seed=3), pool, 6)]
    c = [s.ids for s in run(make_sampler("random", budget=50, seed=4), pool, 6)]
    assert a == b
    assert a != c
    sampler = make_sampler("random", budget=50)
    assert isinstance(sampler.seed, int)  # drawn when not given, kept for the report
    assert f"seed {sampler.seed}" in sampler.sample(0, pool).description


def test_random_is_not_the_alphabetical_prefix():
    pool = pool_of(500)
    ids = make_sampler("random", budget=100, seed=1).sample(0, pool).ids
    assert set(ids) != {i for i, _ in pool[:100]}


@settings(max_examples=40, deadline=None)
@given(p=st.integers(1, 300), n=st.integers(1, 80), seed=st.integers(0, 2**32 - 1),
       gone=st.sets(st.integers(0, 299), max_size=20), new=st.integers(0, 20),
       when=st.integers(1, 4))
def test_random_with_a_changing_pool_still_covers_without_repeats(p, n, seed, gone, new, when):
    pool = pool_of(p)
    later = sorted([x for k, x in enumerate(pool) if k not in gone] + pool_of(new, prefix="q"))
    s = make_sampler("random", budget=n, seed=seed)
    now, shown = pool, set()
    for r in range(when + math.ceil(max(1, len(later)) / n) + 2):
        if r == when:
            now = later
            shown &= {i for i, _ in later}  # what left the pool no longer counts
        wanted = {i for i, _ in now}
        ids = set(s.sample(r, now).ids)
        assert len(ids) == min(n, len(now)) and ids <= wanted
        if not wanted:
            return
        if ids & shown:  # the first repeat: only once the pass has shown everything
            assert shown | ids == wanted
            return
        shown |= ids
    pytest.fail("the pass never completed")


# --- the budget cap and the factory -------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(p=st.integers(0, 250), n=st.integers(1, 60), strategy=st.sampled_from(STRATEGIES),
       rounds=st.integers(1, 6))
def test_no_strategy_ever_exceeds_the_budget(p, n, strategy, rounds):
    pool = pool_of(p)
    rng = np.random.default_rng(p)
    vectors = Vectors({i: v for (i, _), v in zip(pool, rng.normal(size=(p, 8)))})
    s = make_sampler(strategy, budget=n, seed=1, vectors=vectors, n_clusters=3,
                     clusterer=kmeans_labels)
    for sample in run(s, pool, rounds):
        assert len(sample.ids) <= n
        assert len(set(sample.ids)) == len(sample.ids)
        assert set(sample.ids) <= {i for i, _ in pool}
        if strategy != "intra-cluster":
            assert len(sample.ids) == min(n, p)


def test_the_factory_refuses_bad_input():
    with pytest.raises(InvalidInput):
        make_sampler("semantic")
    with pytest.raises(InvalidInput):
        make_sampler("alphabetical", budget=0)
    with pytest.raises(InvalidInput):
        make_sampler("cluster")  # no vectors
    with pytest.raises(InvalidInput):
        make_sampler("intra-cluster", vectors=lambda items: [], n_clusters=0)


def test_the_cluster_strategies_are_given_their_clusterer():
    for strategy in ("cluster", "intra-cluster"):
        with pytest.raises(InvalidInput, match="needs a clusterer"):
            make_sampler(strategy, vectors=lambda items: [])


def test_an_empty_pool_gives_an_empty_sample():
    for strategy in STRATEGIES:
        s = make_sampler(strategy, vectors=lambda items: np.zeros((len(items), 4)),
                         clusterer=kmeans_labels)
        sample = s.sample(0, [])
        assert sample.ids == () and sample.strategy == strategy
        assert "no IN premises" in sample.description


def test_rounds_go_forward_a_repeat_gives_the_same_sample_and_a_skip_takes_the_windows():
    pool = pool_of(100)
    s = make_sampler("alphabetical", budget=10)
    assert s.sample(0, pool) == s.sample(0, pool)
    jumped = make_sampler("alphabetical", budget=10).sample(3, pool)
    s.sample(1, pool), s.sample(2, pool)
    assert s.sample(3, pool).ids == jumped.ids
    with pytest.raises(InvalidInput):
        s.sample(1, pool)


# --- apportion ----------------------------------------------------------------------------
def test_apportion_is_proportional_by_largest_remainder():
    assert apportion(10, [5, 3, 2], [5, 3, 2]) == [5, 3, 2]
    assert apportion(10, [50, 30, 20], [50, 30, 20]) == [5, 3, 2]
    assert apportion(7, [1, 1, 1], [9, 9, 9]) == [3, 2, 2]  # ties to the lower index
    assert sum(apportion(300, [262, 256, 239, 214], [262, 256, 239, 214])) == 300


def test_apportion_gives_what_a_capped_group_cannot_take_to_the_others():
    # group 2 would get 5 of 10 but can take only 1: the other 4 go to groups 0 and 1
    assert apportion(10, [2, 3, 5], [9, 9, 1]) == [4, 5, 1]
    assert apportion(10, [1, 1], [2, 3]) == [2, 3]  # never more than the caps allow
    assert apportion(5, [0, 4], [3, 3]) == [0, 3]


def test_apportion_at_least_one_slot_per_group_when_there_are_enough():
    assert apportion(10, [97, 2, 1], [97, 2, 1], at_least_one=True) == [8, 1, 1]
    assert apportion(10, [97, 2, 1], [97, 2, 1]) == [10, 0, 0]
    assert sum(apportion(2, [5, 5, 5], [5, 5, 5], at_least_one=True)) == 2


def test_default_n_clusters_rule():
    assert default_n_clusters(971, 300) == 4  # ceil(971 / 300)
    assert default_n_clusters(200, 300) == 2
    assert default_n_clusters(1, 300) == 1
    assert default_n_clusters(100_000, 300) == 32  # capped
    assert default_n_clusters(0, 300) == 0


# --- cluster (proportional) ---------------------------------------------------------------
def test_cluster_slots_follow_cluster_sizes_with_real_kmeans():
    pool, vectors, group = grouped_vectors([60, 30, 10])
    s = make_sampler("cluster", budget=20, seed=0, n_clusters=3, vectors=Vectors(vectors),
                     clusterer=kmeans_labels)
    sample = s.sample(0, pool)
    per_group = Counter(group[i] for i in sample.ids)
    assert per_group == {0: 12, 1: 6, 2: 2}  # 20 slots in proportion to 60/30/10
    assert s.n_clusters == 3
    assert sample.strategy == "cluster" and sample.cluster is None
    assert "over 3 clusters (slots 12, 6, 2" in sample.description


def test_cluster_rotates_within_clusters_so_coverage_grows():
    pool, vectors, group = grouped_vectors([60, 30, 10])
    s = make_sampler("cluster", budget=20, seed=0, n_clusters=3, vectors=Vectors(vectors),
                     clusterer=kmeans_labels)
    samples = run(s, pool, 5)
    counts = Counter(i for smp in samples for i in smp.ids)
    assert set(counts) == {i for i, _ in pool}  # all 100 in ceil(100 / 20) rounds
    assert max(counts.values()) == 1  # and none twice within the pass
    # the rotation inside a cluster goes in id order
    g0 = sorted(i for i in group if group[i] == 0)
    assert [i for i in samples[0].ids if group[i] == 0] == g0[:12]
    assert [i for i in samples[1].ids if group[i] == 0] == g0[12:24]


def test_cluster_slots_a_small_cluster_cannot_fill_go_to_the_others():
    pool = pool_of(100)
    label = {i: (0 if k < 50 else 1 if k < 98 else 2) for k, (i, _) in enumerate(pool)}
    vectors = Vectors({i: np.eye(3, dtype=np.float32)[label[i]] for i, _ in pool})
    s = make_sampler("cluster", budget=30, seed=0, vectors=vectors,
                     clusterer=FixedLabels(label, pool), n_clusters=3)
    tiny = {i for i in label if label[i] == 2}
    samples = run(s, pool, 4)
    assert [len(smp.ids) for smp in samples] == [30, 30, 30, 30]
    in_tiny = [len(set(smp.ids) & tiny) for smp in samples]
    assert in_tiny[:2] == [1, 1]  # its one slot (at least one per cluster) ...
    shown = Counter(i for smp in samples[:3] for i in smp.ids)
    assert max(shown.values()) == 1  # ... and, once it is exhausted, no repeats:
    assert in_tiny[2] == 0  # its slot went to the others
    assert set().union(*(set(smp.ids) for smp in samples)) == set(label)


def test_cluster_is_deterministic_by_seed():
    pool, vectors, _ = grouped_vectors([40, 30, 20, 10], seed=5)
    a = [x.ids for x in run(make_sampler("cluster", budget=15, seed=9, vectors=Vectors(vectors),
                                         clusterer=kmeans_labels), pool, 4)]
    b = [x.ids for x in run(make_sampler("cluster", budget=15, seed=9, vectors=Vectors(vectors),
                                         clusterer=kmeans_labels), pool, 4)]
    assert a == b


def test_cluster_asks_for_vectors_once_and_then_only_for_new_premises():
    pool, vectors, group = grouped_vectors([30, 30], dim=8)
    new_id = "b-9999"
    v = np.zeros(8, dtype=np.float32)
    v[1] = 1.0
    vectors[new_id] = v
    source = Vectors(vectors)
    s = make_sampler("cluster", budget=10, seed=0, n_clusters=2, vectors=source,
                     clusterer=kmeans_labels)
    s.sample(0, pool)
    assert sorted(source.asked) == sorted(i for i, _ in pool)
    s.sample(1, pool)
    grown = sorted(pool + [(new_id, "a new premise about group 1")])
    shown = set()
    for r in range(2, 8):
        shown |= set(s.sample(r, grown).ids)
    assert source.asked[len(pool):] == [new_id]
    assert new_id in shown
    cluster_of_new = next(c for c, sw in enumerate(s._sweeps) if new_id in sw.order)
    members = [i for i in s._sweeps[cluster_of_new].order if i != new_id]
    assert {group[i] for i in members} == {1}  # joined the nearest centroid's cluster


# --- intra-cluster ------------------------------------------------------------------------
def test_intra_cluster_rotates_through_all_clusters_largest_first():
    pool, vectors, group = grouped_vectors([25, 40, 10, 18])
    s = make_sampler("intra-cluster", budget=50, seed=0, n_clusters=4,
                     vectors=Vectors(vectors), clusterer=kmeans_labels)
    samples = run(s, pool, 8)
    assert [smp.cluster for smp in samples] == [0, 1, 2, 3, 0, 1, 2, 3]
    sizes = [len(smp.ids) for smp in samples[:4]]
    assert sizes == [40, 25, 18, 10]  # largest first, the whole cluster each time
    for smp in samples:
        assert len({group[i] for i in smp.ids}) == 1  # one cluster per round
    assert s.n_clusters == 4
    assert samples[0].description.startswith("intra-cluster: cluster 0 of 4")


def test_intra_cluster_sweeps_a_cluster_larger_than_the_budget_and_meets_the_bound():
    pool = pool_of(700)
    label = {i: (0 if k < 450 else 1 if k < 640 else 2) for k, (i, _) in enumerate(pool)}
    vectors = Vectors({i: np.eye(3, dtype=np.float32)[label[i]] for i, _ in pool})
    budget, k = 200, 3
    s = make_sampler("intra-cluster", budget=budget, seed=0, vectors=vectors,
                     clusterer=FixedLabels(label, pool), n_clusters=k)
    bound = math.ceil(700 / budget) + k
    samples = run(s, pool, bound)
    seen, full_at = set(), None
    for r, smp in enumerate(samples):
        seen |= set(smp.ids)
        if full_at is None and len(seen) == 700:
            full_at = r + 1
    assert full_at is not None and full_at <= bound
    # cluster 0 (450) is shown on its successive turns: 200 new, 200 new, then 50 new + 150
    # of its own already shown, so every round of it is full
    turns = [smp for smp in samples if smp.cluster == 0]
    assert [len(t.ids) for t in turns[:3]] == [200, 200, 200]
    assert not set(turns[0].ids) & set(turns[1].ids)
    assert len(set(turns[2].ids) - set(turns[0].ids) - set(turns[1].ids)) == 50
    # any k consecutive rounds before the pass ends visit k different clusters
    assert len({smp.cluster for smp in samples[:k]}) == k


def test_intra_cluster_skips_clusters_finished_in_this_pass():
    pool = pool_of(60)
    label = {i: (0 if k < 50 else 1) for k, (i, _) in enumerate(pool)}
    vectors = Vectors({i: np.eye(2, dtype=np.float32)[label[i]] for i, _ in pool})
    s = make_sampler("intra-cluster", budget=20, seed=0, vectors=vectors,
                     clusterer=FixedLabels(label, pool), n_clusters=2)
    clusters = [smp.cluster for smp in run(s, pool, 6)]
    # 0 (20 new), 1 (all 10), 0 (20 new), 0 again: cluster 1 has nothing new until the pass
    # ends; then the next pass goes on with the rotation
    assert clusters == [0, 1, 0, 0, 1, 0]


def test_intra_cluster_is_deterministic_by_seed():
    pool, vectors, _ = grouped_vectors([30, 20, 10], seed=2)
    runs = [[(x.cluster, x.ids) for x in run(make_sampler(
        "intra-cluster", budget=15, seed=11, vectors=Vectors(vectors),
        clusterer=kmeans_labels), pool, 5)]
        for _ in range(2)]
    assert runs[0] == runs[1]


def test_kmeans_labels_finds_the_groups_and_subsamples_large_pools():
    pool, vectors, group = grouped_vectors([50, 50, 50], dim=8)
    matrix = np.stack([vectors[i] for i, _ in pool])
    for max_fit in (10_000, 40):  # the whole pool, then a 40-row subsample
        labels = kmeans_labels(matrix, 3, seed=0, max_fit=max_fit)
        pairs = {(group[i], lab) for (i, _), lab in zip(pool, labels)}
        assert len(pairs) == 3  # each group is exactly one cluster
    assert kmeans_labels(matrix[:1], 3, seed=0) == [0]


@settings(max_examples=40, deadline=None)
@given(sizes=st.lists(st.integers(1, 150), min_size=1, max_size=8), n=st.integers(1, 100))
def test_intra_cluster_shows_everything_within_ceil_p_over_n_plus_k_rounds(sizes, n):
    pool = pool_of(sum(sizes))
    label, k = {}, len(sizes)
    for c, _size in enumerate(sizes):
        for i, _ in pool[sum(sizes[:c]):sum(sizes[:c + 1])]:
            label[i] = c
    vectors = Vectors({i: np.eye(k, dtype=np.float32)[label[i]] for i, _ in pool})
    s = make_sampler("intra-cluster", budget=n, seed=0, vectors=vectors,
                     clusterer=FixedLabels(label, pool), n_clusters=k)
    exact = sum(math.ceil(size / n) for size in sizes)
    assert exact <= math.ceil(len(pool) / n) + k - 1
    seen: set[str] = set()
    for r in range(exact):
        sample = s.sample(r, pool)
        assert len({label[i] for i in sample.ids}) == 1
        seen |= set(sample.ids)
    assert seen == set(label)
