"""`sources status | stale [--retract | --since REV] | hash | repos`: sourced beliefs
against their files, one call of engine/service/sources.py each; `hooks install |
uninstall | run`, the git hooks that run the stale check (engine/service/hooks.py).
(`add --source` is verbs.py's; `init --root`, network.py's.)"""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from engine.cli.arguments import arg, local_path, recorded_root_flag
from engine.cli.command import Call, Command, listing, some_ids, table
from engine.defaults import SOURCES_OUT_LIMIT as OUT_LIMIT

if TYPE_CHECKING:
    from collections.abc import Sequence

    from engine.service.sources import Repos
    from engine.sources.pinning import HashedLate
    from engine.sources.status import Retracted, SourcedRow

HEADERS = ("belief", "truth", "source", "now")


def row(r: SourcedRow) -> tuple[object, ...]:
    return (r.id, r.truth, r.path, r.now)


def cmd_sources(call: Call) -> int:
    from engine.errors import InvalidInput
    from engine.service import sources

    a = call.args
    if (a.retract or a.since is not None or a.fail_on_stale) and a.action != "stale":
        raise InvalidInput("--retract, --since and --fail-on-stale go with `sources stale`",
                           field="retract" if a.retract else "since")
    if a.retract and (a.since is not None or a.fail_on_stale):
        raise InvalidInput("--since and --fail-on-stale list what is stale; --retract "
                           "brings it up to date: give one or the other", field="since")
    if (a.missing or a.yes) and not a.retract:
        raise InvalidInput("--missing and --yes go with `sources stale --retract`",
                           field="retract")
    repos = sources.parse_repos(call.context, a.repo)
    if a.action == "hash":
        return _hashed(call, sources.hash_sources(call.context, a.root, repos))
    if a.action == "repos":
        return _repos(call, sources.list_repos(call.context, repos))
    if a.action == "status":
        found = sources.status(call.context, a.root, repos)
        listing(call, found, found.rows, empty="no sourced beliefs", row=row, headers=HEADERS)
        return 0
    retract = call.command("sources stale --retract")
    if a.retract:
        return print_retraction(call, sources.retract_stale(
            call.context, a.root, repos, missing=a.missing, yes=a.yes), retract)
    stale = sources.stale(call.context, a.root, repos, a.since)
    since = f" since {a.since}" if a.since is not None else ""
    if listing(call, stale, stale.rows, row=row, headers=HEADERS,
               empty=f"no stale beliefs{since}: every sourced belief reads as it was pinned"):
        call.say(f"{len(stale.rows)} stale belief(s){since} ({stale.missing} of a missing "
                 f"file); `{retract}` re-pins or retracts them (`--missing` also those of "
                 "missing files)")
    return 1 if a.fail_on_stale and stale.failing else 0


def _repos(call: Call, found: Repos) -> int:
    listing(call, found, found.repos, empty="no repos map: an import keeps the file's, "
            "and --repo NAME=PATH adds one", row=lambda r: r, headers=("repo", "path", "from"))
    return 0


def _hashed(call: Call, hashed: HashedLate) -> int:
    if call.emit(hashed):
        return 0
    call.say(*(f"hashed late {bid}: {spec}" for bid, spec in hashed.hashed),
             *(f"hashed whole {bid}: {file}" for bid, file in hashed.whole),
             *(f"refreshed {bid}: {path}" for bid, path in hashed.refreshed),
             *(f"skipped {bid}: {why}" for bid, why in hashed.skipped),
             f"{len(hashed.hashed)} belief(s) hashed late, {len(hashed.whole)} hashed whole "
             f"(a file outside the root), {len(hashed.refreshed)} refreshed, "
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


SOURCES_ARGUMENTS = (
    arg("action", choices=["status", "stale", "hash", "repos"],
        help="status: every sourced belief against its file as it is now (in a git work "
             "tree, through the diff from the commit it was pinned at); stale: those, IN or "
             "OUT, whose own lines or quote no longer read as pinned, whose whole file changed "
             "(content_changed) or is gone (source_deleted); hash: pin beliefs that name a "
             "file under the root but carry no hash, hash whole those naming a file outside "
             "it (an agent's repo, NAME/path through the repos map), and refresh the "
             "whole-file hash of those whose file changed; repos: the repos map"),
    arg("--retract", action="store_true",
        help="with stale: re-pin what still stands, retract what is gone or changed, restore "
             "what stands again (one transaction)"),
    arg("--since", metavar="REV",
        help="with stale: only what the commits after REV made stale, up to the work tree "
             "(what a pull request does to the memory: --since origin/main)"),
    arg("--fail-on-stale", action="store_true",
        help="with stale: exit 1 when a listed belief's lines no longer say what was pinned, "
             "or its file is gone (a CI gate; pins that only moved are listed, for --retract "
             "to re-pin, and do not fail it)"),
    arg("--missing", action="store_true",
        help="with stale --retract: retract the beliefs of missing files too (without it they "
             "are listed apart)"),
    arg("--yes", action="store_true",
        help=f"with stale --retract: go ahead when more than {OUT_LIMIT} beliefs would go OUT "
             "(without it, the what-if is shown and nothing written)"),
    recorded_root_flag,
    arg("--repo", metavar="NAME=PATH", action="append", default=[], type=repo_pair,
        help="a `NAME/path` source is read from PATH/path (repeatable; besides the repos map "
             "an import kept)"))


# --- hooks --------------------------------------------------------------------------------
def hook_program(call: Call) -> tuple[str, ...]:
    """The command line a hook runs eem by: this installation's `eem` when the program was
    called by that name and it is there, else this Python with `-m engine` (absolute: a
    hook runs without the caller's PATH)."""
    import sys
    from pathlib import Path

    eem = Path(sys.executable).with_name("eem")
    if call.context.prog == "eem" and eem.is_file():
        return (str(eem),)
    return (sys.executable, "-m", "engine")


def cmd_hooks(call: Call) -> int:
    from engine.errors import InvalidInput
    from engine.service import hooks

    a = call.args
    if a.action != "run" and a.event_args:
        raise InvalidInput(f"`hooks {a.action}` takes no EVENT", field="event")
    if a.action == "run" and a.root is not None:
        raise InvalidInput("`hooks run` checks the memory's recorded root; it takes no --root",
                           field="root")
    if a.action == "uninstall" and a.retract:
        raise InvalidInput("--retract goes with `hooks install`", field="retract")
    if a.action == "install":
        done = hooks.install(call.context, hooks.HookOptions(hook_program(call), a.retract,
                                                             a.root))
        if not call.emit(done):
            call.say(*(f"wrote {h.path}" + (f" (the hook there before runs first: {h.chained})"
                                             if h.chained else "") for h in done.hooks),
                     "each runs the stale check after git changes the work tree"
                     + (" and retracts what went stale" if done.retract else
                        " (it retracts nothing: install with --retract for that)"))
        return 0
    if a.action == "uninstall":
        removed = hooks.uninstall(call.context, a.root)
        if not call.emit(removed):
            call.say(*(f"removed {p}" for p in removed.removed),
                     *(f"put back {p} (the hook that was there before)"
                       for p in removed.restored))
            if not removed.removed:
                call.say(f"no hook of eem's in {removed.folder}")
        return 0
    return _run_hook(call)


def _run_hook(call: Call) -> int:
    """What a hook prints: nothing when nothing changed, else one short block; never an
    exit status that could fail the git command."""
    from engine.errors import EngineError
    from engine.service import hooks

    a = call.args
    if not a.event_args:
        call.say("eem: hooks run takes the EVENT git ran (post-commit, post-merge, "
                 "post-checkout, post-rewrite)")
        return 0
    event, *args = a.event_args
    try:
        done = hooks.run(call.context, event, args, retract=a.retract)
    except EngineError as e:
        call.say(f"eem: the stale check did not run: {e.said(call.context.prog)}")
        return 0
    except Exception as e:  # a hook must never fail the git command
        call.say(f"eem: the stale check did not run: {type(e).__name__}: {e}")
        return 0
    if call.emit(done):
        return 0
    if done.skipped:
        call.say(f"eem: {done.skipped}")
        return 0
    what = hooks.EVENT_NAMES.get(done.event, done.event)
    if done.stale:
        n = len(done.stale)
        taken = (f"retracted: {some_ids(list(done.retracted))}" if done.retracted else
                 f"`{done.retract_command}` takes {'it' if n == 1 else 'them'} down")
        call.say(f"eem: {what} left {n} belief{'' if n == 1 else 's'} stale ({taken}):",
                 *(f"  {r.id}  {r.path}:{_span(r.lines)}  {r.now}" for r in done.stale))
    if done.would_take_out:
        call.say(f"eem: retracting would take {done.would_take_out} beliefs OUT: nothing "
                 f"retracted; `{done.retract_command} --yes` goes ahead")
    if done.repinned:
        call.say(f"eem: re-pinned {len(done.repinned)}: " + ", ".join(
            f"{r.id} at {r.new_path or r.path}:{_span(r.new_lines)}"
            + (f" (renamed from {r.path})" if r.new_path else "") for r in done.repinned))
    return 0


def _span(lines: Sequence[int] | None) -> str:
    if not lines:
        return "?"
    return f"{lines[0]}-{lines[-1]}"


HOOKS_ARGUMENTS = (
    arg("action", choices=["install", "uninstall", "run"],
        help="install: write the post-commit, post-merge, post-checkout and post-rewrite hooks "
             "of the work tree the memory's root is in (a hook already there is kept and run "
             "first); uninstall: remove them (and put back what was there); run EVENT: what a "
             "hook calls"),
    arg("event_args", nargs="*", metavar="EVENT",
        help="with run: the event and the arguments git gave the hook"),
    arg("--retract", action="store_true",
        help="with install (and run): the hooks also retract what went stale (without it they "
             "only re-pin what moved and say what is stale)"),
    arg("--root", metavar="DIR", type=local_path,
        help="the memory's root (default: the recorded one)"))


COMMANDS: dict[str, Command] = {
    "sources": Command(
        cmd_sources, "sourced beliefs against their files: status, stale [--retract | --since "
        "REV], hash, repos", "sources stale --since origin/main --fail-on-stale",
        SOURCES_ARGUMENTS),
    "hooks": Command(
        cmd_hooks, "git hooks that keep the memory in step with its work tree: install "
        "[--retract], uninstall, run EVENT", "hooks install", HOOKS_ARGUMENTS),
}
