"""The commands of the network as a whole: init, reset, status, verify (and --repair),
what-if. Each one call of engine/service/, its answer rendered."""
from __future__ import annotations

from engine.cli.arguments import POINT_HELP, arg, as_of_flag, local_path, namespace_flag
from engine.cli.command import Call, Command, report_change, shorten, table
from engine.cli.keeping import replacement_flags, replacement_of


def cmd_init(call: Call) -> int:
    """Make the folder (or --root DIR) a memory's root (its .eem/ marker), then the memory's
    schema and root in its graph. With the memory named by EEM_MEMORY instead, that memory's
    schema, and --root recorded as its root; no marker is written."""
    from pathlib import Path

    from engine.service import network
    from engine.wiring.context import opened
    from engine.wiring.memories import Registry, eem_home, init_memory

    a, settings = call.args, call.settings
    assert settings is not None  # the command line's execute gives every call its settings
    folder = Path(a.root or call.context.folder or ".")
    made, root = init_memory(settings, folder, vars(a).get("memory"), a.root, uri=a.uri or "",
                             database=a.database, user=a.user, umask=call.context.umask)
    memory = made.memory
    for note in memory.notes:
        call.note(note)
    with opened(settings, memory, prog=call.context.prog, folder=folder,
                umask=call.context.umask, notice=call.note) as ctx:
        done = network.init(ctx, root)
    memory = Registry(eem_home(settings)).get(memory.name) or memory  # its ports, once started
    if call.emit(done):
        return 0
    how = {"made": "made", "adopted": "now rooted here", "there": "ready"}[made.how]
    call.say(f"memory '{memory.name}' {how}: {memory.address()}",
             "schema ready (constraints and indexes)")
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
    from engine.errors import InvalidInput
    from engine.service import network

    memory = call.memory
    if isinstance(memory, InvalidInput):
        raise memory
    what = (f"the memory '{memory.name}' ({memory.address()})" if memory is not None
            else "this memory")
    yes = call.args.yes or _confirmed(call, what)
    if not yes:
        raise InvalidInput(f"reset empties {what}: every belief, justification and nogood "
                           "(the change log stays); confirm with --yes", field="yes")
    done = network.reset(call.context, yes=True)
    if call.emit(done):
        return 0
    call.say("graph emptied")
    if done.rejected:
        call.say(f"pending proposals rejected (what they named is gone): "
                 f"{some_ids(list(done.rejected))}")
    return 0


def _confirmed(call: Call, what: str) -> bool:
    """Asked on a terminal: the person types y."""
    if not call.stdin.isatty():
        return False
    call.err.write(f"Empty {what}? Every belief, justification and nogood goes (the change "
                   "log stays). [y/N] ")
    call.err.flush()
    return next(iter(call.stdin), "").strip().lower() in ("y", "yes")


def cmd_status(call: Call) -> int:
    from engine.service import network

    a = call.args
    counted = network.status(call.context, a.as_of, a.namespace, a.all)
    if call.emit(counted):
        return 0
    s = counted.status
    within = f" in namespace {counted.namespace}" if counted.namespace else ""
    call.say(f"{s.beliefs} beliefs{within}: {s.in_} IN, {s.out} OUT ({s.undetermined} "
             "undetermined)",
             f"{s.premises} premises, {s.derived} derived, max depth {s.max_depth}, "
             f"{s.nogoods} nogoods" + (f", {s.challenged} challenged" if s.challenged else ""))
    if s.undetermined_ids:
        call.say("undetermined (loops through outlists): " + ", ".join(s.undetermined_ids))
    if counted.every is not None and counted.every:
        call.say("", table([(b.id, b.truth.value if b.truth else "-",
                             "-" if b.depth is None else b.depth,
                             "premise" if b.is_premise else "derived", shorten(b.text, 60))
                            for b in counted.every], ["id", "truth", "depth", "kind", "text"]))
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
        return report_change(call, superseded, first=f"if {superseded.new} superseded "
                             f"{superseded.old} (nothing written):")
    if args.new or args.text is not None:
        raise InvalidInput(f"NEW and --text go with what-if supersede, not {args.operation}",
                           field="operation")
    from engine.service import network

    return report_change(call, network.what_if(call.context, args.operation, args.id),
                         first=f"if {args.operation} {args.id} (nothing written):")


COMMANDS: dict[str, Command] = {
    "init": Command(
        cmd_init, "create the schema (constraints, indexes); --root DIR records the folder "
        "source paths are relative to", "init --root ~/src/myproject",
        (arg("--root", metavar="DIR", type=local_path,
             help="make DIR the memory's root instead of the current folder: a .eem/ there "
                  "names the memory, relative --source paths are read under it"),
         arg("--uri", metavar="URI",
             help="the memory lives on a shared server (a team's, Aura): its URI; the "
                  "password comes from NEO4J_PASSWORD, never from the .eem/ file"),
         arg("--database", default="neo4j", metavar="NAME",
             help="with --uri: the database of that server (default neo4j)"),
         arg("--user", default="neo4j", metavar="NAME",
             help="with --uri: the user (default neo4j)")), json=False),
    "reset": Command(cmd_reset, "delete every belief, justification and nogood", "reset --yes",
                     arg("--yes", action="store_true", help="confirm"), json=False),
    "status": Command(cmd_status, "counts of beliefs by label and kind (--namespace NS: of one "
                      "imported agent's; --all: each belief too)", "status --namespace bob --all",
                      (as_of_flag, namespace_flag,
                       arg("--all", action="store_true", help="list every belief counted as "
                           "well (id, truth, depth, kind, text)"))),
    "what-if": Command(cmd_what_if, "what a retract, assert or supersede would change (nothing"
                       " written); what-if rollback --to POINT",
                       "what-if retract auth-uses-jwt",
                       (arg("operation", choices=["retract", "assert", "supersede", "rollback"]),
                        arg("id", nargs="?", help="the belief (OLD for supersede)"),
                        arg("--to", metavar="POINT", help=f"rollback: {POINT_HELP}"),
                        arg("new", nargs="?", metavar="NEW",
                            help="supersede: an existing belief"),
                        replacement_flags)),
    "verify": Command(cmd_verify, "recompute every label from scratch and compare; --repair"
                      " writes the differences", "verify --repair",
                      arg("--repair", action="store_true", help="write the from-scratch labels "
                          "and depths where the graph differs")),
}
