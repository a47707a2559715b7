"""Candidate clusters for dedup, and candidate pairs for contradictions, without ever holding
an N x N matrix.

Neighbours come from the Neo4j vector index over the embeddings derive already stores on
beliefs (engine/embedding/cache.py: same embedder, same cache; a belief whose
embedding is missing or stale gets one first): for each IN belief, its `k` nearest IN beliefs
at cosine >= threshold, asked for a batch of beliefs per statement. Memory is O(N * k).
Networks without embeddings use id-token Jaccard (`--by-id`), found by prefix filtering (two
ids can reach the threshold only if they share one of their rarest tokens), also never all
pairs.

Clusters are complete-link: a cluster is only formed when every pair in it is a neighbour
pair above the threshold, so a chain A~B~C with A not~C never becomes one cluster (the
anchor's union-find did exactly that). Pairs a stage has already judged, on the same texts,
are removed before clustering: they are not asked again.
"""
from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from engine.embedding.cache import Embedder, VectorCache, ensure_embeddings, text_sha256
from engine.embedding.records import VectorTx
from engine.pairs.records import PairVerdict
from engine.store import Store

KNN_BATCH = 500  # beliefs per nearest-neighbour statement
_ID_TOKEN = re.compile(r"[._:-]+")

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Pair:
    a: str  # a < b
    b: str
    score: float  # cosine, or id-token Jaccard


@dataclass(frozen=True)
class Cluster:
    members: tuple[str, ...]  # sorted
    score: float  # the weakest pair in it (complete link)


def pair(a: str, b: str, score: float) -> Pair:
    return Pair(a, b, score) if a < b else Pair(b, a, score)


def _best_k(found: Iterable[tuple[str, str, float]], k: int) -> list[Pair]:
    """Each belief's k best partners, as undirected pairs (best score kept)."""
    by_belief: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for a, b, s in found:
        if a != b:
            by_belief[a].append((s, b))
    best: dict[tuple[str, str], float] = {}
    for a, partners in by_belief.items():
        partners.sort(key=lambda p: (-p[0], p[1]))
        for s, b in partners[:k]:
            key = (a, b) if a < b else (b, a)
            if s > best.get(key, -2.0):
                best[key] = s
    return [Pair(a, b, s) for (a, b), s in sorted(best.items())]


SEARCHES = ("auto", "index", "vectors")
INDEX_UP_TO = 10_000  # `auto`: the vector index up to this many IN beliefs, blocks above


def embedding_pairs(store: Store[VectorTx], embedder: Embedder, pool: Sequence[tuple[str, str]], *,
                    threshold: float, k: int, search: str = "auto",
                    cache: VectorCache | None = None,
                    progress: Progress | None = None) -> list[Pair]:
    """Neighbour pairs among `pool`'s beliefs at cosine >= threshold, each belief's k best:
    through the vector index (`index`), or block by block over the vectors derive's cache
    holds (`vectors`, engine/pairs/neighbours.py); `auto` picks by the pool's size."""
    if search == "vectors" or (search == "auto" and len(pool) > INDEX_UP_TO):
        return _pairs_from_vectors(store, embedder, pool, threshold=threshold, k=k, cache=cache)
    ensure_current_embeddings(store, embedder, pool, cache=cache)
    ids = [i for i, _ in pool]
    members = set(ids)
    found: list[tuple[str, str, float]] = []
    for start in range(0, len(ids), KNN_BATCH):
        chunk = ids[start:start + KNN_BATCH]
        rows = store.read(lambda tx: tx.nearest_beliefs(chunk, k, threshold))
        found.extend(r for r in rows if r[1] in members)
        if progress is not None:
            progress(min(start + KNN_BATCH, len(ids)), len(ids))
    return _best_k(found, k)


def _pairs_from_vectors(store: Store[VectorTx], embedder: Embedder,
                        pool: Sequence[tuple[str, str]], *,
                        threshold: float, k: int, cache: VectorCache | None) -> list[Pair]:
    from engine.pairs.neighbours import nearest, pairs_by_id

    matrix = ensure_embeddings(store, embedder, pool, cache=cache)
    if len(pool) < 2:
        return []
    import numpy as np  # ensure_embeddings has checked it is there

    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix = matrix / np.where(norms > 0, norms, 1.0)
    ids = [i for i, _ in pool]
    return _best_k(pairs_by_id(ids, nearest(matrix, k, threshold)), k)


def ensure_current_embeddings(store: Store[VectorTx], embedder: Embedder,
                              pool: Sequence[tuple[str, str]],
                              *, cache: VectorCache | None = None) -> int:
    """Compute and store the embeddings `pool` lacks (or holds for another text or model),
    through derive's cache; the vectors already stored are not read. Returns how many."""
    keys = store.read(lambda tx: tx.embedding_keys([i for i, _ in pool]))
    model = embedder.model_name
    stale = [(i, t) for i, t in pool if keys.get(i) != (text_sha256(t), model)]
    if stale:
        ensure_embeddings(store, embedder, stale, cache=cache)
    return len(stale)


def id_tokens(belief_id: str) -> frozenset[str]:
    return frozenset(t for t in _ID_TOKEN.split(belief_id) if t)


def jaccard(x: frozenset[str], y: frozenset[str]) -> float:
    union = len(x | y)
    return len(x & y) / union if union else 0.0


def id_token_pairs(ids: Sequence[str], *, threshold: float, k: int) -> list[Pair]:
    """Pairs of ids whose token sets have Jaccard >= threshold (0 < threshold <= 1), each
    id's k best. Prefix filtering: with tokens ordered rarest first, two sets reaching the
    threshold share a token among the first |x| - ceil(threshold * |x|) + 1 of each."""
    tokens = {i: id_tokens(i) for i in ids}
    df: dict[str, int] = defaultdict(int)
    for ts in tokens.values():
        for t in ts:
            df[t] += 1
    index: dict[str, list[str]] = defaultdict(list)
    found: list[tuple[str, str, float]] = []
    for i in sorted(ids, key=lambda x: (len(tokens[x]), x)):
        ts = tokens[i]
        if not ts:
            continue
        ordered = sorted(ts, key=lambda t: (df[t], t))
        prefix = ordered[:len(ts) - math.ceil(threshold * len(ts) - 1e-9) + 1]
        seen: set[str] = set()
        for t in prefix:
            for other in index[t]:
                if other in seen:
                    continue
                seen.add(other)
                s = jaccard(ts, tokens[other])
                if s >= threshold:
                    found.append((i, other, s))
                    found.append((other, i, s))
            index[t].append(i)
    return _best_k(found, k)


def current_verdicts(verdicts: Iterable[PairVerdict], shas: Mapping[str, str]
                     ) -> dict[tuple[str, str], PairVerdict]:
    """The verdicts still about the same texts (both shas as now), by pair."""
    return {(v.a, v.b): v for v in verdicts
            if shas.get(v.a) == v.sha_a and shas.get(v.b) == v.sha_b}


def complete_link(pairs: Iterable[Pair], max_cluster: int) -> list[Cluster]:
    """Agglomerate the strongest pairs first; two clusters join only when every cross pair
    is itself a candidate pair and the result stays within `max_cluster` members. Clusters
    of two or more, strongest first."""
    ordered = sorted(pairs, key=lambda p: (-p.score, p.a, p.b))
    linked: dict[str, dict[str, float]] = defaultdict(dict)
    for p in ordered:
        linked[p.a][p.b] = linked[p.b][p.a] = p.score
    cluster_of: dict[str, int] = {}
    members: dict[int, list[str]] = {}
    weakest: dict[int, float] = {}
    fresh = 0
    for p in ordered:
        ca, cb = cluster_of.get(p.a), cluster_of.get(p.b)
        if ca is not None and ca == cb:
            continue
        left = members[ca] if ca is not None else [p.a]
        right = members[cb] if cb is not None else [p.b]
        if len(left) + len(right) > max_cluster:
            continue
        if not all(y in linked[x] for x in left for y in right):
            continue
        cid, fresh = fresh, fresh + 1
        members[cid] = left + right
        weakest[cid] = min([linked[x][y] for x in left for y in right]
                           + [weakest[c] for c in (ca, cb) if c is not None])
        for old in (ca, cb):
            if old is not None:
                del members[old], weakest[old]
        for x in members[cid]:
            cluster_of[x] = cid
    clusters = [Cluster(tuple(sorted(m)), weakest[c]) for c, m in members.items()]
    return sorted(clusters, key=lambda c: (-c.score, c.members))


def unjudged(pairs: Iterable[Pair], judged: Mapping[tuple[str, str], PairVerdict]) -> list[Pair]:
    return [p for p in pairs if (p.a, p.b) not in judged]
