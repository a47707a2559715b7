"""Optional packages the engine uses where they are installed, with one clear error where
they are not."""
from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING

from engine.errors import ModelError

if TYPE_CHECKING:  # numpy's types, for annotations only (numpy itself may be absent)
    import numpy as np
    from numpy.typing import ArrayLike as ArrayLike  # re-exported: what np.asarray takes
    from numpy.typing import NDArray

    Matrix = NDArray[np.float32]  # rows of vectors, row i for item i
    Vector = NDArray[np.float32]  # one row
    Indices = NDArray[np.int64]  # row numbers of a Matrix

EMBEDDINGS_HINT = "pip install -e '.[embeddings]'"


def numpy_module(purpose: str) -> ModuleType:
    """numpy, or ModelError naming `purpose` and the extra that brings it."""
    try:
        import numpy
    except ImportError as e:
        raise ModelError(f"{purpose} need numpy: {EMBEDDINGS_HINT}") from e
    return numpy
