"""A thread of the resident engine with its own current folder and umask, so a command
resolves relative paths and creates files as it would in its caller's process."""
from __future__ import annotations

import sys
from functools import cache
from typing import Any

_CLONE_FS = 0x00000200


@cache
def _libc() -> Any:
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def own_folder_for_this_thread() -> bool:
    """Give this thread its own current folder and umask; False where the system cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        return _libc().unshare(_CLONE_FS) == 0
    except (OSError, AttributeError):
        return False
