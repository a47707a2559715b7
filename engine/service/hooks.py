"""Keeping a memory in step with its git work tree: `hooks install [--retract]`, `hooks
uninstall`, and `hooks run EVENT`, what the installed hooks call after a commit, a merge, a
checkout or a rewrite.

`run` checks the memory's sourced beliefs against the work tree as the event left it: what
the event made stale (against the commit before it: HEAD's parent after a commit, ORIG_HEAD
after a merge or a rebase, the previous HEAD after a checkout, HEAD@{1} after an amend), and
it re-pins what only moved (a clean pin followed through git's diff, a renamed file to its
new path). It retracts nothing unless the hooks were installed with `--retract`. It checks
only a memory whose recorded root is in the work tree the hook runs in: a hook run against
another memory (the connection the shell names) writes nothing and says so.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from engine.clock import now_iso
from engine.errors import InvalidInput
from engine.service.context import Context
from engine.service.sources import choose_root, source_files, whole_files
from engine.sources import status as source_status
from engine.sources.staleness import MOVED
from engine.sources.status import SourcedRow

if TYPE_CHECKING:
    from adapters.sources.git_hooks import HookWritten

EVENTS = ("post-commit", "post-merge", "post-checkout", "post-rewrite")
EVENT_NAMES = {"post-commit": "this commit", "post-merge": "this merge",
               "post-checkout": "this checkout", "post-rewrite": "this rewrite"}


@dataclass(frozen=True)
class HookOptions:
    """`program`: the command line the hooks run eem by (absolute, so a hook finds it
    without the caller's PATH); `retract`: the hooks also take down what went stale."""

    program: tuple[str, ...]
    retract: bool = False
    root: str | None = None


@dataclass(frozen=True)
class Installed:
    folder: str
    hooks: tuple[HookWritten, ...]
    retract: bool

    def as_dict(self) -> dict[str, object]:
        return {"folder": self.folder, "retract": self.retract,
                "hooks": [{"event": h.event, "path": h.path, "chained": h.chained}
                          for h in self.hooks]}


@dataclass(frozen=True)
class Uninstalled:
    folder: str
    removed: tuple[str, ...]
    restored: tuple[str, ...]  # the hooks that were there before, put back

    def as_dict(self) -> dict[str, object]:
        return {"folder": self.folder, "removed": list(self.removed),
                "restored": list(self.restored)}


def _work_tree(ctx: Context, root: str | None) -> Path:
    """The folder whose work tree the hooks belong to: the memory's root (or `root`)."""
    from adapters.sources.git import work_tree_top

    recorded = ctx.store.read(lambda tx: tx.project_root())
    folder = choose_root(ctx, root, recorded)
    if work_tree_top(folder) is None:
        raise InvalidInput(f"{folder} is not in a git work tree (or git is not installed): "
                           "hooks need one", field="root", value=str(folder))
    return folder


def install(ctx: Context, options: HookOptions) -> Installed:
    """Write the post-commit, post-merge, post-checkout and post-rewrite hooks of the work
    tree the memory's root is in; a hook already there is kept and run first."""
    from adapters.sources import git_hooks
    from adapters.sources.git import hooks_folder

    if not options.program:
        raise InvalidInput("the hooks need the command that runs eem", field="program")
    folder = hooks_folder(_work_tree(ctx, options.root))
    written = git_hooks.install(folder, options.program, options.retract, ctx.umask)
    return Installed(str(folder), tuple(written), options.retract)


def uninstall(ctx: Context, root: str | None = None) -> Uninstalled:
    """Remove the hooks `install` wrote; put back the ones it had kept."""
    from adapters.sources import git_hooks
    from adapters.sources.git import hooks_folder

    folder = hooks_folder(_work_tree(ctx, root))
    removed, restored = git_hooks.uninstall(folder)
    return Uninstalled(str(folder), tuple(removed), tuple(restored))


@dataclass(frozen=True)
class HookRun:
    """What a hook found: `stale`, what the event made stale (moved pins aside);
    `repinned`, the pins that moved or followed a rename, now at their new lines;
    `retracted`, what it took down (only with --retract); `skipped`, why nothing was
    checked ("" when it was)."""

    event: str
    since: str = ""
    stale: tuple[SourcedRow, ...] = ()
    repinned: tuple[SourcedRow, ...] = ()
    retracted: tuple[str, ...] = ()
    would_take_out: int = 0  # --retract over the limit: nothing retracted, this many OUT
    skipped: str = ""
    retract_command: str = ""
    change: Mapping[str, object] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        return {"event": self.event, "since": self.since,
                "stale": [r.as_dict() for r in self.stale],
                "repinned": [r.as_dict() for r in self.repinned],
                "retracted": list(self.retracted), "would_take_out": self.would_take_out,
                "skipped": self.skipped, "change": dict(self.change)}


def _previous(event: str, args: Sequence[str]) -> str:
    """The revision the event came from, by git's conventions for its hooks."""
    if event == "post-commit":
        return "HEAD~1"
    if event == "post-merge":
        return "ORIG_HEAD"
    if event == "post-checkout":
        return args[0] if args else ""
    return "HEAD@{1}" if args and args[0] == "amend" else "ORIG_HEAD"


def run(ctx: Context, event: str, args: Sequence[str] = (), *, retract: bool = False
        ) -> HookRun:
    """The stale check a hook runs after `event` (its arguments as git gave them)."""
    from adapters.sources.git import work_tree_top

    if event not in EVENTS:
        raise InvalidInput(f"hooks run takes {', '.join(EVENTS)}, not {event!r}",
                           field="event", value=event)
    recorded = ctx.store.read(lambda tx: tx.project_root())
    if not recorded:
        return HookRun(event, skipped="this memory records no root: nothing checked")
    here = work_tree_top(ctx.folder) if ctx.folder is not None else None
    files = source_files(ctx)
    revisions = files.revisions
    if revisions is None or here is None or not Path(recorded).resolve().is_relative_to(here):
        return HookRun(event, skipped=f"this memory's root {recorded} is not in this work "
                                      "tree: nothing checked")
    hashes = whole_files(ctx.store, Path(files.root), {})
    since = ""
    rev = _previous(event, args)
    if rev:
        try:
            since = revisions.resolve(rev)
        except InvalidInput:
            since = ""
    went = (source_status.stale_since(ctx.store, files.reader, hashes, revisions, since)
            if since else source_status.stale_sourced(ctx.store, files.reader, hashes,
                                                      revisions))
    done = source_status.retract_stale_sourced(ctx.store, files.reader, hashes, at=now_iso(),
                                               revisions=revisions, take_down=retract)
    would = 0
    if not done.written:
        would = len(done.change.went_out)
        done = source_status.retract_stale_sourced(ctx.store, files.reader, hashes,
                                                   at=now_iso(), revisions=revisions,
                                                   take_down=False)
    moved = {r.id: r for r in done.rows if r.state == MOVED and r.id in set(done.repinned)}
    return HookRun(event, since, tuple(r for r in went if r.state != MOVED),
                   tuple(moved[i] for i in sorted(moved)), tuple(done.retracted), would,
                   retract_command=ctx.command("sources stale --retract"),
                   change=done.change.as_dict() if done.written else {})
