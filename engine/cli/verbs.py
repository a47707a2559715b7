"""The network's verbs on the command line: `add`, `add-justification`, `retract`, `assert`,
`nogood`. Each calls one verb of engine/tms/ and reports what went IN and OUT. `propose`
(engine/cli/proposals.py) builds its parsers from these same argument functions."""
from __future__ import annotations

import argparse
from collections.abc import Sequence

from engine import tms
from engine.cli import sources
from engine.cli.command import (
    Command,
    id_argument,
    justification_flags,
    justifications_of,
    report_change,
)
from engine.errors import InvalidInput
from engine.sources.pinning import add_sourced
from engine.tms import fragility
from engine.tms.access import TAGS_KEY, parse_tags


def fragile_report(belief_id: str, justifications: Sequence) -> tuple[dict, list[str]]:
    """The justifications that hang on one belief, as report_change's `extra` and `notes`."""
    found = fragility.fragile(justifications)
    return ({"fragile": [f.as_dict() for f in found]} if found else {},
            [f.line(belief_id) for f in found])


def cmd_add(store, args) -> int:
    justifications = justifications_of(args)
    sourced = sources.sourced_of(args, store)  # the file read, hashed, the quote grounded
    tags = parse_tags(args.access_tags) if args.access_tags else ()
    metadata = {TAGS_KEY: list(tags)} if tags else None
    ident = args.id
    if args.namespace:
        if sourced is not None:
            raise InvalidInput("--namespace and --source do not go together", field="namespace")
        from engine.agents.adding import add_in_namespace

        ident, change = add_in_namespace(store, args.namespace, args.id, args.text,
                                         justifications, source_url=args.source_url or "",
                                         metadata=metadata)
    elif sourced is None:
        change = tms.add(store, ident, args.text, justifications,
                         source_url=args.source_url or "", metadata=metadata)
    else:
        change = add_sourced(store, ident, args.text, justifications, sourced[0],
                             source_url=args.source_url or "", metadata=metadata,
                             root=sourced[1])
    if not args.json and ident not in change.went_in:
        named = sorted({ref for j in justifications for ref in j.mentions()})
        missing = sorted(set(named) - set(tms.show_many(store, named)))
        print(f"{ident} is OUT: no valid justification yet"
              + (f" ({', '.join(missing)} not added yet: forward references)" if missing else ""))
    return report_change(change, args, *fragile_report(ident, justifications))


def cmd_add_justification(store, args) -> int:
    justifications = justifications_of(args)
    return report_change(tms.add_justification(store, args.id, justifications), args,
                         *fragile_report(args.id, justifications))


def cmd_retract(store, args) -> int:
    change, restore = tms.retract_with_restorations(store, args.id, args.reason or "")
    hinted = [r for r in restore.found if any(j.still_in for j in r.justifications)]
    notes = ["what would bring them back (antecedents still IN, and what each needs):"
             ] if hinted else []
    notes += [line for r in hinted for line in r.lines()]
    if restore.unexamined:
        notes.append(f"({restore.unexamined} more went OUT, not examined for what would "
                     "bring them back)")
    return report_change(change, args, {"restore": [r.as_dict() for r in restore.found],
                                        **({"restore_unexamined": restore.unexamined}
                                           if restore.unexamined else {})}, notes)


def cmd_assert(store, args) -> int:
    return report_change(tms.assert_belief(store, args.id), args)


def cmd_nogood(store, args) -> int:
    ident, change = tms.add_nogood_with_id(store, args.ids, args.name)
    if not args.json:
        print(f"nogood {ident}: {', '.join(dict.fromkeys(args.ids))} must not all be IN")
    return report_change(change, args, {"id": ident})


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id")
    p.add_argument("text")
    justification_flags(p)
    sources.add_source_arguments(p)  # --source PATH[:A-B], --quote, --root
    p.add_argument("--source-url", help="a URL for the source")
    p.add_argument("--access-tags", metavar="TAGS",
                   help="comma-separated access tags (who may see it), e.g. finance,hr")
    p.add_argument("--namespace", metavar="NAME",
                   help="add it inside an imported agent's namespace: id NAME:ID, behind the "
                        "switch NAME:active (name the agent's beliefs as NAME:x)")


def add_justification_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id")
    justification_flags(p)


def retract_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id")
    p.add_argument("--reason", help="why (kept on the belief)")


def nogood_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("ids", nargs="+", metavar="ID")
    p.add_argument("--name", help="the nogood's id (default: nogood- and the sorted member "
                                   "ids joined by -, with -2, -3 for a repeat)")


COMMANDS: dict[str, Command] = {
    "add": Command(cmd_add, "add a belief (a premise unless --sl/--cp/--unless)",
                   "add auth-uses-jwt 'The auth service validates JWTs' --source src/auth.py:"
                   "40-52 --quote 'jwt.decode(token'", add_arguments),
    "add-justification": Command(
        cmd_add_justification, "give a belief another justification",
        "add-justification auth-bottleneck --sl auth-uses-jwt,auth-sync-check",
        add_justification_arguments),
    "retract": Command(cmd_retract, "pin a belief OUT until it is asserted; says what would "
                       "restore the derived beliefs that went OUT",
                       "retract auth-uses-jwt --reason 'moved to sessions'", retract_arguments),
    "assert": Command(cmd_assert, "un-retract a belief, or hold a derived one as a fact",
                      "assert auth-uses-jwt", id_argument),
    "nogood": Command(cmd_nogood, "record beliefs that must not all be IN",
                      "nogood cache-is-coherent cache-serves-stale-reads", nogood_arguments),
}
