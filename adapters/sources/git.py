"""`GitWorkTree`: the engine's Revisions (engine/sources/revisions.py), git run as a
subprocess in the memory's root; and the hooks folder `eem hooks install` writes into.

Every call runs `git -C ROOT ...` with the variables that would point git at another
repository left out (a hook runs with GIT_DIR and GIT_INDEX_FILE set for its own repository,
and a resident engine's process has none of the caller's), and GIT_OPTIONAL_LOCKS=0, so a
status never takes the index lock a git command in progress may hold. Paths are relative to
the root (`--relative`), as the memory keeps them.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from engine.errors import InvalidInput
from engine.sources.revisions import FileChange, Hunk, Revisions

GIT_TIMEOUT = 60  # seconds; a diff of a large tree is well under this
# what points git at a repository, an index or a work tree other than the one it finds
_LOCATING = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR", "GIT_PREFIX",
             "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE")
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)
_NULL_COMMIT = re.compile(r"0{40}|0{64}")


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _LOCATING}
    env["GIT_OPTIONAL_LOCKS"] = "0"
    env["LC_ALL"] = "C"
    return env


class GitError(Exception):
    """git exited non-zero; the message is its stderr."""


def run_git(folder: Path, *args: str) -> str:
    """git's stdout for `git -C FOLDER ARGS`; GitError with its stderr when it fails."""
    try:
        done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True,
                              text=True, env=_environment(), timeout=GIT_TIMEOUT, check=False,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise GitError(str(e)) from e
    if done.returncode != 0:
        raise GitError(done.stderr.strip() or f"git {' '.join(args)} exited {done.returncode}")
    return done.stdout


def work_tree_top(folder: Path) -> Path | None:
    """The top of the git work tree `folder` is in; None without git or outside one."""
    if shutil.which("git") is None or not folder.is_dir():
        return None
    try:
        inside = run_git(folder, "rev-parse", "--is-inside-work-tree").strip()
        if inside != "true":
            return None
        return Path(run_git(folder, "rev-parse", "--show-toplevel").strip()).resolve()
    except GitError:
        return None


def open_work_tree(root: Path) -> GitWorkTree | None:
    """The work tree the memory's root is in, or None (no git, or not a work tree)."""
    top = work_tree_top(root)
    return GitWorkTree(root.resolve(), top) if top is not None else None


def hooks_folder(folder: Path) -> Path:
    """Where git looks for the hooks of the work tree `folder` is in (core.hooksPath, or
    the repository's hooks folder, shared by its linked work trees)."""
    found = Path(run_git(folder, "rev-parse", "--git-path", "hooks").strip())
    return found if found.is_absolute() else (folder / found).resolve()


def _name_status(text: str) -> list[tuple[str, str | None]]:
    """(old path, new path or None for a deletion) of each entry of `--name-status -z`; a
    copy (C) leaves its old path where it was, so it is no change of that path."""
    parts = text.split("\0")
    out: list[tuple[str, str | None]] = []
    i = 0
    while i < len(parts) and parts[i]:
        status = parts[i][0]
        if status in "RC":
            if status == "R":
                out.append((parts[i + 1], parts[i + 2]))
            i += 3
            continue
        path = parts[i + 1]
        out.append((path, None if status == "D" else path))
        i += 2
    return out


def _hunks(patch: str) -> tuple[Hunk, ...]:
    return tuple(Hunk(int(a), int(b) if b else 1, int(c), int(d) if d else 1)
                 for a, b, c, d in _HUNK.findall(patch))


class GitWorkTree:
    def __init__(self, root: Path, top: Path):
        self.root = root
        self.top = top

    def _git(self, *args: str) -> str:
        try:
            return run_git(self.root, *args)
        except GitError as e:
            raise InvalidInput(f"git in {self.root}: {e}", field="git") from e

    def head(self) -> str:
        try:
            return run_git(self.root, "rev-parse", "--verify", "-q", "HEAD^{commit}").strip()
        except GitError:
            return ""

    def is_clean(self, path: str) -> bool:
        if not self.head():
            return False
        status = self._git("status", "--porcelain", "--ignored", "-z", "--", path)
        return status == ""

    def resolve(self, rev: str) -> str:
        if not rev or rev.startswith("-") or _NULL_COMMIT.fullmatch(rev):
            raise InvalidInput(f"{rev!r} names no commit", field="since", value=rev)
        try:
            return run_git(self.root, "rev-parse", "--verify", "-q", f"{rev}^{{commit}}").strip()
        except GitError:
            raise InvalidInput(f"{rev!r} names no commit of the work tree at {self.top}",
                               field="since", value=rev) from None

    def is_ancestor(self, older: str, newer: str) -> bool:
        try:
            run_git(self.root, "merge-base", "--is-ancestor", older, newer)
        except GitError:
            return False
        return True

    def changes(self, since: str, paths: Sequence[str], until: str = "") -> dict[str, FileChange]:
        wanted = set(paths)
        if not wanted:
            return {}
        points = [since, until] if until else [since]
        listed = _name_status(self._git("diff", "-M", "--name-status", "-z", "--relative",
                                        "--no-ext-diff", *points, "--"))
        found: dict[str, FileChange] = {}
        for old, new in listed:
            if old not in wanted or old in found:
                continue
            if new is None:
                found[old] = FileChange(old, None)
                continue
            named = [old, new] if new != old else [old]
            patch = self._git("diff", "-M", "-U0", "--no-color", "--no-ext-diff", "--relative",
                              *points, "--", *named)
            found[old] = FileChange(old, new, _hunks(patch))
        return found


_IMPLEMENTS: type[Revisions] = GitWorkTree
