"""The network's verbs on the command line: `add`, `add-justification`, `retract`, `assert`,
`nogood`, each one call of engine/service/network.py, its answer rendered. `propose`
(proposals.py) builds its parsers from these same argument functions."""
from __future__ import annotations

import argparse

from engine.cli.arguments import ID, arg, justification_flags, local_path
from engine.cli.command import Call, Command, report_change, split_ids


def justifications_of(args: argparse.Namespace) -> tuple:
    """The justification(s) --sl/--cp/--unless/--any/--label describe (none: a premise)."""
    from engine.errors import InvalidInput
    from engine.service.network import justifications

    if args.sl and args.cp:
        raise InvalidInput("give --sl or --cp, not both", field="justification")
    return justifications(split_ids(args.sl or args.cp), unless=split_ids(args.unless),
                          kind="CP" if args.cp else "SL", any_mode=args.any,
                          label=args.label or "")


def fragile_notes(added) -> list[str]:
    return [f.line(added.id) for f in added.fragile]


def new_belief(args: argparse.Namespace):
    """`add`'s options (and `propose add`'s) as the service takes them."""
    from engine.service.network import NewBelief

    return NewBelief(args.id, args.text, justifications_of(args), source=args.source or "",
                     quote=args.quote, root=args.root, source_url=args.source_url or "",
                     access_tags=args.access_tags or (), namespace=args.namespace)


def cmd_add(call: Call) -> int:
    from engine.service import network

    added = network.add(call.context, new_belief(call.args))
    if not call.as_json and not added.is_in:
        call.say(f"{added.id} is OUT: no valid justification yet"
                 + (f" ({', '.join(added.not_added)} not added yet: forward references)"
                    if added.not_added else ""))
    return report_change(call, added, fragile_notes(added))


def cmd_add_justification(call: Call) -> int:
    from engine.service import network

    added = network.add_justification(call.context, call.args.id, justifications_of(call.args))
    return report_change(call, added, fragile_notes(added))


def cmd_retract(call: Call) -> int:
    from engine.service import network

    done = network.retract(call.context, call.args.id, call.args.reason or "")
    restore = done.restorations
    hinted = [r for r in restore.found if any(j.still_in for j in r.justifications)]
    notes = ["what would bring them back (antecedents still IN, and what each needs):"
             ] if hinted else []
    notes += [line for r in hinted for line in r.lines()]
    if restore.unexamined:
        notes.append(f"({restore.unexamined} more went OUT, not examined for what would "
                     "bring them back)")
    return report_change(call, done, notes)


def cmd_assert(call: Call) -> int:
    from engine.service import network

    return report_change(call, network.assert_belief(call.context, call.args.id))


def cmd_nogood(call: Call) -> int:
    from engine.service import network

    done = network.nogood(call.context, call.args.ids, call.args.name)
    return report_change(call, done,
                         first=f"nogood {done.id}: {', '.join(done.members)} must not all be IN")


add_arguments = (
    ID, arg("text"), justification_flags,
    arg("--source", metavar="PATH[:A-B]",
        help="the file the belief was observed in (lines A-B), relative to the memory's root: "
             "read and hashed now, so `sources stale` sees when its lines change"),
    arg("--quote", metavar="TEXT",
        help="words of the source that state the belief; refused unless they occur in those "
             "lines (then the pin is the quote's own lines)"),
    arg("--root", metavar="DIR", type=local_path,
        help="the folder source paths are relative to (default: the root the memory "
             "recorded, else the current folder, recorded then)"),
    arg("--source-url", help="a URL for the source"),
    arg("--access-tags", metavar="TAGS",
        help="comma-separated access tags (who may see it), e.g. finance,hr"),
    arg("--namespace", metavar="NAME",
        help="add it inside an imported agent's namespace: id NAME:ID, behind the switch "
             "NAME:active (name the agent's beliefs as NAME:x)"))


COMMANDS: dict[str, Command] = {
    "add": Command(cmd_add, "add a belief (a premise unless --sl/--cp/--unless)",
                   "add auth-uses-jwt 'The auth service validates JWTs' --source src/auth.py:"
                   "40-52 --quote 'jwt.decode(token'", add_arguments),
    "add-justification": Command(
        cmd_add_justification, "give a belief another justification",
        "add-justification auth-bottleneck --sl auth-uses-jwt,auth-sync-check",
        (ID, justification_flags)),
    "retract": Command(cmd_retract, "pin a belief OUT until it is asserted; says what would "
                       "restore the derived beliefs that went OUT",
                       "retract auth-uses-jwt --reason 'moved to sessions'",
                       (ID, arg("--reason", help="why (kept on the belief)"))),
    "assert": Command(cmd_assert, "un-retract a belief, or hold a derived one as a fact",
                      "assert auth-uses-jwt", ID),
    "nogood": Command(cmd_nogood, "record beliefs that must not all be IN",
                      "nogood cache-is-coherent cache-serves-stale-reads",
                      (arg("ids", nargs="+", metavar="ID"),
                       arg("--name", help="the nogood's id (default: nogood- and the sorted "
                                          "member ids joined by -, with -2, -3 for a repeat)"))),
}
