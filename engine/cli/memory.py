"""`python -m engine` commands for keeping a memory: supersede, challenge and defend, editing,
and the change log (log). A thin skin like engine/cli/tms.py, whose table takes these
COMMANDS; each handler calls one library function and renders the result."""
from __future__ import annotations

import argparse

from engine.change_records import LogEntry, LogQuery, Touch
from engine.cli import history as going_back
from engine.cli.command import Command, id_argument, justifications_of, report_change
from engine.cli.support import print_json, print_listing, table
from engine.errors import InvalidInput
from engine.memory import changelog, defeat, dialectic, duplicates, editing, supersede
from engine.model import check_id

DEFAULT_LOG_LIMIT = 50


# --- the change log ------------------------------------------------------------------
def _counts(e: LogEntry) -> str:
    parts = [f"+{len(e.went_in)} IN" if e.went_in else "", f"-{len(e.went_out)} OUT"
             if e.went_out else "", f"{len(e.retracted_by_nogood)} by nogood"
             if e.retracted_by_nogood else "", f"{len(e.created)} new" if e.created else ""]
    return ", ".join(p for p in parts if p) or "-"


def _args_text(e: LogEntry) -> str:
    return " ".join(f"{k}={v}" for k, v in sorted(e.args.items()) if k != "removed")[:60]


def _log_row(e: LogEntry) -> tuple:
    return (e.seq, e.at[:19], e.actor, e.op, _args_text(e), _counts(e), e.reason[:40])


def cmd_log(store, args) -> int:
    if args.force and not args.prune:
        raise InvalidInput("--force goes with --prune", field="force")
    if args.prune:
        if not args.before:
            raise InvalidInput("log --prune needs --before TIME", field="before")
        going_back.check_prune(store, args.before, args.force)
        pruned = changelog.prune(store, args.before)
        print_json({"pruned": pruned}) if args.json else print(f"pruned {pruned} entries")
        return 0
    if args.before:
        raise InvalidInput("--before goes with --prune", field="before")
    ids = args.id or []
    for bid in ids:
        check_id(bid)
    if args.follow:
        if args.since or args.after is not None or args.op or args.actor:
            raise InvalidInput("--follow prints the changes from now on; it takes --id and "
                               "--json only", field="follow")
        return going_back.follow(store, args, _log_row)
    at, seq = changelog.since_to_query(args.since)
    if args.after is not None and seq is not None:
        raise InvalidInput("give --since or --after, not both", field="after")
    entries = going_back.entries_for(store, LogQuery(
        since=at, after=args.after if args.after is not None else seq,
        belief_id=ids[0] if ids else None, op=args.op, actor=args.actor, limit=args.limit),
        ids)
    print_listing(entries, as_json=args.json, empty="no entries", row=_log_row,
                  headers=["seq", "at (UTC)", "actor", "op", "args", "cascade", "reason"])
    return 0


def print_history(store, belief_id: str, as_json: bool) -> int:
    items: list[tuple[LogEntry, Touch]] = changelog.history(store, belief_id)
    if as_json:
        print_json([{**e.as_dict(ids=False), "did": list(t.did)} for e, t in items])
        return 0
    if not items:
        print(f"no change-log entry touched {belief_id}")
        return 0
    print(table([(e.seq, e.at[:19], e.actor, e.op, ", ".join(t.did), e.reason[:40])
                 for e, t in items], ["seq", "at (UTC)", "actor", "op", "did", "reason"]))
    return 0


# --- supersede -------------------------------------------------------------------------
def supersede_justifications(args) -> tuple | None:
    """--premise: none; --sl/--cp/--unless: those; neither: OLD's (None)."""
    given = args.sl or args.cp or args.unless
    if args.premise and given:
        raise InvalidInput("give --premise or --sl/--cp/--unless, not both", field="premise")
    if args.premise:
        return ()
    if not given:
        return None
    return justifications_of(args)


def cmd_supersede(store, args) -> int:
    if args.undo:
        if args.new or args.text is not None:
            raise InvalidInput("--undo takes OLD only", field="undo")
        return report_change(supersede.undo_supersede(store, args.old), args)
    done = supersede.supersede(store, args.old, args.new, text=args.text, new_id=args.new_id,
                               justifications=supersede_justifications(args),
                               rewire=args.rewire, reason=args.reason or "")
    if args.json:
        print_json(done.as_dict())
        return 0
    print(f"{done.old} superseded by {done.new}" + (" (created)" if done.created else "")
          + (f"; {done.rewired} dependent edge(s) rewired" if done.rewired else ""))
    return report_change(done.change, args)


def what_if_supersede(store, args) -> int:
    done = supersede.what_if_supersede(store, args.id, args.new, text=args.text,
                                       new_id=args.new_id,
                                       justifications=supersede_justifications(args),
                                       rewire=args.rewire)
    if not args.json:
        print(f"if {done.new} superseded {done.old} (nothing written):")
    return report_change(done.change, args)


# --- challenge and defend, editing -----------------------------------------------------
def _argued(done: dialectic.Argued, args, verb: str) -> int:
    if args.json:
        print_json(done.as_dict())
        return 0
    print(f"{done.id} {verb} {done.target}")
    return report_change(done.change, args)


def cmd_challenge(store, args) -> int:
    return _argued(dialectic.challenge(store, args.id, args.reason or "", args.justification,
                                       args.challenge_id), args, "challenges")


def cmd_defend(store, args) -> int:
    return _argued(dialectic.defend(store, args.id, args.reason or ""), args, "defends")


def _scopes(args) -> tuple[list[defeat.Scope], str]:
    """--scope ANTECEDENT=TEXT flags, and a scope file's findings (with its default reason)."""
    scopes = []
    for given in args.scope or ():
        antecedent, sep, text = given.partition("=")
        if not sep or not antecedent.strip() or not text.strip():
            raise InvalidInput(f"--scope takes ANTECEDENT=TEXT, not {given!r}", field="scope",
                               value=given)
        scopes.append(defeat.Scope(antecedent.strip(), text.strip()))
    if not args.scope_file:
        return scopes, ""
    import json

    try:
        with open(args.scope_file, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise InvalidInput(f"cannot read {args.scope_file}: {e.strerror}",
                           field="scope_file") from None
    except json.JSONDecodeError as e:
        raise InvalidInput(f"{args.scope_file} is not JSON: {e.msg} (line {e.lineno})",
                           field="scope_file") from None
    found, reason = defeat.scopes_from_findings(data, args.id)
    return scopes + found, reason


def cmd_defeat(store, args) -> int:
    scopes, file_reason = _scopes(args)
    done = defeat.defeat(store, args.id, args.justification, args.type,
                         args.reason or file_reason, args.defeater_id, scopes)
    if args.json:
        print_json(done.as_dict())
        return 0
    print(f"{done.id} defeats justification {done.justification} of {done.target} "
          f"({done.type})" + (f", derived from {', '.join(done.scopes)}" if done.scopes else ""))
    return report_change(done.change, args)


def cmd_migrate_retractions(store, args) -> int:
    done = defeat.migrate_retractions(store, args.ids, dry_run=args.dry_run)
    if args.json:
        print_json(done.as_dict())
        return 0
    if done.dry_run:
        print("dry run: nothing written")
    for m in done.migrated:
        for n, did in m.defeaters:
            print(f"{m.id}: justification {n} defeated by {did}: {m.reason}")
    for bid, why in done.skipped:
        print(f"{bid}: left retracted ({why})")
    if not done.migrated and not done.skipped:
        print("no retracted belief to migrate")
    return report_change(done.change, args)


def cmd_mark_duplicate(store, args) -> int:
    change = duplicates.mark_duplicate(store, args.id, args.canonical)
    if not args.json:
        print(f"{args.id} marked a duplicate of {args.canonical} (retracted)")
    return report_change(change, args)


def cmd_remove_justification(store, args) -> int:
    return report_change(editing.remove_justification(store, args.id, args.n), args)


def cmd_convert_to_premise(store, args) -> int:
    return report_change(editing.convert_to_premise(store, args.id), args)


def cmd_set_metadata(store, args) -> int:
    return report_change(editing.set_metadata(store, args.id, args.key,
                                              editing.parse_value(args.value)), args)


def cmd_unset_metadata(store, args) -> int:
    return report_change(editing.unset_metadata(store, args.id, args.key), args)


def cmd_get_metadata(store, args) -> int:
    value = editing.get_metadata(store, args.id, args.key)
    if args.key is not None and isinstance(value, str) and not args.json:
        print(value)
    else:
        print_json(dict(value) if args.key is None else value)
    return 0


# --- arguments -------------------------------------------------------------------------
def whole(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more: {text!r}")
    return value


def _log_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--since", metavar="TIME|SEQ",
                   help="entries at or after this ISO time, or after this seq")
    p.add_argument("--after", type=whole, metavar="SEQ", help="entries after this seq")
    p.add_argument("--id", action="append", metavar="ID",
                   help="entries that touched this belief (repeat for several)")
    p.add_argument("--op", help="entries of this operation (retract, supersede, derive, ...)")
    p.add_argument("--actor", help="entries by this actor")
    p.add_argument("--limit", type=whole, default=DEFAULT_LOG_LIMIT,
                   help=f"at most this many, newest first (default {DEFAULT_LOG_LIMIT})")
    p.add_argument("--prune", action="store_true",
                   help="delete the entries older than --before (one transaction)")
    p.add_argument("--before", metavar="TIME", help="with --prune: the cut-off time")
    p.add_argument("--force", action="store_true",
                   help="with --prune: cut below a release too (it can no longer be read back)")
    p.add_argument("--follow", action="store_true",
                   help="print each change as it commits, from any writer, until interrupted")


def replacement_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--text", help="reword: create NEW with this text")
    p.add_argument("--id", dest="new_id", help="with --text: NEW's id (default OLD-v2, -v3...)")
    p.add_argument("--sl", metavar="A,B", help="with --text: NEW's antecedents instead of OLD's")
    p.add_argument("--cp", metavar="A,B", help="with --text: as --sl, kept as CP")
    p.add_argument("--unless", metavar="X,Y", help="with --text: NEW's outlist")
    p.add_argument("--any", action="store_true", help="one justification per antecedent")
    p.add_argument("--label", help="a label for NEW's justification")
    p.add_argument("--premise", action="store_true", help="with --text: NEW is a premise")
    rewire = p.add_mutually_exclusive_group()
    rewire.add_argument("--rewire", dest="rewire", action="store_true", default=None,
                        help="move OLD's dependents to NEW (the default with --text)")
    rewire.add_argument("--no-rewire", dest="rewire", action="store_false",
                        help="leave OLD's dependents on OLD")


def _supersede_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("old", metavar="OLD")
    p.add_argument("new", metavar="NEW", nargs="?", help="an existing belief that replaces OLD")
    replacement_flags(p)
    p.add_argument("--reason", help="why (kept in the change log and on the link)")
    p.add_argument("--undo", action="store_true",
                   help="restore the graph as it was before OLD was superseded")


def _challenge_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id")
    p.add_argument("--reason", required=True, help="the objection: the challenge's text")
    p.add_argument("--justification", type=whole, metavar="N",
                   help="challenge justification N only (1-based; default: all)")
    p.add_argument("--id", dest="challenge_id", metavar="CHALLENGE_ID",
                   help="the challenge's id (default: challenge:ID, then challenge:ID:2, ...)")


def _defend_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", metavar="CHALLENGE",
                   help="a challenge, a review defeater (review:<belief>:j<n>) or a defence")
    p.add_argument("--reason", required=True, help="the answer: the defence's text")


def _defeat_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", help="the belief whose justification is defeated")
    p.add_argument("--justification", type=whole, metavar="N", required=True,
                   help="which justification (1-based, as show lists them)")
    p.add_argument("--type", choices=defeat.DEFEATER_TYPES, default=defeat.DEFEATER_TYPES[0],
                   help=f"what is wrong with it (default {defeat.DEFEATER_TYPES[0]})")
    p.add_argument("--reason", help="why: the defeater's text (required unless a scope file "
                                    "says what property is missing)")
    p.add_argument("--id", dest="defeater_id", metavar="DEFEATER_ID",
                   help="the defeater's id (default: defeat:ID:jN, then defeat:ID:jN:2, ...)")
    p.add_argument("--scope", action="append", metavar="ANTECEDENT=TEXT",
                   help="what an antecedent of the justification does and does not establish "
                        "(repeat per antecedent): each a premise, the defeater derived from "
                        "them, so challenging one restores the justification")
    p.add_argument("--scope-file", metavar="FILE",
                   help="scopes from a JSON file as ftl-reasons' defeat-with-scope reads it "
                        "(scope_findings: antecedent, establishes, does_not_establish; "
                        "missing_property)")


def _migrate_retractions_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("ids", nargs="*", metavar="ID",
                   help="only these beliefs (default: every retracted belief)")
    p.add_argument("--dry-run", action="store_true",
                   help="say what would be migrated; nothing is written")


def _mark_duplicate_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id", metavar="DUP", help="the duplicate: retracted")
    p.add_argument("canonical", metavar="CANONICAL", help="the belief it duplicates")


def _remove_justification_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id")
    p.add_argument("n", type=whole, metavar="N", help="the justification (1-based, as show lists)")


def _set_metadata_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id")
    p.add_argument("key")
    p.add_argument("value", help="a JSON value (42, true, [\"a\"]) or plain text")


def _unset_metadata_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id")
    p.add_argument("key")


def _get_metadata_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id")
    p.add_argument("key", nargs="?")


COMMANDS: dict[str, Command] = {
    "supersede": Command(
        cmd_supersede, "replace OLD by NEW, or reword OLD (--text); --undo",
        "supersede auth-uses-jwt --text 'The auth service validates JWTs and sessions'",
        _supersede_arguments),
    "challenge": Command(
        cmd_challenge, "challenge a belief: a premise in its outlists",
        "challenge auth-bottleneck --reason 'the benchmark ran without the cache'",
        _challenge_arguments),
    "defend": Command(
        cmd_defend, "answer a challenge or a review defeater",
        "defend challenge:auth-bottleneck --reason 'rerun with the cache: same result'",
        _defend_arguments),
    "defeat": Command(
        cmd_defeat, "defeat one justification of a belief: a typed defeater in "
        "its outlist (undo: defend the defeater)",
        "defeat auth-bottleneck --justification 1 --type over-generalizes --reason "
        "'one slow endpoint is not the whole service'", _defeat_arguments),
    "migrate-retractions": Command(
        cmd_migrate_retractions, "turn retractions kept only as a reason, whose "
        "support holds, into defeated justifications", "migrate-retractions --dry-run",
        _migrate_retractions_arguments),
    "mark-duplicate": Command(
        cmd_mark_duplicate, "retract DUP as a duplicate of CANONICAL (dedup's "
        "merge also moves dependents)", "mark-duplicate auth-jwt-check auth-uses-jwt",
        _mark_duplicate_arguments),
    "remove-justification": Command(
        cmd_remove_justification, "drop one justification (never the last)",
        "remove-justification auth-bottleneck 2", _remove_justification_arguments),
    "convert-to-premise": Command(
        cmd_convert_to_premise, "strip a belief's justifications: a premise",
        "convert-to-premise auth-bottleneck", id_argument),
    "set-metadata": Command(
        cmd_set_metadata, "set one metadata key (JSON values allowed)",
        "set-metadata auth-uses-jwt beliefs_type observation", _set_metadata_arguments),
    "unset-metadata": Command(
        cmd_unset_metadata, "remove one metadata key",
        "unset-metadata auth-uses-jwt beliefs_type", _unset_metadata_arguments),
    "get-metadata": Command(
        cmd_get_metadata, "a belief's metadata, or one key of it",
        "get-metadata auth-uses-jwt beliefs_type", _get_metadata_arguments),
    "log": Command(
        cmd_log, "the change log, newest first: who changed what, why, and the cascade",
        "log --since 2026-12-03 --op retract   (or: log --follow --json --id auth-uses-jwt)",
        _log_arguments),
}
