"""Where a whole-file-hashed belief's file is (as ftl-reasons' and reasonsforge's check-stale
resolve it): for an imported agent's belief, under the repo named after that agent; else the
path under the root (a `NAME/path` source is looked up in the folder first); else, for
`NAME/path`, PATH/path when the repos map names NAME. The whole file's sha256, or None when
no file is there."""
from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from pathlib import Path

from engine.sources.reader import WholeFileHashes


class RepoFiles:
    def __init__(self, root: Path, repos: Mapping[str, str]):
        self._root = root
        self._repos = {name: Path(path).expanduser() for name, path in repos.items()}

    def _places(self, source: str, agent: str) -> Iterator[Path]:
        given = Path(source).expanduser()
        if given.is_absolute():
            yield given
            return
        if agent and agent in self._repos:
            yield self._repos[agent] / given
        yield self._root / given
        name, sep, rest = source.partition("/")
        if sep and name in self._repos:
            yield self._repos[name] / rest

    def path_of(self, source: str, agent: str = "") -> str | None:
        return next((str(p) for p in self._places(source, agent) if p.is_file()), None)

    def sha256(self, source: str, agent: str = "") -> str | None:
        path = self.path_of(source, agent)
        if path is None:
            return None
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest()


_IMPLEMENTS: type[WholeFileHashes] = RepoFiles
