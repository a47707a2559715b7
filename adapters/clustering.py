"""Clustering embeddings with scikit-learn's KMeans (imported when first used).

One narrow function, the `Clusterer` of engine.derive.sampling. A pool larger than
`max_fit` rows is fitted on a seeded subsample of `max_fit` rows, and every row is then
assigned to its nearest centre (squared euclidean, as KMeans.predict, in one matrix product).
On 100k x 384 a full fit with k = 64 takes 10 s and more on two cores; a 4k-row subsample fit
(k <= 32 by default, at most 50 Lloyd iterations) and the assignment take well under a second
(scripts/bench/prompt_build.py measures it), and clusters of hundreds or thousands of premises
do not need 100k points to place their centres. The
fit runs in float64: scikit-learn's k-means++ start on float32 data is several times slower.
"""
from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from typing import Any

from engine.errors import ModelError

EXTRA_HINT = "pip install 'eem-engine[embeddings]'"
MAX_FIT = 4_000


_loading: threading.Thread | None = None


def start_loading() -> None:
    """Import scikit-learn in a background thread (it takes a second or more), so that it
    overlaps the store reads of a cluster run's first round. `kmeans_labels` waits for it."""
    global _loading
    if _loading is None:
        _loading = threading.Thread(target=_import_sklearn, name="load-sklearn", daemon=True)
        _loading.start()


def kmeans_clusterer() -> Callable[[Any, int, int], list[int]]:
    """The clusterer an entry point gives the cluster strategies: `kmeans_labels`, with
    scikit-learn starting to load now, while the first pool and vectors are read."""
    start_loading()
    return kmeans_labels


def _import_sklearn() -> None:
    try:
        import sklearn.cluster  # noqa: F401
    except ImportError:
        pass  # kmeans_labels raises the ModelError naming the extra


def kmeans_labels(vectors: Any, k: int, seed: int, *, max_fit: int = MAX_FIT) -> list[int]:
    """A cluster label in [0, k) for each row of `vectors` (n x d), deterministic for a seed."""
    if _loading is not None:
        _loading.join()
    try:
        import numpy as np
        from sklearn.cluster import KMeans
        from sklearn.exceptions import ConvergenceWarning
    except ImportError as e:
        raise ModelError(f"clustering needs scikit-learn: {EXTRA_HINT}") from e
    rows = np.asarray(vectors, dtype=np.float32)
    if rows.ndim != 2:
        raise ModelError(f"clustering needs an n x d matrix of vectors, got shape {rows.shape}")
    n = rows.shape[0]
    k = min(k, n)
    if k <= 1:
        return [0] * n
    seed = int(seed) % 2**32
    fit = rows
    if n > max_fit:
        fit = rows[np.sort(np.random.default_rng(seed).choice(n, size=max_fit, replace=False))]
    model = KMeans(n_clusters=k, n_init=1, max_iter=50, random_state=seed)
    with warnings.catch_warnings():
        # fewer distinct points than k: some clusters stay empty, which the sampler handles
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(fit.astype(np.float64))
    centres = model.cluster_centers_.astype(np.float32)
    # nearest centre: argmin |x - c|^2 = argmax (x . c - |c|^2 / 2)
    scores = rows @ centres.T - 0.5 * np.einsum("ij,ij->i", centres, centres)
    return scores.argmax(axis=1).tolist()

