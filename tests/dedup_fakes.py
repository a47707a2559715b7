"""Helpers for dedup and contradictions tests: an embedder with fixed vectors, the stage
built over it, verdict items and replies."""
from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence

from engine.dedup.stage import CandidateSource, DedupOptions, DedupStage
from engine.dedup.verdicts import ClusterVerdict
from engine.embedding.cache import text_sha256
from engine.embedding.records import StoredEmbedding
from engine.stages.provenance import RoundRecord, RunRecord

DIM = 384
MODEL = "fixed-test-vectors"
RUN = RunRecord(id="dedup-run-1", model="scripted", started_at="2026-01-01T00:00:00+00:00",
                stage="dedup")
RECORD = RoundRecord(run_id=RUN.id, round=1, prompt_sha256="ab" * 32, stage="dedup")


def at_angle(degrees: float, plane: int = 0) -> list[float]:
    """A unit vector in the plane of axes 2*plane and 2*plane+1, at `degrees` from the first."""
    v = [0.0] * DIM
    v[2 * plane] = math.cos(math.radians(degrees))
    v[2 * plane + 1] = math.sin(math.radians(degrees))
    return v


class FixedEmbedder:
    """The one-method embedder with a vector per text, counting what it is asked."""

    model_name = MODEL

    def __init__(self, vectors: Mapping[str, Sequence[float]]):
        self.vectors = dict(vectors)
        self.embedded: list[str] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.embedded.extend(texts)
        return [list(self.vectors[t]) for t in texts]


def store_vectors(store, texts: Mapping[str, str], vectors: Mapping[str, Sequence[float]]) -> None:
    """Store embeddings as derive would have, keyed by id: {id: vector}."""
    rows = [StoredEmbedding(i, text_sha256(texts[i]), MODEL, v) for i, v in vectors.items()]
    store.write(lambda tx: tx.save_embeddings(rows))


def dedup_stage(embedder=None, **options) -> DedupStage:
    opts = DedupOptions(**options)
    return DedupStage(opts, CandidateSource(opts, embedder=embedder))


def verdict(store, cluster: int, kind: str, members: Sequence[str], *, keep: str = "",
            same: Sequence[str] = (), contradicts: Sequence[tuple[str, str]] = ()) -> ClusterVerdict:
    beliefs = store.read(lambda tx: tx.get_beliefs(members))
    return ClusterVerdict(cluster, kind, tuple(members),
                          tuple(text_sha256(beliefs[i].text) for i in members), keep,
                          tuple(same), tuple(tuple(sorted(p)) for p in contradicts))


def verdicts_reply(*answers: dict) -> str:
    return json.dumps({"verdicts": list(answers)})
