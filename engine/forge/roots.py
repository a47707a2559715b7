"""Which folder forge reads source paths against (its root), and the memory's record of it.

A sourced belief's path is relative to the memory's root (recorded by its first sourced
write, or `init --root`), so `sources` reads the same file from any folder. Without
`--root`, a forge run reads against the recorded root when every path given lies under it
(so `cd docs && forge .` pins `docs/auth.md`), else against the caller's folder, unless a
path given lies outside it: then the common folder of the paths given. accept, status and
stale read against the recorded root, else the caller's folder.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from engine.change_records import ChangeEntry
from engine.sources.records import SourceRecords
from engine.store import Store


def _recorded(store: Store[SourceRecords]) -> str:
    return store.read(lambda tx: tx.project_root())


def run_root(store: Store[SourceRecords], given: str | None, paths: Sequence[str],
             folder: Path) -> Path:
    """The root of a run over `paths` (as typed in `folder`), `given` by --root or not."""
    if given:
        return (folder / given).resolve()
    recorded = _recorded(store)
    if recorded and all(p.is_relative_to(recorded) for p in _absolute(paths, folder)):
        return Path(recorded).resolve()
    return _here_or_common(paths, folder)


def read_root(store: Store[SourceRecords], given: str | None, folder: Path,
              paths: Sequence[str] = ()
              ) -> Path:
    """The root accept, status and stale read against: --root, else the recorded one, else
    the caller's folder (or the common folder of `paths` when one lies outside it)."""
    root = given or _recorded(store)
    return (folder / root).resolve() if root else _here_or_common(paths, folder)


def _absolute(paths: Sequence[str], folder: Path) -> list[Path]:
    return [(folder / Path(p).expanduser()).resolve() for p in paths]


def _here_or_common(paths: Sequence[str], folder: Path) -> Path:
    here, absolute = folder.resolve(), _absolute(paths, folder)
    if all(p.is_relative_to(here) for p in absolute):
        return here
    return Path(os.path.commonpath([p if p.is_dir() else p.parent for p in absolute]))


def own_files(root: Path, folder: Path, *written: tuple[str, bool]) -> tuple[str, ...]:
    """Gitignore patterns for what forge itself writes under the root (`written`: each path
    as typed in `folder`, and whether it is a folder), so a later run does not read them."""
    out = []
    for path, is_folder in written:
        try:
            rel = (folder / path).resolve().relative_to(root).as_posix()
        except ValueError:
            continue
        out.append("/" + rel + ("/" if is_folder else ""))
    return tuple(out)


def record_root(store: Store[SourceRecords], root: Path) -> str:
    """After a forge run that wrote (a sourced write): the first records its root (as `add
    --source` does). Returns the memory's root when it is not `root` (which is then not
    moved), else ""."""
    recorded = _recorded(store)
    if not recorded:
        store.write(lambda tx: tx.save_project_root(str(root)),
                    ChangeEntry("init", {"root": str(root)}))
        return ""
    return recorded if recorded != str(root) else ""
