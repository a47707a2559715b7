"""`sources status | stale [--retract] | hash`: sourced beliefs against their files, one call
of engine/service/sources.py each. (`add --source` is verbs.py's; `init --root`,
network.py's.)"""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from engine.cli.arguments import local_path
from engine.cli.command import Call, Command, listing, some_ids, table
from engine.defaults import SOURCES_OUT_LIMIT as OUT_LIMIT

if TYPE_CHECKING:
    from engine.sources.pinning import HashedLate
    from engine.sources.status import Retracted, SourcedRow

HEADERS = ("belief", "truth", "source", "now")


def row(r: SourcedRow) -> tuple[object, ...]:
    return (r.id, r.truth, r.path, r.now)


def cmd_sources(call: Call) -> int:
    from engine.errors import InvalidInput
    from engine.service import sources

    a = call.args
    if a.retract and a.action != "stale":
        raise InvalidInput("--retract goes with `sources stale`", field="retract")
    if (a.missing or a.yes) and not a.retract:
        raise InvalidInput("--missing and --yes go with `sources stale --retract`",
                           field="retract")
    repos = sources.parse_repos(call.context, a.repo)
    if a.action == "hash":
        return _hashed(call, sources.hash_sources(call.context, a.root, repos))
    if a.action == "status":
        found = sources.status(call.context, a.root, repos)
        listing(call, found, found.rows, empty="no sourced beliefs", row=row, headers=HEADERS)
        return 0
    retract = call.command("sources stale --retract")
    if a.retract:
        return print_retraction(call, sources.retract_stale(
            call.context, a.root, repos, missing=a.missing, yes=a.yes), retract)
    stale = sources.stale(call.context, a.root, repos)
    if listing(call, stale, stale.rows, row=row, headers=HEADERS,
               empty="no stale beliefs: every sourced belief reads as it was pinned"):
        call.say(f"{len(stale.rows)} stale belief(s) ({stale.missing} of a missing file); "
                 f"`{retract}` re-pins or retracts them (`--missing` also those of missing "
                 "files)")
    return 0


def _hashed(call: Call, hashed: HashedLate) -> int:
    if call.emit(hashed):
        return 0
    call.say(*(f"hashed late {bid}: {spec}" for bid, spec in hashed.hashed),
             *(f"refreshed {bid}: {path}" for bid, path in hashed.refreshed),
             *(f"skipped {bid}: {why}" for bid, why in hashed.skipped),
             f"{len(hashed.hashed)} belief(s) hashed late, {len(hashed.refreshed)} refreshed, "
             f"{len(hashed.skipped)} skipped")
    return 0


def print_retraction(call: Call, done: Retracted, command: str) -> int:
    """What `stale --retract` did (or, over the limit, would do): what went OUT and what
    came IN, and the missing files' beliefs left alone."""
    from engine.errors import InvalidInput

    if not done.written:
        if not call.emit(done):
            call.say(f"what-if (nothing written): {len(done.change.went_out)} beliefs would go "
                     f"OUT: {some_ids(done.change.went_out)}")
        raise InvalidInput(f"the retraction would take {len(done.change.went_out)} beliefs "
                           f"OUT (more than {OUT_LIMIT}): run `{command} --yes` to go ahead",
                           field="yes")
    if call.emit(done):
        return 0
    if done.rows:
        call.say(table([row(r) for r in done.rows], HEADERS))
    call.say(f"re-pinned {len(done.repinned)}, retracted {len(done.retracted)}, restored "
             f"{len(done.restored)}",
             f"went OUT: {len(done.change.went_out)}"
             + (f" ({some_ids(done.change.went_out)})" if done.change.went_out else ""),
             f"came IN: {len(done.change.went_in)}"
             + (f" ({some_ids(done.change.went_in)})" if done.change.went_in else ""))
    if done.left_missing:
        call.say(f"left as they are (their file is missing; `--missing` retracts them): "
                 f"{some_ids(done.left_missing)}")
    return 0


def repo_pair(text: str) -> str:
    """`NAME=PATH` (its PATH read against the caller's folder when relative)."""
    name, sep, path = text.partition("=")
    if not sep or not name.strip() or not path.strip():
        raise argparse.ArgumentTypeError(f"--repo takes NAME=PATH, not {text!r}")
    return text


def _sources_arguments(p: argparse.ArgumentParser) -> None:
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
    p.add_argument("--root", metavar="DIR", type=local_path,
                   help="the folder source paths are relative to (default: the recorded root)")
    p.add_argument("--repo", metavar="NAME=PATH", action="append", default=[], type=repo_pair,
                   help="a `NAME/path` source is read from PATH/path (repeatable; besides the "
                        "repos map an import kept)")


COMMANDS: dict[str, Command] = {
    "sources": Command(
        cmd_sources, "sourced beliefs against their files: status, stale [--retract], hash",
        "sources stale --retract", _sources_arguments),
}
