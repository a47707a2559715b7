"""Keeping a memory from the command line: supersede (and --undo), challenge, defend,
defeat, migrate-retractions, mark-duplicate, remove-justification, convert-to-premise,
set-metadata, unset-metadata, summarize: each one call of engine/service/keeping.py."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from engine.cli.arguments import ID, arg, each, local_path, one_of, whole
from engine.cli.command import Call, Command, report_change, some_ids, split_ids
from engine.defaults import DEFEAT_REASON_TYPES, DEFEATER_TYPES

if TYPE_CHECKING:
    from engine.memory.dialectic import Argued

def replacement_of(args: argparse.Namespace):
    """What replaces OLD, from NEW or --text/--id and --premise or --sl/--cp/--unless (none
    of those: OLD's own justifications)."""
    from engine.cli.verbs import justifications_of
    from engine.errors import InvalidInput
    from engine.service.keeping import Replacement

    given = args.sl or args.cp or args.unless
    if args.premise and given:
        raise InvalidInput("give --premise or --sl/--cp/--unless, not both", field="premise")
    found = () if args.premise else justifications_of(args) if given else None
    return Replacement(args.new, args.text, args.new_id, found, args.rewire)


def cmd_supersede(call: Call) -> int:
    from engine.errors import InvalidInput
    from engine.service import keeping

    args = call.args
    if args.undo:
        if args.new or args.text is not None or args.transitive:
            raise InvalidInput("--undo takes OLD only", field="undo")
        return report_change(call, keeping.undo_supersede(call.context, args.old))
    if args.yes and not args.transitive:
        raise InvalidInput("--yes goes with --transitive (which shows the what-if first)",
                           field="yes")
    done = keeping.supersede(call.context, args.old, replacement_of(args), args.reason or "",
                             transitive=args.transitive, yes=args.yes)
    if call.emit(done):
        return 0
    if not done.written:
        call.say("what-if (nothing written):")
    call.say(f"{done.old} superseded by {done.new}" + (" (created)" if done.created else "")
             + (f"; {done.rewired} dependent edge(s) rewired" if done.rewired else ""))
    if args.transitive:
        call.say(f"  older versions gated by {done.new} too: "
                 f"{some_ids(list(done.chain)) or 'none'}",
                 f"  moved to rest on {done.new}: {some_ids(list(done.carried)) or 'none'}")
        if done.not_carried:
            call.say(f"  left resting on what {done.new} replaces ({done.new} cannot carry "
                     f"them): {some_ids(list(done.not_carried))}")
    report_change(call, done)
    if not done.written:
        call.say("the same command with --yes writes it")
    return 0


def _argued(call: Call, done: Argued, verb: str) -> int:
    return report_change(call, done, first=f"{done.id} {verb} {done.target}")


def cmd_challenge(call: Call) -> int:
    from engine.service import keeping

    a = call.args
    return _argued(call, keeping.challenge(call.context, a.id, a.reason or "", a.justification,
                                           a.challenge_id), "challenges")


def cmd_defend(call: Call) -> int:
    from engine.service import keeping

    return _argued(call, keeping.defend(call.context, call.args.id, call.args.reason or ""),
                   "defends")


def cmd_defeat(call: Call) -> int:
    from engine.service import keeping

    a = call.args
    findings = keeping.scope_file(a.scope_file)
    scoped, file_reason = keeping.scopes(a.scope or (), findings, a.id)
    done = keeping.defeat(call.context, a.id, a.justification, a.type, a.reason or file_reason,
                          a.defeater_id, scoped,
                          a.reason_type or keeping.reason_type_of(findings))
    kinds = f"{done.type}, {done.reason_type}" if done.reason_type else done.type
    return report_change(call, done, first=f"{done.id} defeats justification "
                         f"{done.justification} of {done.target} ({kinds})"
                         + (f", derived from {', '.join(done.scopes)}" if done.scopes else ""))


def cmd_migrate_retractions(call: Call) -> int:
    from engine.service import keeping

    done = keeping.migrate_retractions(call.context, call.args.ids, dry_run=call.args.dry_run)
    if call.emit(done):
        return 0
    if done.dry_run:
        call.say("dry run: nothing written")
    for m in done.migrated:
        for n, did in m.defeaters:
            call.say(f"{m.id}: justification {n} defeated by {did}: {m.reason}")
    for bid, why in done.skipped:
        call.say(f"{bid}: left retracted ({why})")
    if not done.migrated and not done.skipped:
        call.say("no retracted belief to migrate")
    return report_change(call, done)


def cmd_mark_duplicate(call: Call) -> int:
    from engine.service import keeping

    a = call.args
    return report_change(call, keeping.mark_duplicate(call.context, a.id, a.canonical),
                         first=f"{a.id} marked a duplicate of {a.canonical} (retracted)")


def cmd_remove_justification(call: Call) -> int:
    from engine.service import keeping

    return report_change(call, keeping.remove_justification(call.context, call.args.id,
                                                            call.args.n))


def cmd_convert_to_premise(call: Call) -> int:
    from engine.service import keeping

    return report_change(call, keeping.convert_to_premise(call.context, call.args.id))


def cmd_set_metadata(call: Call) -> int:
    from engine.memory.editing import parse_value
    from engine.service import keeping

    a = call.args
    return report_change(call, keeping.set_metadata(call.context, a.id, a.key,
                                                    parse_value(a.value)))


def cmd_unset_metadata(call: Call) -> int:
    from engine.service import keeping

    return report_change(call, keeping.unset_metadata(call.context, call.args.id, call.args.key))


def cmd_summarize(call: Call) -> int:
    from engine.service import keeping

    a = call.args
    return report_change(call, keeping.summarize(call.context, a.id, a.text, split_ids(a.over)))


# --- arguments -------------------------------------------------------------------------
# What replaces OLD in `supersede`, `what-if supersede` and `propose supersede`.
replacement_flags = each(
    arg("--text", help="reword: create NEW with this text"),
    arg("--id", dest="new_id", help="with --text: NEW's id (default OLD-v2, -v3...)"),
    arg("--sl", metavar="A,B", help="with --text: NEW's antecedents instead of OLD's"),
    arg("--cp", metavar="A,B", help="with --text: as --sl, kept as CP"),
    arg("--unless", metavar="X,Y", help="with --text: NEW's outlist"),
    arg("--any", action="store_true", help="one justification per antecedent"),
    arg("--label", help="a label for NEW's justification"),
    arg("--premise", action="store_true", help="with --text: NEW is a premise"),
    one_of(arg("--rewire", dest="rewire", action="store_true", default=None,
               help="move OLD's dependents to NEW (the default with --text)"),
           arg("--no-rewire", dest="rewire", action="store_false",
               help="leave OLD's dependents on OLD")))
ID_KEY = (ID, arg("key"))


COMMANDS: dict[str, Command] = {
    "supersede": Command(
        cmd_supersede, "replace OLD by NEW, or reword OLD (--text); --undo",
        "supersede auth-uses-jwt --text 'The auth service validates JWTs and sessions'",
        (arg("old", metavar="OLD"),
         arg("new", metavar="NEW", nargs="?", help="an existing belief that replaces OLD"),
         replacement_flags,
         arg("--reason", help="why (kept in the change log and on the link)"),
         arg("--undo", action="store_true",
             help="restore the graph as it was before OLD was superseded"),
         arg("--transitive", action="store_true",
             help="also gate the older versions OLD supersedes by NEW, and move what rests on "
                  "OLD (or on them) to NEW where NEW can carry it (NEW is IN and does not rest "
                  "on it); shows the what-if, writes with --yes"),
         arg("--yes", action="store_true", help="with --transitive: write it"))),
    "challenge": Command(
        cmd_challenge, "challenge a belief: a premise in its outlists",
        "challenge auth-bottleneck --reason 'the benchmark ran without the cache'",
        (ID, arg("--reason", required=True, help="the objection: the challenge's text"),
         arg("--justification", type=whole, metavar="N",
             help="challenge justification N only (1-based; default: all)"),
         arg("--id", dest="challenge_id", metavar="CHALLENGE_ID",
             help="the challenge's id (default: challenge:ID, then challenge:ID:2, ...)"))),
    "defend": Command(
        cmd_defend, "answer a challenge or a review defeater",
        "defend challenge:auth-bottleneck --reason 'rerun with the cache: same result'",
        (arg("id", metavar="CHALLENGE",
             help="a challenge, a review defeater (review:<belief>:j<n>) or a defence"),
         arg("--reason", required=True, help="the answer: the defence's text"))),
    "defeat": Command(
        cmd_defeat, "defeat one justification of a belief: a typed defeater in "
        "its outlist (undo: defend the defeater)",
        "defeat auth-bottleneck --justification 1 --type over-generalizes --reason "
        "'one slow endpoint is not the whole service'",
        (arg("id", help="the belief whose justification is defeated"),
         arg("--justification", type=whole, metavar="N", required=True,
             help="which justification (1-based, as show lists them)"),
         arg("--type", choices=DEFEATER_TYPES, default=DEFEATER_TYPES[0],
             help=f"what is wrong with it (default {DEFEATER_TYPES[0]})"),
         arg("--reason-type", choices=DEFEAT_REASON_TYPES, metavar="REASON_TYPE",
             help="what logically fails in it: " + ", ".join(DEFEAT_REASON_TYPES)
                  + " (kept in the defeater's metadata, shown by show; a scope file's "
                  "defeat_reason_type when not given)"),
         arg("--reason", help="why: the defeater's text (required unless a scope file says "
                              "what property is missing)"),
         arg("--id", dest="defeater_id", metavar="DEFEATER_ID",
             help="the defeater's id (default: defeat:ID:jN, then defeat:ID:jN:2, ...)"),
         arg("--scope", action="append", metavar="ANTECEDENT=TEXT",
             help="what an antecedent of the justification does and does not establish "
                  "(repeat per antecedent): each a premise, the defeater derived from them, "
                  "so challenging one restores the justification"),
         arg("--scope-file", metavar="FILE", type=local_path,
             help="scopes from a JSON file as ftl-reasons' defeat-with-scope reads it "
                  "(scope_findings: antecedent, establishes, does_not_establish; "
                  "missing_property)"))),
    "migrate-retractions": Command(
        cmd_migrate_retractions, "turn retractions kept only as a reason, whose "
        "support holds, into defeated justifications", "migrate-retractions --dry-run",
        (arg("ids", nargs="*", metavar="ID",
             help="only these beliefs (default: every retracted belief)"),
         arg("--dry-run", action="store_true",
             help="say what would be migrated; nothing is written"))),
    "mark-duplicate": Command(
        cmd_mark_duplicate, "retract DUP as a duplicate of CANONICAL (dedup's "
        "merge also moves dependents)", "mark-duplicate auth-jwt-check auth-uses-jwt",
        (arg("id", metavar="DUP", help="the duplicate: retracted"),
         arg("canonical", metavar="CANONICAL", help="the belief it duplicates"))),
    "remove-justification": Command(
        cmd_remove_justification, "drop one justification (never the last)",
        "remove-justification auth-bottleneck 2",
        (ID, arg("n", type=whole, metavar="N", help="the justification (1-based, as show "
                                                    "lists)"))),
    "convert-to-premise": Command(
        cmd_convert_to_premise, "strip a belief's justifications: a premise",
        "convert-to-premise auth-bottleneck", ID),
    "set-metadata": Command(
        cmd_set_metadata, "set one metadata key (JSON values allowed)",
        "set-metadata auth-uses-jwt beliefs_type observation",
        (*ID_KEY, arg("value", help="a JSON value (42, true, [\"a\"]) or plain text"))),
    "unset-metadata": Command(
        cmd_unset_metadata, "remove one metadata key",
        "unset-metadata auth-uses-jwt beliefs_type", ID_KEY),
    "summarize": Command(
        cmd_summarize, "add a summary belief that stands for a group while it is IN",
        "summarize auth-summary 'Auth validates JWTs synchronously' "
        "--over auth-uses-jwt,auth-sync-check",
        (ID, arg("text"), arg("--over", required=True, metavar="A,B,C",
                              help="the beliefs it stands for (an ALL justification over "
                                   "them)"))),
}
