"""`python -m engine` commands for going back in the memory: diff between points, releases,
rollback, revert, `what-if rollback`, `log --follow`, and the `--as-of POINT` flag of the
read commands. A thin skin over engine/memory/history.py, like engine/cli/memory.py."""
from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

from engine.change_records import LogEntry, LogQuery
from engine.cli.command import Command
from engine.cli.support import print_json, print_listing, shorten
from engine.errors import InvalidInput
from engine.memory import changelog, history
from engine.memory.as_of import AsOfStore

POINT_HELP = "a seq (the state right after that change), an ISO time, or a release name"
FOLLOW_INTERVAL = 0.2  # seconds between two looks at the log


def as_of_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--as-of", metavar="POINT", help=f"read the memory as it was then: {POINT_HELP}")


def seen_as_of(store: Any, args: argparse.Namespace) -> Any:
    """The store as of `--as-of` when given (its reads rebuilt from the log), else `store`."""
    point = getattr(args, "as_of", None)
    if point is None:
        return store
    if getattr(args, "visible_to", None) is not None:
        raise InvalidInput("--as-of and --visible-to do not go together yet", field="as_of")
    return AsOfStore(store, point)


# --- diff --------------------------------------------------------------------------------
def cmd_diff(store: Any, args: argparse.Namespace) -> int:
    points = args.points or []
    if args.since is not None:
        if points:
            raise InvalidInput("give POINT [POINT] or --since, not both", field="since")
        if args.markdown:
            raise InvalidInput("--markdown goes with POINT [POINT]", field="markdown")
        rows = changelog.diff(store, args.since)
        print_listing(rows, as_json=args.json, empty=f"nothing differs since {args.since}",
                      row=lambda r: (r.id, r.then.value if r.then else "-",
                                     r.now.value if r.now else "-", r.definition or "-"),
                      headers=["belief", "then", "now", "definition"])
        return 0
    if not points:
        raise InvalidInput("diff needs POINT [POINT] (or --since TIME|SEQ)", field="points")
    if len(points) > 2:
        raise InvalidInput("diff takes at most two points", field="points")
    d = history.diff_points(store, points[0], points[1] if len(points) > 1 else None)
    if args.json:
        print_json(d.as_dict())
        return 0
    if args.markdown:
        print(diff_markdown(d), end="")
        return 0
    print_listing(d.beliefs, as_json=False,
                  empty=f"no belief differs between seq {d.start} and seq {d.end}",
                  row=lambda r: (r.id, ", ".join(r.what), r.then or "-", r.now or "-",
                                 r.why if r.why is not None else "-",
                                 shorten(r.text_now or r.text_then or "", 50)),
                  headers=["belief", "what", "then", "now", "by change", "text"])
    for label, ids in (("nogoods added", d.nogoods_added),
                       ("nogoods removed", d.nogoods_removed), ("also changed", d.other)):
        if ids:
            print(f"{label}: {', '.join(ids)}")
    return 0


SECTIONS = (("added", "Added"), ("removed", "Removed"), ("reworded", "Reworded"),
            ("re-justified", "Re-justified"), ("pinned", "Retracted or asserted"),
            ("unpinned", "Restored"), ("metadata", "Metadata changed"),
            ("relabelled", "Labels changed"), ("updated", "Touched (timestamps only)"),
            ("redefined", "Otherwise redefined"))


def diff_markdown(d: history.Diff) -> str:
    """The diff in the markdown registry's words: a section per kind of change, each belief
    as the registry names it (`id`, its label, its text)."""
    lines = [f"## Changes from seq {d.start} to seq {d.end}", ""]
    for what, title in SECTIONS:
        rows = [r for r in d.beliefs if what in r.what]
        if not rows:
            continue
        lines += [f"### {title}", ""]
        for r in rows:
            if what == "reworded":
                lines.append(f"- `{r.id}`: \"{r.text_then}\" -> \"{r.text_now}\"")
            elif what == "relabelled":
                lines.append(f"- `{r.id}`: {r.then} -> {r.now} (change {r.why})")
            elif what == "removed":
                lines.append(f"- `{r.id}` (was {r.then or 'OUT'}): {r.text_then or ''}")
            else:
                lines.append(f"- `{r.id}` ({r.now or '-'}): {r.text_now or ''}")
        lines.append("")
    for title, ids in (("Nogoods added", d.nogoods_added), ("Nogoods removed", d.nogoods_removed),
                       ("Also changed", d.other)):
        if ids:
            lines += [f"### {title}", "", *(f"- `{i}`" for i in ids), ""]
    if len(lines) == 2:
        lines += ["Nothing differs.", ""]
    return "\n".join(lines)


def diff_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("points", nargs="*", metavar="POINT",
                   help=f"from POINT to the second POINT (default now): {POINT_HELP}")
    p.add_argument("--since", metavar="TIME|SEQ",
                   help="the older diff: beliefs whose label, text or justifications differ "
                        "since then (an ISO time, or a seq)")
    p.add_argument("--markdown", action="store_true",
                   help="the same facts in the markdown registry's words (a section a "
                        "registry's changelog can take)")


# --- releases ----------------------------------------------------------------------------
def cmd_release(store: Any, args: argparse.Namespace) -> int:
    r = history.make_release(store, args.name, args.at, args.note or "")
    if args.json:
        print_json(r.as_dict())
    else:
        print(f"release {r.name} names seq {r.seq}")
    return 0


def release_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", help="the release's name: a letter, then [a-z0-9._-]")
    p.add_argument("--at", metavar="POINT", help=f"the point it names (default now): {POINT_HELP}")
    p.add_argument("--note", help="what the release is")


def cmd_releases(store: Any, args: argparse.Namespace) -> int:
    print_listing(history.releases(store), as_json=args.json, empty="no releases",
                  row=lambda r: (r.name, r.seq, r.at[:19], r.actor, shorten(r.note, 50)),
                  headers=["release", "seq", "made (UTC)", "by", "note"])
    return 0


# --- rollback, revert ----------------------------------------------------------------------
def _report_restored(r: history.Restored, args: argparse.Namespace, what: str) -> int:
    if args.json:
        print_json(r.as_dict())
        return 0
    counts = ", ".join(f"{len(keys)} {kind}{'s' if len(keys) != 1 else ''}"
                       for kind, keys in r.units.items() if keys)
    print(f"{what}: {counts or 'nothing differed'}")
    for verb, ids in (("IN ", r.change.went_in), ("OUT", r.change.went_out)):
        for bid in ids:
            print(f"{verb} {bid}")
    return 0


def cmd_rollback(store: Any, args: argparse.Namespace) -> int:
    r = history.rollback(store, args.to, args.reason or "")
    return _report_restored(r, args, f"rolled back to seq {r.to}")


def rollback_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--to", required=True, metavar="POINT", help=POINT_HELP)
    p.add_argument("--reason", help="why (kept in the change log)")


def what_if_rollback(store: Any, args: argparse.Namespace) -> int:
    if not args.to:
        raise InvalidInput("what-if rollback needs --to POINT", field="to")
    r = history.rollback(store, args.to, dry_run=True)
    return _report_restored(r, args, f"if rolled back to seq {r.to} (nothing written)")


def cmd_revert(store: Any, args: argparse.Namespace) -> int:
    r = history.revert(store, args.seq, args.reason or "")
    return _report_restored(r, args, f"reverted change {r.to}")


def revert_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("seq", type=int, help="the change to invert (its seq in `log`)")
    p.add_argument("--reason", help="why (kept in the change log)")


# --- the log: --follow, several --id, --prune below a release -------------------------
def follow(store: Any, args: argparse.Namespace, row: Callable[[LogEntry], tuple],
           *, interval: float = FOLLOW_INTERVAL, rounds: int | None = None) -> int:
    """Print each entry as it commits, from any writer, until interrupted (`rounds`: how many
    looks, for tests). Only entries touching one of `--id` when given."""
    wanted = set(args.id or ())
    last = history.last_seq(store)
    looked = 0
    try:
        while rounds is None or looked < rounds:
            looked += 1
            found = history.changes_after(store, last)
            for e, touched in found:
                last = e.seq
                if wanted and not wanted & touched:
                    continue
                if args.json:
                    print(json.dumps(e.as_dict(), ensure_ascii=False), flush=True)
                else:
                    print("  ".join(str(x) for x in row(e)), flush=True)
            if not found:
                time.sleep(interval)
    except KeyboardInterrupt:
        return 0
    return 0


def entries_for(store: Any, query: LogQuery, ids: list[str]) -> list[LogEntry]:
    """`log --id A --id B`: the entries that touched any of them, newest first."""
    if len(ids) <= 1:
        return changelog.log(store, query)
    found: dict[int, LogEntry] = {}
    for bid in ids:
        for e in changelog.log(store, LogQuery(**{**query.__dict__, "belief_id": bid})):
            found[e.seq] = e
    ordered = sorted(found.values(), key=lambda e: e.seq, reverse=not query.oldest_first)
    return ordered[:query.limit] if query.limit else ordered


def check_prune(store: Any, before: str, force: bool) -> None:
    """`log --prune` will not cut below a release (history could not reach it) unless forced."""
    cut, lowest = store.read(lambda tx: tx.prune_reach(changelog.check_time(
        before, what="--before")))
    if lowest is not None and cut is not None and cut > lowest[1] and not force:
        raise InvalidInput(
            f"log --prune --before {before} would cut entries up to seq {cut}, below release "
            f"{lowest[0]!r} (seq {lowest[1]}), which could then no longer be read back;"
            " add --force to prune anyway", field="before", value=before)


COMMANDS: dict[str, Command] = {
    "diff": Command(
        cmd_diff, "what differs between two points (or since TIME|SEQ): beliefs added, "
        "removed, reworded, re-justified, relabelled, pins, nogoods",
        "diff v1.0 --json   (or: diff 120 180; diff --since 2026-12-03T09:00)",
        diff_arguments),
    "release": Command(
        cmd_release, "name a point of the log (log --prune will not cut below it)",
        "release v1.0 --note 'reviewed by the team'", release_arguments),
    "releases": Command(cmd_releases, "the releases, oldest point first", "releases"),
    "rollback": Command(
        cmd_rollback, "ONE write setting every definition back to what it was at POINT "
        "(reversible: roll back to the seq before it)",
        "rollback --to v1.0 --reason 'bad import'", rollback_arguments),
    "revert": Command(
        cmd_revert, "invert one change, when no later change touched what it changed",
        "revert 1234 --reason 'wrong belief retracted'", revert_arguments),
}
