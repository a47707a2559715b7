"""Where a hash-only belief's file is: a `NAME/path` source under the repo NAME's folder when
the repos map names it, else the path under the root (as ftl-reasons' check-stale resolves
them). The whole file's sha256, or None when no file is there."""
from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

from engine.sources.reader import WholeFileHashes


class RepoFiles:
    def __init__(self, root: Path, repos: Mapping[str, str]):
        self._root = root
        self._repos = {name: Path(path).expanduser() for name, path in repos.items()}

    def path_of(self, source: str) -> Path:
        name, sep, rest = source.partition("/")
        if sep and name in self._repos:
            return self._repos[name] / rest
        p = Path(source).expanduser()
        return p if p.is_absolute() else self._root / p

    def sha256(self, source: str) -> str | None:
        path = self.path_of(source)
        if not path.is_file():
            return None
        digest = hashlib.sha256()
        with path.open("rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest()


_IMPLEMENTS: type[WholeFileHashes] = RepoFiles
