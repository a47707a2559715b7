"""Optional packages the engine uses where they are installed, with one clear error where
they are not."""
from __future__ import annotations

from types import ModuleType

from engine.errors import ModelError

EMBEDDINGS_HINT = "pip install -e '.[embeddings]'"


def numpy_module(purpose: str) -> ModuleType:
    """numpy, or ModelError naming `purpose` and the extra that brings it."""
    try:
        import numpy
    except ImportError as e:
        raise ModelError(f"{purpose} need numpy: {EMBEDDINGS_HINT}") from e
    return numpy
