"""`python -m engine add ... --source PATH[:A-B] --quote TEXT` and `python -m engine sources
status|stale|hash`: sourced beliefs pinned to their files and checked against them. A thin
skin over engine/sources/pinning.py and engine/sources/status.py; the file reader
(adapters/sources/) is wired in here, lazily."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from engine.cli.support import print_json, print_listing, table
from engine.errors import InvalidInput
from engine.sources.pinning import SourcedClaim, SourceFiles


def source_files(root: str | None) -> SourceFiles:
    """The files under `root` (default: the current folder); a path is given as the user
    typed it (relative to the current folder) and must lie under the root."""
    from adapters.sources.reader import FileSourceReader
    from adapters.sources.walk import relative_to_root

    base = Path(root or ".").resolve()
    if not base.is_dir():
        raise InvalidInput(f"--root {root}: not a folder", field="root", value=root)
    return SourceFiles(FileSourceReader(base), lambda p: relative_to_root(base, Path(p)))


def claim_of(args: argparse.Namespace) -> SourcedClaim | None:
    """The pinned source of `add`, or None without --source."""
    if args.quote is not None and not args.source:
        raise InvalidInput("--quote goes with --source PATH[:A-B]", field="quote")
    if args.root is not None and not args.source:
        raise InvalidInput("--root goes with --source PATH[:A-B]", field="root")
    if not args.source:
        return None
    return source_files(args.root).pin(args.source, args.quote or "")


def add_source_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--source", metavar="PATH[:A-B]",
                   help="the file the belief was observed in (lines A-B): read and hashed now, "
                        "so `sources stale` sees when it changes")
    p.add_argument("--quote", metavar="TEXT",
                   help="words of the source that state the belief; refused unless they occur "
                        "in those lines (then the pin is the quote's own lines)")
    p.add_argument("--root", metavar="DIR",
                   help="source paths are stored relative to DIR and must lie under it "
                        "(default: the current folder)")


# --- sources status | stale | hash ------------------------------------------------------
def sources_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["status", "stale", "hash"],
                   help="status: every sourced belief against its file as it is now; stale: "
                        "those whose file changed or is gone; hash: pin imported beliefs that "
                        "name a file but carry no hash")
    p.add_argument("--retract", action="store_true",
                   help="with stale: re-pin the beliefs whose quote is still in the file, "
                        "retract the others (what rests on them goes OUT), one transaction")
    p.add_argument("--root", metavar="DIR",
                   help="the folder source paths are relative to (default: the current folder)")


_HEADERS = ("belief", "truth", "source", "now")


def _row(r: Any) -> tuple[Any, ...]:
    return (r.id, r.truth, r.path, r.now)


def cmd_sources(store, args) -> int:
    from engine.sources import status as source_status
    from engine.sources.pinning import hash_late
    from engine.tms import now

    if args.retract and args.action != "stale":
        raise InvalidInput("--retract goes with `sources stale`", field="retract")
    files = source_files(args.root)
    if args.action == "hash":
        hashed = hash_late(store, files, at=now())
        if args.json:
            print_json(hashed.as_dict())
            return 0
        for bid, spec in hashed.hashed:
            print(f"hashed late {bid}: {spec}")
        for bid, why in hashed.skipped:
            print(f"skipped {bid}: {why}")
        print(f"{len(hashed.hashed)} belief(s) hashed late, {len(hashed.skipped)} skipped")
        return 0
    if args.action == "status":
        print_listing(source_status.sourced_status(store, files.reader), as_json=args.json,
                      empty="no sourced beliefs", row=_row, headers=_HEADERS)
        return 0
    if args.retract:
        done = source_status.retract_stale_sourced(store, files.reader, at=now())
        if args.json:
            print_json(done.as_dict())
            return 0
        if done.rows:
            print(table([_row(r) for r in done.rows], _HEADERS))
        print(f"re-pinned {len(done.repinned)}, retracted {len(done.retracted)}; went OUT: "
              f"{len(done.change.went_out)}"
              + (f" ({', '.join(done.change.went_out[:20])})" if done.change.went_out else ""))
        return 0
    rows = source_status.stale_sourced(store, files.reader)
    if print_listing(rows, as_json=args.json,
                     empty="no stale beliefs: every source file is as it was pinned",
                     row=_row, headers=_HEADERS):
        print(f"{len(rows)} belief(s) whose file changed or is gone; `python -m engine sources "
              f"stale --retract` re-pins or retracts them")
    return 0
