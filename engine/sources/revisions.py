"""What a git work tree says about the files beliefs are pinned to, behind a small protocol
(adapters/sources/git.py runs git; without git, or outside a work tree, there is none and
sources are checked by their text alone).

A pin made in a work tree records the commit it was read at and whether the file was clean
there (metadata `commit`, `clean`). A clean pin's lines are then followed through `git diff`
from that commit to the work tree: `follow` maps them by the diff's own arithmetic (lines
added or removed above shift them; a change inside them, or an insertion between two of
them, means they no longer say what was pinned), and a renamed file is followed to its new
path (`git diff -M`). A pin made on uncommitted text cannot be followed that way: it is
checked by its text, and says so.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

COMMIT, CLEAN = "commit", "clean"  # a pin's metadata in a work tree


@dataclass(frozen=True)
class Hunk:
    """One `@@ -a,b +c,d @@` of a zero-context diff: old lines a..a+b-1 became new lines
    c..c+d-1 (b == 0: d lines inserted after old line a; d == 0: b lines deleted)."""

    old_start: int
    old_count: int
    new_start: int
    new_count: int


@dataclass(frozen=True)
class FileChange:
    """How a file changed between two points: `path` as at the first, `new_path` where it is
    at the second (None: deleted), and the hunks between the two texts."""

    path: str
    new_path: str | None
    hunks: tuple[Hunk, ...] = ()

    @property
    def renamed(self) -> bool:
        return self.new_path is not None and self.new_path != self.path


class Revisions(Protocol):
    """A git work tree, the memory's root inside it; paths relative to the root."""

    def head(self) -> str:
        """The commit HEAD names, "" before the first commit."""

    def is_clean(self, path: str) -> bool:
        """Whether the file is tracked and reads in the work tree as HEAD has it."""

    def resolve(self, rev: str) -> str:
        """The commit `rev` names (InvalidInput when it names none)."""

    def is_ancestor(self, older: str, newer: str) -> bool:
        """Whether commit `older` is `newer` or one of its ancestors."""

    def changes(self, since: str, paths: Sequence[str], until: str = "") -> dict[str, FileChange]:
        """How each of `paths` (as they were at commit `since`) changed from there to commit
        `until` ("" the work tree), renames followed; a path that did not change is absent."""


def follow(lines: tuple[int, int], hunks: Sequence[Hunk]) -> tuple[int, int] | None:
    """Where lines a-b of the old text stand in the new one, by the hunks' arithmetic alone;
    None when a hunk changes one of them or inserts lines between two of them."""
    first, last = lines
    shift = 0
    for h in hunks:
        if h.old_count == 0:  # inserted after old line old_start
            if h.old_start < first:
                shift += h.new_count
            elif h.old_start < last:
                return None
            continue
        end = h.old_start + h.old_count - 1
        if end < first:
            shift += h.new_count - h.old_count
        elif h.old_start <= last:
            return None
    return first + shift, last + shift
