"""Nearest neighbours over a matrix of unit vectors, block by block, never N x N.

The vector index answers one k-NN query at a time (about 5-25 ms each on two shared cores),
which for 200k beliefs is most of an hour; this does the same search on the vectors derive's
embedding cache already holds, in blocks of dot products:
- up to EXACT_UP_TO vectors: exact, rows in blocks of BLOCK_ROWS against all of them;
- above: an inverted file. Centroids come from a few k-means steps on a sample; every vector
  is filed under its PROBES nearest centroids, and the vectors whose nearest centroid is c are
  compared with everything filed under c. A pair above the threshold is missed only when
  neither vector's nearest centroid is among the other's PROBES nearest, which for pairs at
  cosine 0.8 and above is rare (the benchmark counts what the exact search finds on a sample).
Memory is the matrix plus one block of dot products (BLOCK_ROWS x the block's columns).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from engine.optional import numpy_module

if TYPE_CHECKING:
    from types import ModuleType

    from engine.optional import ArrayLike, Indices, Matrix

EXACT_UP_TO = 5_000
BLOCK_ROWS = 1024
PROBES = 3
SAMPLE = 20_000
KMEANS_STEPS = 6


def _np():
    return numpy_module("neighbour search over embeddings")


def _top_k(np: ModuleType, dots: Matrix, row_ids: Indices, col_ids: Indices, k: int,
           threshold: float, out: list[tuple[int, int, float]]) -> None:
    """Each row's k best columns at or above threshold (itself excluded)."""
    dots[row_ids[:, None] == col_ids[None, :]] = -2.0
    take = min(k, dots.shape[1])
    if take <= 0:
        return
    best = np.argpartition(-dots, take - 1, axis=1)[:, :take]
    scores = np.take_along_axis(dots, best, axis=1)
    rows, cols = np.nonzero(scores >= threshold)
    for r, c in zip(rows.tolist(), cols.tolist()):
        out.append((int(row_ids[r]), int(col_ids[best[r, c]]), float(scores[r, c])))


def nearest(given: ArrayLike, k: int, threshold: float, *, seed: int = 0
            ) -> list[tuple[int, int, float]]:
    """(row, neighbour row, cosine) for each row's up to k nearest rows at cosine >=
    threshold. Rows must be unit vectors."""
    np = _np()
    matrix: Matrix = np.asarray(given, dtype=np.float32)
    n = len(matrix)
    out: list[tuple[int, int, float]] = []
    if n < 2:
        return out
    everything = np.arange(n)
    if n <= EXACT_UP_TO:
        for lo in range(0, n, BLOCK_ROWS):
            rows = everything[lo:lo + BLOCK_ROWS]
            _top_k(np, matrix[rows] @ matrix.T, rows, everything, k, threshold, out)
        return out
    centroids = _centroids(np, matrix, seed)
    filed = _nearest_centroids(np, matrix, centroids, PROBES)
    home = filed[:, 0]
    filed_under: list[list[Indices]] = [[] for _ in range(len(centroids))]
    for p in range(PROBES):
        order = np.argsort(filed[:, p], kind="stable")
        bounds = np.searchsorted(filed[order, p], np.arange(len(centroids) + 1))
        for c in range(len(centroids)):
            filed_under[c].append(order[bounds[c]:bounds[c + 1]])
    home_order = np.argsort(home, kind="stable")
    home_bounds = np.searchsorted(home[home_order], np.arange(len(centroids) + 1))
    for c in range(len(centroids)):
        rows_all = home_order[home_bounds[c]:home_bounds[c + 1]]
        if len(rows_all) == 0:
            continue
        cols = np.unique(np.concatenate(filed_under[c]))
        block = matrix[cols]
        for lo in range(0, len(rows_all), BLOCK_ROWS):
            rows = rows_all[lo:lo + BLOCK_ROWS]
            _top_k(np, matrix[rows] @ block.T, rows, cols, k, threshold, out)
    return out


def _centroids(np: ModuleType, matrix: Matrix, seed: int) -> Matrix:
    rng = np.random.default_rng(seed)
    n = len(matrix)
    count = max(2, int(np.sqrt(n)))
    sample = matrix[rng.choice(n, size=min(n, SAMPLE), replace=False)]
    centroids = sample[rng.choice(len(sample), size=count, replace=False)].copy()
    for _ in range(KMEANS_STEPS):
        assigned = np.argmax(sample @ centroids.T, axis=1)
        sums = np.zeros_like(centroids)
        np.add.at(sums, assigned, sample)
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        filled = norms[:, 0] > 0
        centroids[filled] = sums[filled] / norms[filled]
    return centroids


def _nearest_centroids(np: ModuleType, matrix: Matrix, centroids: Matrix, probes: int
                       ) -> Indices:
    filed = np.empty((len(matrix), probes), dtype=np.int64)
    for lo in range(0, len(matrix), 8192):
        dots = matrix[lo:lo + 8192] @ centroids.T
        top = np.argpartition(-dots, probes - 1, axis=1)[:, :probes]
        order = np.argsort(-np.take_along_axis(dots, top, axis=1), axis=1)
        filed[lo:lo + 8192] = np.take_along_axis(top, order, axis=1)
    return filed


def pairs_by_id(ids: Sequence[str], found: list[tuple[int, int, float]]
                ) -> list[tuple[str, str, float]]:
    return [(ids[a], ids[b], s) for a, b, s in found]
