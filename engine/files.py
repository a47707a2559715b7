"""Writing a file whole: readers see the old file or the new one, never half of either."""
from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def write_atomically(path: str | os.PathLike[str], write: Callable[[BinaryIO], None]) -> Path:
    """Call `write` on a new temporary file in `path`'s folder (created if missing), flush it
    to disk and rename it over `path`. On any failure the temporary file is removed and the
    old file, if any, is left as it was."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    return target


def write_text_atomically(path: str | os.PathLike[str], text: str) -> Path:
    def write(f: BinaryIO) -> None:
        f.write(text.encode("utf-8"))

    return write_atomically(path, write)
