"""The commands of the network as a whole: init, reset, status, verify (and --repair),
what-if. Each one call of engine/service/, its answer rendered."""
from __future__ import annotations

import argparse

from engine.cli.arguments import POINT_HELP, as_of_flag, local_path
from engine.cli.command import Call, Command, report_change, table
from engine.cli.keeping import replacement_flags, replacement_of


def cmd_init(call: Call) -> int:
    from engine.service import network

    done = network.init(call.context, call.args.root)
    if call.emit(done):
        return 0
    call.say("schema ready (constraints and indexes)")
    if done.root is not None:
        was = done.root.was
        call.say(f"root: {done.root.root}" + (" (unchanged)" if was is None else
                                                f" (was {was})" if was else ""))
    upgraded = done.upgraded
    if upgraded.get("migrate_derive_runs") or upgraded.get("migrate_derive_rounds"):
        call.say(f"upgraded {upgraded.get('migrate_derive_runs', 0)} DeriveRun and "
                 f"{upgraded.get('migrate_derive_rounds', 0)} DeriveRound nodes to Run / Round")
    if upgraded.get("belief_text_stemming"):
        call.say("rebuilt the belief_text full-text index with stemming (search: "
                 "'deactivation' finds 'auto-deactivated')")
    return 0


def cmd_reset(call: Call) -> int:
    from engine.cli.command import some_ids
    from engine.service import network

    done = network.reset(call.context, yes=call.args.yes)
    if call.emit(done):
        return 0
    call.say("graph emptied")
    if done.rejected:
        call.say(f"pending proposals rejected (what they named is gone): "
                 f"{some_ids(list(done.rejected))}")
    return 0


def cmd_status(call: Call) -> int:
    from engine.service import network

    counted = network.status(call.context, call.args.as_of)
    if call.emit(counted):
        return 0
    s = counted.status
    call.say(f"{s.beliefs} beliefs: {s.in_} IN, {s.out} OUT ({s.undetermined} undetermined)",
             f"{s.premises} premises, {s.derived} derived, max depth {s.max_depth}, "
             f"{s.nogoods} nogoods" + (f", {s.challenged} challenged" if s.challenged else ""))
    if s.undetermined_ids:
        call.say("undetermined (loops through outlists): " + ", ".join(s.undetermined_ids))
    return 0


def cmd_verify(call: Call) -> int:
    from engine.service import network

    if call.args.repair:
        done = network.repair(call.context)
        if call.emit(done):
            return 0
        if not done.repaired:
            call.say("ok: nothing to repair; every label and depth equals the from-scratch "
                     "computation")
            return 0
        call.say(table([(p.id, p.stored, p.computed) for p in done.repaired],
                       ["belief", "was", "now (from scratch)"]),
                 f"repaired {len(done.repaired)} beliefs in one transaction",
                 *(f"retracted by nogood: {bid}" for bid in done.change.retracted_by_nogood))
        return 0
    found = network.verify(call.context)
    if not call.emit(found):
        if found.problems:
            call.say(table([(p.id, p.stored, p.computed) for p in found.problems],
                           ["belief", "stored", "computed from scratch"]))
        else:
            call.say(f"ok: all {found.beliefs} labels and depths equal the from-scratch "
                     "computation")
        if found.undetermined:
            call.say("undetermined (loops through outlists): " + ", ".join(found.undetermined))
    return 0 if found.ok else 1


def cmd_what_if(call: Call) -> int:
    from engine.errors import InvalidInput

    args = call.args
    if args.operation == "rollback":
        if args.id or args.new or args.text is not None:
            raise InvalidInput("what-if rollback takes --to POINT only", field="operation")
        from engine.cli.history import render_restored
        from engine.service import history

        if not args.to:
            raise InvalidInput("what-if rollback needs --to POINT", field="to")
        done = history.rollback(call.context, args.to, dry_run=True)
        return render_restored(call, done, f"if rolled back to seq {done.to} (nothing written)")
    if args.to:
        raise InvalidInput("--to goes with what-if rollback", field="to")
    if not args.id:
        raise InvalidInput(f"what-if {args.operation} needs a belief id", field="id")
    if args.operation == "supersede":
        from engine.service import keeping

        superseded = keeping.what_if_supersede(call.context, args.id, replacement_of(args))
        if not call.as_json:
            call.say(f"if {superseded.new} superseded {superseded.old} (nothing written):")
        return report_change(call, superseded, superseded.change)
    if args.new or args.text is not None:
        raise InvalidInput(f"NEW and --text go with what-if supersede, not {args.operation}",
                           field="operation")
    from engine.service import network

    would = network.what_if(call.context, args.operation, args.id)
    if not call.as_json:
        call.say(f"if {args.operation} {args.id} (nothing written):")
    return report_change(call, would, would.change)


def _init_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--root", metavar="DIR", type=local_path,
                   help="record DIR as the memory's root (or move it there): relative "
                        "--source paths and `sources` read files under it from any folder")


def _reset_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--yes", action="store_true", help="confirm")


def _verify_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--repair", action="store_true",
                   help="write the from-scratch labels and depths where the graph differs")


def _what_if_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("operation", choices=["retract", "assert", "supersede", "rollback"])
    p.add_argument("id", nargs="?", help="the belief (OLD for supersede)")
    p.add_argument("--to", metavar="POINT", help=f"rollback: {POINT_HELP}")
    p.add_argument("new", nargs="?", metavar="NEW", help="supersede: an existing belief")
    replacement_flags(p)


COMMANDS: dict[str, Command] = {
    "init": Command(cmd_init, "create the schema (constraints, indexes); --root DIR records the"
                    " folder source paths are relative to", "init --root ~/src/myproject",
                    _init_arguments, json=False),
    "reset": Command(cmd_reset, "delete every belief, justification and nogood", "reset --yes",
                     _reset_arguments, json=False),
    "status": Command(cmd_status, "counts of beliefs by label and kind", "status --json",
                      as_of_flag),
    "what-if": Command(cmd_what_if, "what a retract, assert or supersede would change (nothing"
                       " written); what-if rollback --to POINT",
                       "what-if retract auth-uses-jwt", _what_if_arguments),
    "verify": Command(cmd_verify, "recompute every label from scratch and compare; --repair"
                      " writes the differences", "verify --repair", _verify_arguments),
}
