"""The change log and going back from the command line: log (and --prune, --follow), diff,
release, releases, rollback, revert; `what-if rollback` renders with render_restored. Each
one call of engine/service/history.py."""
from __future__ import annotations

from typing import TYPE_CHECKING

from engine.cli.arguments import POINT_HELP, arg, whole
from engine.cli.command import Call, Command, listing, shorten
from engine.defaults import LOG_LIMIT

if TYPE_CHECKING:
    from engine.change_records import LogEntry
    from engine.memory.history import Diff, Restored


def _counts(e: LogEntry) -> str:
    parts = [f"+{len(e.went_in)} IN" if e.went_in else "", f"-{len(e.went_out)} OUT"
             if e.went_out else "", f"{len(e.retracted_by_nogood)} by nogood"
             if e.retracted_by_nogood else "", f"{len(e.created)} new" if e.created else ""]
    return ", ".join(p for p in parts if p) or "-"


def _args_text(e: LogEntry) -> str:
    return " ".join(f"{k}={v}" for k, v in sorted(e.args.items()) if k != "removed")[:60]


def log_row(e: LogEntry) -> tuple[object, ...]:
    return (e.seq, e.at[:19], e.actor, e.op, _args_text(e), _counts(e), e.reason[:40])


LOG_HEADERS = ["seq", "at (UTC)", "actor", "op", "args", "cascade", "reason"]


def cmd_log(call: Call) -> int:
    from engine.errors import InvalidInput
    from engine.service import history

    a = call.args
    if a.force and not a.prune:
        raise InvalidInput("--force goes with --prune", field="force")
    if a.prune:
        if not a.before:
            raise InvalidInput("log --prune needs --before TIME", field="before")
        pruned = history.prune(call.context, a.before, force=a.force)
        if not call.emit(pruned):
            call.say(f"pruned {pruned.pruned} entries")
        return 0
    if a.before:
        raise InvalidInput("--before goes with --prune", field="before")
    if a.follow:
        if a.since or a.after is not None or a.op or a.actor:
            raise InvalidInput("--follow prints the changes from now on; it takes --id and "
                               "--json only", field="follow")
        return _follow(call)
    found = history.log(call.context, history.LogOptions(
        since=a.since, after=a.after, ids=tuple(a.id or ()), op=a.op, actor=a.actor,
        limit=a.limit))
    listing(call, found, found.entries, empty="no entries", row=log_row, headers=LOG_HEADERS)
    return 0


def _follow(call: Call) -> int:
    """Each entry as it commits until interrupted; a line on stderr says from which seq, once
    the log's end has been read (what a caller may wait for)."""
    import json

    from engine.service import history

    def ready(seq: int) -> None:
        call.note(f"following the change log after seq {seq} (Ctrl-C stops)")

    try:
        for e in history.follow(call.context, call.args.id or (), ready=ready):
            call.say(json.dumps(e.as_dict(), ensure_ascii=False) if call.as_json
                     else "  ".join(str(x) for x in log_row(e)))
            call.out.flush()
    except KeyboardInterrupt:
        return 0
    return 0


# --- diff --------------------------------------------------------------------------------
def cmd_diff(call: Call) -> int:
    from engine.errors import InvalidInput
    from engine.service import history

    a = call.args
    points = a.points or []
    if a.since is not None:
        if points:
            raise InvalidInput("give POINT [POINT] or --since, not both", field="since")
        if a.markdown:
            raise InvalidInput("--markdown goes with POINT [POINT]", field="markdown")
        since = history.diff_since(call.context, a.since)
        listing(call, since, since.rows, empty=f"nothing differs since {a.since}",
                row=lambda r: (r.id, r.then.value if r.then else "-",
                               r.now.value if r.now else "-", r.definition or "-"),
                headers=["belief", "then", "now", "definition"])
        return 0
    d = history.diff(call.context, points)
    if call.emit(d):
        return 0
    if a.markdown:
        call.out.write(diff_markdown(d))
        return 0
    listing(call, d, d.beliefs, empty=f"no belief differs between seq {d.start} and seq {d.end}",
            row=lambda r: (r.id, ", ".join(r.what), r.then or "-", r.now or "-",
                           r.why if r.why is not None else "-",
                           shorten(r.text_now or r.text_then or "", 50)),
            headers=["belief", "what", "then", "now", "by change", "text"])
    for label, ids in (("nogoods added", d.nogoods_added),
                       ("nogoods removed", d.nogoods_removed), ("also changed", d.other)):
        if ids:
            call.say(f"{label}: {', '.join(ids)}")
    return 0


SECTIONS = (("added", "Added"), ("removed", "Removed"), ("reworded", "Reworded"),
            ("re-justified", "Re-justified"), ("pinned", "Retracted or asserted"),
            ("unpinned", "Restored"), ("metadata", "Metadata changed"),
            ("relabelled", "Labels changed"), ("updated", "Touched (timestamps only)"),
            ("redefined", "Otherwise redefined"))


def diff_markdown(d: Diff) -> str:
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


# --- releases, rollback, revert -----------------------------------------------------------
def cmd_release(call: Call) -> int:
    from engine.service import history

    r = history.release(call.context, call.args.name, call.args.at, call.args.note or "")
    if not call.emit(r):
        call.say(f"release {r.name} names seq {r.seq}")
    return 0


def cmd_releases(call: Call) -> int:
    from engine.service import history

    found = history.releases(call.context)
    listing(call, found, found.releases, empty="no releases",
            row=lambda r: (r.name, r.seq, r.at[:19], r.actor, shorten(r.note, 50)),
            headers=["release", "seq", "made (UTC)", "by", "note"])
    return 0


def render_restored(call: Call, r: Restored, what: str) -> int:
    """What a rollback or revert did (or would do)."""
    if call.emit(r):
        return 0
    counts = ", ".join(f"{len(keys)} {kind}{'s' if len(keys) != 1 else ''}"
                       for kind, keys in r.units.items() if keys)
    call.say(f"{what}: {counts or 'nothing differed'}")
    for verb, ids in (("IN ", r.change.went_in), ("OUT", r.change.went_out)):
        for bid in ids:
            call.say(f"{verb} {bid}")
    return 0


def cmd_rollback(call: Call) -> int:
    from engine.service import history

    r = history.rollback(call.context, call.args.to, call.args.reason or "")
    return render_restored(call, r, f"rolled back to seq {r.to}")


def cmd_revert(call: Call) -> int:
    from engine.service import history

    r = history.revert(call.context, call.args.seq, call.args.reason or "")
    return render_restored(call, r, f"reverted change {r.to}")


REASON = arg("--reason", help="why (kept in the change log)")
COMMANDS: dict[str, Command] = {
    "log": Command(
        cmd_log, "the change log, newest first: who changed what, why, and the cascade",
        "log --since 2026-12-03 --op retract   (or: log --follow --json --id auth-uses-jwt)",
        (arg("--since", metavar="TIME|SEQ",
             help="entries at or after this ISO time, or after this seq"),
         arg("--after", type=whole, metavar="SEQ", help="entries after this seq"),
         arg("--id", action="append", metavar="ID",
             help="entries that touched this belief (repeat for several)"),
         arg("--op", help="entries of this operation (retract, supersede, derive, ...)"),
         arg("--actor", help="entries by this actor"),
         arg("--limit", type=whole, default=LOG_LIMIT,
             help=f"at most this many, newest first (default {LOG_LIMIT})"),
         arg("--prune", action="store_true",
             help="delete the entries older than --before (one transaction)"),
         arg("--before", metavar="TIME", help="with --prune: the cut-off time"),
         arg("--force", action="store_true",
             help="with --prune: cut below a release too (it can no longer be read back)"),
         arg("--follow", action="store_true",
             help="print each change as it commits, from any writer, until interrupted"))),
    "diff": Command(
        cmd_diff, "what differs between two points (or since TIME|SEQ): beliefs added, "
        "removed, reworded, re-justified, relabelled, pins, nogoods",
        "diff v1.0 --json   (or: diff 120 180; diff --since 2026-12-03T09:00)",
        (arg("points", nargs="*", metavar="POINT",
             help=f"from POINT to the second POINT (default now): {POINT_HELP}"),
         arg("--since", metavar="TIME|SEQ",
             help="the older diff: beliefs whose label, text or justifications differ since "
                  "then (an ISO time, or a seq)"),
         arg("--markdown", action="store_true",
             help="the same facts in the markdown registry's words (a section a registry's "
                  "changelog can take)"))),
    "release": Command(
        cmd_release, "name a point of the log (log --prune will not cut below it)",
        "release v1.0 --note 'reviewed by the team'",
        (arg("name", help="the release's name: a letter, then [a-z0-9._-]"),
         arg("--at", metavar="POINT", help=f"the point it names (default now): {POINT_HELP}"),
         arg("--note", help="what the release is"))),
    "releases": Command(cmd_releases, "the releases, oldest point first", "releases"),
    "rollback": Command(
        cmd_rollback, "ONE write setting every definition back to what it was at POINT "
        "(reversible: roll back to the seq before it)",
        "rollback --to v1.0 --reason 'bad import'",
        (arg("--to", required=True, metavar="POINT", help=POINT_HELP), REASON)),
    "revert": Command(
        cmd_revert, "invert one change, when no later change touched what it changed",
        "revert 1234 --reason 'wrong belief retracted'",
        (arg("seq", type=int, help="the change to invert (its seq in `log`)"), REASON)),
}
