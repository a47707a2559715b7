"""Which files under the given paths are sources: folders walked recursively, `.gitignore`
files honoured at every level (a deeper file's patterns decide before a shallower one's, as
git does), `.git` never entered, then `--include` globs (any must match, when given) and
`--exclude` globs (none may match), both against the path relative to the root.

pathspec does the gitignore matching; a glob here is gitignore-style too (`*.md`, `docs/**`).
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import pathspec

from engine.errors import InvalidInput

ALWAYS_SKIPPED_DIRS = frozenset({".git", ".hg", ".svn"})


@dataclass(frozen=True)
class Filters:
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    gitignore: bool = True

    @cached_property
    def _include(self) -> pathspec.PathSpec | None:
        return pathspec.GitIgnoreSpec.from_lines(self.include) if self.include else None

    @cached_property
    def _exclude(self) -> pathspec.PathSpec | None:
        return pathspec.GitIgnoreSpec.from_lines(self.exclude) if self.exclude else None

    def admits(self, relative: str) -> bool:
        if self._include is not None and not self._include.match_file(relative):
            return False
        return self._exclude is None or not self._exclude.match_file(relative)


@dataclass
class _Ignores:
    """The .gitignore specs in force in one folder: (folder, spec), deepest last."""

    layers: list[tuple[Path, pathspec.GitIgnoreSpec]] = field(default_factory=list)

    def ignored(self, path: Path, is_dir: bool) -> bool:
        for folder, spec in reversed(self.layers):
            rel = path.relative_to(folder).as_posix() + ("/" if is_dir else "")
            result = spec.check_file(rel)
            if result.include is not None:
                return bool(result.include)
        return False

    def entering(self, folder: Path) -> "_Ignores":
        ignore_file = folder / ".gitignore"
        if not ignore_file.is_file():
            return self
        try:
            lines = ignore_file.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return self
        return _Ignores(self.layers + [(folder, pathspec.GitIgnoreSpec.from_lines(lines))])


def relative_to_root(root: Path, path: Path) -> str:
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        raise InvalidInput(f"{path} is outside the root {root} (--root)", field="path",
                           value=str(path)) from None


def _ancestor_ignores(root: Path, folder: Path) -> _Ignores:
    """The .gitignore files from the root down to `folder` (a path given inside the tree)."""
    ignores = _Ignores().entering(root)
    if folder == root:
        return ignores
    current = root
    for part in folder.relative_to(root).parts:
        current = current / part
        ignores = ignores.entering(current)
    return ignores


def walk_files(root: Path, paths: Sequence[str], filters: Filters = Filters()) -> list[str]:
    """The relative paths (sorted, no duplicates) of the files under `paths` that pass the
    ignores and filters. A file named directly is taken even if a .gitignore names it (you
    asked for it); --include/--exclude still apply. A missing path is InvalidInput."""
    root = root.resolve()
    found: set[str] = set()
    for given in paths:
        path = Path(given)
        path = path if path.is_absolute() else Path.cwd() / path
        if not path.exists():
            raise InvalidInput(f"no such file or folder: {given}", field="path", value=given)
        rel = relative_to_root(root, path)
        if path.is_file():
            if filters.admits(rel):
                found.add(rel)
            continue
        start = path.resolve()
        base = _ancestor_ignores(root, start) if filters.gitignore else _Ignores()
        found.update(_walk_folder(root, start, base, filters))
    return sorted(found)


def _walk_folder(root: Path, start: Path, base: _Ignores, filters: Filters) -> list[str]:
    out: list[str] = []
    stack: list[tuple[Path, _Ignores]] = [(start, base)]
    while stack:
        folder, ignores = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            path = Path(entry.path)
            if entry.is_dir(follow_symlinks=False):
                if entry.name in ALWAYS_SKIPPED_DIRS:
                    continue
                if filters.gitignore and ignores.ignored(path, True):
                    continue
                inner = ignores.entering(path) if filters.gitignore else ignores
                stack.append((path, inner))
            elif entry.is_file(follow_symlinks=False):
                if filters.gitignore and ignores.ignored(path, False):
                    continue
                rel = path.relative_to(root).as_posix()
                if filters.admits(rel):
                    out.append(rel)
    return out
