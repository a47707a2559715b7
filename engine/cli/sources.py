"""`python -m engine add ... --source PATH[:A-B] --quote TEXT`, `python -m engine init --root
DIR` and `python -m engine sources status|stale|hash`: sourced beliefs pinned to their files
and checked against them. A thin skin over engine/sources/; the file reader
(adapters/sources/) is wired in here, lazily.

The root: `--root DIR` when given, else the root the memory recorded (its first sourced
write records the root it used; `init --root DIR` records or moves it), else the current
folder. A relative `--source` is read against that root, never against the current folder,
so every command answers the same from any folder.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from engine.cli.command import Command
from engine.clock import now_iso
from engine.cli.source_report import HEADERS, print_retraction, row
from engine.cli.support import print_json, print_listing
from engine.errors import InvalidInput
from engine.sources.pinning import SourcedClaim, SourceFiles
from engine.sources.status import OUT_LIMIT


def choose_root(given: str | None, recorded: str) -> Path:
    """The root a command works in (see the module's docstring); a --root that is not the
    recorded one is refused: the paths stored are relative to the recorded one."""
    if given:
        root = Path(given).expanduser().resolve()
        if not root.is_dir():
            raise InvalidInput(f"--root {given}: not a folder", field="root", value=given)
        if recorded and root != Path(recorded):
            raise InvalidInput(f"--root {given} is not this memory's root {recorded} (its "
                               f"source paths are relative to that one); `python -m engine "
                               f"init --root {given}` moves it", field="root", value=given)
        return root
    return Path(recorded) if recorded else Path.cwd().resolve()


def _locate(base: Path):
    from adapters.sources.walk import relative_to_root

    def locate(path: str) -> str:
        p = Path(path).expanduser()
        return relative_to_root(base, p if p.is_absolute() else base / p)

    return locate


def source_files(root: str | None, store: Any = None) -> SourceFiles:
    """The files under the root (see choose_root; without a store, `root` or the current
    folder)."""
    from adapters.sources.reader import FileSourceReader

    recorded = store.read(lambda tx: tx.project_root()) if store is not None else ""
    base = choose_root(root, recorded)
    if not base.is_dir():
        raise InvalidInput(f"the root {base} is not a folder: `python -m engine init --root "
                           f"DIR` records where the files are now", field="root",
                           value=str(base))
    return SourceFiles(FileSourceReader(base), _locate(base), str(base))


def memory_files(store: Any) -> SourceFiles:
    """The files under the root the memory recorded, else the current folder: what the MCP
    `add` and `propose_add` tools read a source against, at each call (a SourceFilesOf)."""
    return source_files(None, store)


def sourced_of(args: argparse.Namespace, store: Any = None
               ) -> tuple[SourcedClaim, str] | None:
    """The pinned source of `add` and the root it was read under, or None without
    --source."""
    if args.quote is not None and not args.source:
        raise InvalidInput("--quote goes with --source PATH[:A-B]", field="quote")
    if args.root is not None and not args.source:
        raise InvalidInput("--root goes with --source PATH[:A-B]", field="root")
    if not args.source:
        return None
    files = source_files(args.root, store)
    return files.pin(args.source, args.quote or ""), files.root


def claim_of(args: argparse.Namespace, store: Any = None) -> SourcedClaim | None:
    """The pinned source of `add`, or None without --source."""
    got = sourced_of(args, store)
    return got[0] if got else None


def add_source_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--source", metavar="PATH[:A-B]",
                   help="the file the belief was observed in (lines A-B), relative to the "
                        "memory's root: read and hashed now, so `sources stale` sees when "
                        "its lines change")
    p.add_argument("--quote", metavar="TEXT",
                   help="words of the source that state the belief; refused unless they occur "
                        "in those lines (then the pin is the quote's own lines)")
    p.add_argument("--root", metavar="DIR",
                   help="the folder source paths are relative to (default: the root the "
                        "memory recorded, else the current folder, recorded then)")


def root_folder(root: str) -> Path:
    """`init --root DIR`'s folder, absolute; InvalidInput when it is not one (checked before
    init writes anything)."""
    path = Path(root).expanduser().resolve()
    if not path.is_dir():
        raise InvalidInput(f"--root {root}: not a folder", field="root", value=root)
    return path


def cmd_init_root(store: Any, root: str) -> str:
    """`init --root DIR`: record (or move) the memory's root; returns what to print."""
    from engine.change_records import ChangeEntry

    path = root_folder(root)
    before = store.read(lambda tx: tx.project_root())
    if before == str(path):
        return f"root: {path} (unchanged)"
    store.write(lambda tx: tx.save_project_root(str(path)),
                ChangeEntry("init", {"root": str(path), "was": before}))
    return f"root: {path}" + (f" (was {before})" if before else "")


# --- sources status | stale | hash ------------------------------------------------------
def _repo(text: str) -> tuple[str, str]:
    name, sep, path = text.partition("=")
    if not sep or not name.strip() or not path.strip():
        raise InvalidInput(f"--repo takes NAME=PATH, not {text!r}", field="repo", value=text)
    return name.strip(), path.strip()


def sources_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["status", "stale", "hash"],
                   help="status: every sourced belief against its file as it is now; stale: "
                        "those whose own lines or quote no longer read as pinned, whose whole "
                        "file changed (content_changed) or is gone (source_deleted); hash: "
                        "pin beliefs that name a file but carry no hash, and refresh the "
                        "whole-file hash of those whose file changed")
    p.add_argument("--retract", action="store_true",
                   help="with stale: re-pin what still stands, retract what is gone or "
                        "changed, restore what stands again (one transaction)")
    p.add_argument("--missing", action="store_true",
                   help="with stale --retract: retract the beliefs of missing files too "
                        "(without it they are listed apart)")
    p.add_argument("--yes", action="store_true",
                   help=f"with stale --retract: go ahead when more than {OUT_LIMIT} beliefs "
                        "would go OUT (without it, the what-if is shown and nothing written)")
    p.add_argument("--root", metavar="DIR",
                   help="the folder source paths are relative to (default: the recorded root)")
    p.add_argument("--repo", metavar="NAME=PATH", action="append", default=[], type=_repo,
                   help="a `NAME/path` source is read from PATH/path (repeatable; besides the "
                        "repos map an import kept)")


def whole_files(store: Any, root: Path, given: list[tuple[str, str]]) -> Any:
    from adapters.sources.repos import RepoFiles

    repos = {**store.read(lambda tx: tx.network_repos()), **dict(given)}
    return RepoFiles(root, repos)


def cmd_sources(store, args) -> int:
    from engine.sources import status as source_status
    from engine.sources.pinning import hash_late

    if args.retract and args.action != "stale":
        raise InvalidInput("--retract goes with `sources stale`", field="retract")
    if (args.missing or args.yes) and not args.retract:
        raise InvalidInput("--missing and --yes go with `sources stale --retract`",
                           field="retract")
    files = source_files(args.root, store)
    hashes = whole_files(store, Path(files.root), args.repo)
    if args.action == "hash":
        hashed = hash_late(store, files, hashes, at=now_iso())
        if args.json:
            print_json(hashed.as_dict())
            return 0
        for bid, spec in hashed.hashed:
            print(f"hashed late {bid}: {spec}")
        for bid, path in hashed.refreshed:
            print(f"refreshed {bid}: {path}")
        for bid, why in hashed.skipped:
            print(f"skipped {bid}: {why}")
        print(f"{len(hashed.hashed)} belief(s) hashed late, {len(hashed.refreshed)} "
              f"refreshed, {len(hashed.skipped)} skipped")
        return 0
    if args.action == "status":
        print_listing(source_status.sourced_status(store, files.reader, hashes),
                      as_json=args.json, empty="no sourced beliefs", row=row,
                      headers=HEADERS)
        return 0
    retract_command = f"{getattr(args, 'prog', 'python -m engine')} sources stale --retract"
    if args.retract:
        return print_retraction(
            source_status.retract_stale_sourced(store, files.reader, hashes, at=now_iso(),
                                                missing=args.missing, yes=args.yes),
            args, retract_command)
    rows = source_status.stale_sourced(store, files.reader, hashes)
    if print_listing(rows, as_json=args.json,
                     empty="no stale beliefs: every sourced belief reads as it was pinned",
                     row=row, headers=HEADERS):
        missing = sum(1 for r in rows if r.reason == source_status.SOURCE_DELETED)
        print(f"{len(rows)} stale belief(s) ({missing} of a missing file); `{retract_command}` "
              "re-pins or retracts them (`--missing` also those of missing files)")
    return 0


COMMANDS: dict[str, Command] = {
    "sources": Command(
        cmd_sources, "sourced beliefs against their files: status, stale [--retract], hash",
        "sources stale --retract", sources_arguments),
}
