"""Writing a file whole: readers see the old file or the new one, never half of either.

The new file gets the mode the file it replaces had; a file that did not exist gets what any
new file gets, 0666 less the umask. `umask` names the caller's when the caller is not this
process (the resident engine writes for commands typed in other shells): the mode is then set
explicitly on the new file, so the process's own umask never has to change. Without it the
kernel applies this process's umask when the temporary file is created."""
from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

NEW_FILE_MODE = 0o666  # less the umask, as open() and the shell make files
NEW_FOLDER_MODE = 0o777


def write_atomically(path: str | os.PathLike[str], write: Callable[[BinaryIO], None], *,
                     umask: int | None = None) -> Path:
    """Call `write` on a new temporary file in `path`'s folder (created if missing), flush it
    to disk and rename it over `path`. On any failure the temporary file is removed and the
    old file, if any, is left as it was."""
    target = Path(path)
    make_folders(target.parent, umask=umask)
    fd, temporary = _create_temporary(target)
    try:
        with os.fdopen(fd, "wb") as f:
            kept = _mode_of(target)
            if kept is not None:
                os.fchmod(f.fileno(), kept)
            elif umask is not None:
                os.fchmod(f.fileno(), NEW_FILE_MODE & ~umask)
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


def write_text_atomically(path: str | os.PathLike[str], text: str, *,
                          umask: int | None = None) -> Path:
    def write(f: BinaryIO) -> None:
        f.write(text.encode("utf-8"))

    return write_atomically(path, write, umask=umask)


def make_folders(folder: str | os.PathLike[str], *, umask: int | None = None) -> Path:
    """`folder` and its missing parents; each made 0777 less the umask."""
    path = Path(folder)
    if path.is_dir():
        return path
    missing = [p for p in (path, *path.parents) if not p.exists()]
    path.mkdir(parents=True, exist_ok=True)
    if umask is not None:
        for made in missing:
            try:
                os.chmod(made, NEW_FOLDER_MODE & ~umask)
            except OSError:
                pass
    return path


def _create_temporary(target: Path) -> tuple[int, Path]:
    """A new file beside `target`, opened for writing, mode 0666 less the umask."""
    while True:
        temporary = target.parent / f".{target.name}.{secrets.token_hex(6)}.tmp"
        try:
            return os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, NEW_FILE_MODE), \
                temporary
        except FileExistsError:
            continue


def _mode_of(target: Path) -> int | None:
    """The permission bits of the file at `target`, or None when there is none."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        return None
