"""The memory's root and its sourced beliefs: where source files are read, `init --root`,
the lines a belief is pinned to, and `sources status | stale [--retract] | hash`.

The root: `root` when a call gives one, else the root the memory recorded (its first sourced
write records the root it used; `init --root DIR` records or moves it), else the folder the
caller stands in. A relative source path is read against that root, never against the
process's current folder, so every face answers the same from any folder.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.change_records import ChangeEntry
from engine.clock import now_iso
from engine.errors import InvalidInput
from engine.service.context import Context
from engine.sources import status as source_status
from engine.sources.pinning import HashedLate, SourcedClaim, SourceFiles, hash_late
from engine.sources.reader import WholeFileHashes
from engine.sources.staleness import MOVED
from engine.sources.status import SourcedRow
from engine.graph import GraphTx
from engine.store import Store

STATUS, STALE, HASH, REPOS = "status", "stale", "hash", "repos"
ACTIONS = (STATUS, STALE, HASH, REPOS)


def choose_root(ctx: Context, given: str | None, recorded: str) -> Path:
    """The root a call works in (see the module's docstring); a `given` root that is not the
    recorded one is refused: the paths stored are relative to the recorded one."""
    if given:
        root = Path(given).expanduser()
        if not root.is_absolute():
            root = (ctx.folder or Path("/")) / root
        root = root.resolve()
        if not root.is_dir():
            raise InvalidInput(f"--root {given}: not a folder", field="root", value=given)
        if recorded and root != Path(recorded):
            raise InvalidInput(f"--root {given} is not this memory's root {recorded} (its "
                               f"source paths are relative to that one); `"
                               f"{ctx.command(f'init --root {given}')}` moves it",
                               field="root", value=given)
        return root
    if recorded:
        return Path(recorded)
    if ctx.folder is None:
        raise InvalidInput("this memory records no root and the call names no folder: "
                           f"`{ctx.command('init --root DIR')}` records one", field="root")
    return ctx.folder


def source_files(ctx: Context, root: str | None = None) -> SourceFiles:
    """The files under the root (see choose_root), read as they are now, and the git work
    tree the root is in (when it is in one, and git is installed)."""
    from adapters.sources.git import open_work_tree
    from adapters.sources.reader import FileSourceReader
    from adapters.sources.walk import relative_to_root

    recorded = ctx.store.read(lambda tx: tx.project_root())
    base = choose_root(ctx, root, recorded)
    if not base.is_dir():
        raise InvalidInput(f"the root {base} is not a folder: `{ctx.command('init --root DIR')}`"
                           " records where the files are now", field="root", value=str(base))

    def locate(path: str) -> str:
        p = Path(path).expanduser()
        return relative_to_root(base, p if p.is_absolute() else base / p)

    return SourceFiles(FileSourceReader(base), locate, str(base), open_work_tree(base))


def pin(ctx: Context, source: str, quote: str = "", root: str | None = None
        ) -> tuple[SourcedClaim, str]:
    """`source` (PATH[:A-B]) read and hashed now under the root, the quote grounded in its
    lines; and the root it was read under."""
    files = source_files(ctx, root)
    return files.pin(source, quote), files.root


SHOWN_AROUND = 2  # lines shown before and after the pinned ones
MOST_LINES_SHOWN = 60


@dataclass(frozen=True)
class SourceLines:
    """The lines of a source file a belief is pinned to, as the file reads now, with a few
    around them: (number, text) pairs; the quote and the lines it occurs on (None: no
    quote, or it no longer occurs there)."""

    path: str
    pinned: tuple[int, int]
    lines: tuple[tuple[int, str], ...]
    quote: str = ""
    quote_lines: tuple[int, int] | None = None

    def as_dict(self) -> dict[str, object]:
        return {"path": self.path, "pinned": list(self.pinned),
                "lines": [{"n": n, "text": t} for n, t in self.lines], "quote": self.quote,
                "quote_lines": list(self.quote_lines) if self.quote_lines else None}


def source_lines(ctx: Context, path: str, lines: tuple[int, int] | None = None,
                 quote: str = "", root: str | None = None) -> SourceLines:
    """Lines `lines` of `path` (relative to the memory's root; the whole file when None, up
    to MOST_LINES_SHOWN), and where `quote` occurs in them."""
    from engine.sources.grounding import find_quote
    from engine.sources.reader import SkippedFile

    files = source_files(ctx, root)
    located = files.locate(path)
    got = files.reader.read(located)
    if got is None:
        raise InvalidInput(f"source file not found: {path}", field="source", value=path)
    if isinstance(got, SkippedFile):
        raise InvalidInput(f"source file {path} cannot be read: {got.reason}", field="source",
                           value=path)
    rows = got.text.split("\n")
    if rows and rows[-1] == "":
        rows.pop()
    first, last = lines or (1, len(rows))
    first, last = max(1, first), min(len(rows), last)
    start = max(1, first - SHOWN_AROUND)
    end = min(len(rows), last + SHOWN_AROUND, start + MOST_LINES_SHOWN - 1)
    span = None
    if quote.strip() and first <= last:
        span = find_quote(quote, "\n".join(rows[first - 1:last]), first_line=first)
    return SourceLines(located, (first, last),
                       tuple((n, rows[n - 1]) for n in range(start, end + 1)), quote, span)


@dataclass(frozen=True)
class RootSet:
    """What `init --root` did: the root now, and the one before (None: unchanged)."""

    root: str
    was: str | None

    def as_dict(self) -> dict[str, object]:
        return {"root": self.root, "was": self.was, "changed": self.was is not None}


def root_folder(ctx: Context, root: str) -> Path:
    """A root a caller names, absolute; InvalidInput when it is not a folder."""
    path = Path(root).expanduser()
    path = ((ctx.folder or Path("/")) / path if not path.is_absolute() else path).resolve()
    if not path.is_dir():
        raise InvalidInput(f"--root {root}: not a folder", field="root", value=root)
    return path


def set_root(ctx: Context, root: str) -> RootSet:
    """Record (or move) the memory's root, logged."""
    path = str(root_folder(ctx, root))
    before = ctx.store.read(lambda tx: tx.project_root())
    if before == path:
        return RootSet(path, None)
    ctx.store.write(lambda tx: tx.save_project_root(path),
                    ChangeEntry("init", {"root": path, "was": before}))
    return RootSet(path, before)


# --- sources status | stale | hash ------------------------------------------------------
def whole_files(store: Store[GraphTx], root: Path, repos: Mapping[str, str]) -> WholeFileHashes:
    """Whole-file hashes of sources named `NAME/path` (the repos map an import kept, and
    `repos` over it) or a path under the root."""
    from adapters.sources.repos import RepoFiles

    return RepoFiles(root, {**store.read(lambda tx: tx.network_repos()), **dict(repos)})


@dataclass(frozen=True)
class SourceRows:
    """`sources status` or `sources stale`: one row per sourced belief (stale: those that
    no longer read as pinned; `since`: the commit a `stale --since` counted from)."""

    rows: tuple[SourcedRow, ...]
    since: str = ""

    def as_dict(self) -> dict[str, object]:
        return {"beliefs": [r.as_dict() for r in self.rows],
                **({"since": self.since} if self.since else {})}

    @property
    def missing(self) -> int:
        return sum(1 for r in self.rows if r.reason == source_status.SOURCE_DELETED)

    @property
    def failing(self) -> tuple[SourcedRow, ...]:
        """The rows whose lines no longer say what was pinned, or whose file is gone (a
        pin that only moved is re-pinned without a change of truth)."""
        return tuple(r for r in self.rows if r.state != MOVED)


def _files(ctx: Context, root: str | None, repos: Mapping[str, str]
           ) -> tuple[SourceFiles, WholeFileHashes]:
    files = source_files(ctx, root)
    return files, whole_files(ctx.store, Path(files.root), repos)


def status(ctx: Context, root: str | None = None, repos: Mapping[str, str] | None = None
           ) -> SourceRows:
    """Every sourced belief against its file as it is now (through git's diff from the
    commit a pin was read at, when the root is a git work tree)."""
    files, hashes = _files(ctx, root, repos or {})
    return SourceRows(tuple(source_status.sourced_status(ctx.store, files.reader, hashes,
                                                         files.revisions)))


def stale(ctx: Context, root: str | None = None, repos: Mapping[str, str] | None = None,
          since: str | None = None) -> SourceRows:
    """The sourced beliefs, IN or OUT, whose lines or quote no longer read as pinned, whose
    whole file changed, or whose file is gone; with `since` (a git revision), only those
    the commits after it made stale."""
    files, hashes = _files(ctx, root, repos or {})
    if since is None:
        return SourceRows(tuple(source_status.stale_sourced(ctx.store, files.reader, hashes,
                                                            files.revisions)))
    if files.revisions is None:
        raise InvalidInput(f"--since needs the memory's root ({files.root}) to be in a git "
                           "work tree", field="since", value=since)
    commit = files.revisions.resolve(since)
    return SourceRows(tuple(source_status.stale_since(ctx.store, files.reader, hashes,
                                                      files.revisions, commit)), commit)


def retract_stale(ctx: Context, root: str | None = None,
                  repos: Mapping[str, str] | None = None, *, missing: bool = False,
                  yes: bool = False) -> source_status.Retracted:
    """Re-pin what still stands, retract what is gone or changed, restore what stands again,
    in one transaction; over the limit without `yes`, the what-if only (`written` False)."""
    files, hashes = _files(ctx, root, repos or {})
    return source_status.retract_stale_sourced(ctx.store, files.reader, hashes, at=now_iso(),
                                               missing=missing, yes=yes,
                                               revisions=files.revisions)


def hash_sources(ctx: Context, root: str | None = None,
                 repos: Mapping[str, str] | None = None) -> HashedLate:
    """Pin the beliefs that name a file under the root but carry no hash; give those naming
    a file outside it (an agent's repo, `NAME/path` through the repos map) its whole hash;
    refresh the whole-file hash of those whose file changed."""
    files, hashes = _files(ctx, root, repos or {})
    return hash_late(ctx.store, files, hashes, at=now_iso())


@dataclass(frozen=True)
class Repos:
    """The repos map: each repo name, the folder a `NAME/path` source is read under, and
    where the entry comes from (an imported file's map, an imported agent's, or `--repo`)."""

    repos: tuple[tuple[str, str, str], ...]  # (name, path, from)

    def as_dict(self) -> dict[str, object]:
        return {"repos": [{"name": n, "path": p, "from": f} for n, p, f in self.repos]}


def list_repos(ctx: Context, repos: Mapping[str, str] | None = None) -> Repos:
    """The repos map sources are resolved through, by name: the imported agents' maps, the
    memory's own over them, and `repos` (as --repo gives them) over both."""
    kept = ctx.store.read(lambda tx: tx.network_repos())
    given = dict(repos or {})
    merged = {**kept, **given}
    return Repos(tuple((name, merged[name], "--repo" if name in given else "imported")
                       for name in sorted(merged)))


def parse_repos(ctx: Context, given: Sequence[str]) -> dict[str, str]:
    """`NAME=PATH` pairs, each checked; a relative PATH is read against the caller's folder."""
    found = {}
    for text in given:
        name, sep, path = text.partition("=")
        if not sep or not name.strip() or not path.strip():
            raise InvalidInput(f"--repo takes NAME=PATH, not {text!r}", field="repo", value=text)
        where = Path(path.strip()).expanduser()
        found[name.strip()] = str(where if where.is_absolute()
                                  else (ctx.folder or Path("/")) / where)
    return found
