"""Other agents' memories from the command line: import-agent, sync-agent, namespaces; each
one call of engine/service/agents.py."""
from __future__ import annotations

from engine.cli.arguments import arg
from engine.cli.command import Call, Command, id_lists, listing, some_ids
from engine.cli.registry import file_arguments, network_file, notes


def cmd_import_agent(call: Call) -> int:
    from engine.service import agents

    a = call.args
    done = agents.import_agent(call.context, a.name, network_file(a), only_in=a.only_in)
    if call.emit(done):
        return 0
    r = done.report
    call.say(f"imported {r.beliefs} beliefs of {r.namespace} ({r.justifications} "
             f"justifications, {r.nogoods} nogoods) behind {r.namespace}:active: "
             f"{len(r.came_in)} came IN, {r.out} OUT")
    if r.came_in:
        call.say(f"  IN: {some_ids(r.came_in)}")
    id_lists(call, (("retractions kept (retracted in the file)", r.retractions_kept),
                    ("stale labels (stored IN, support not valid)", r.stale),
                    ("circular support (stored IN, now OUT)", r.circular_support),
                    ("undetermined (loops through outlists)", r.undetermined),
                    ("asserted in the file (held while the agent is active)", r.asserted_there),
                    ("ours taken OUT by the agent's nogoods", r.went_out),
                    ("left out (not IN in the file; --only-in)", r.left_out),
                    ("retracted by nogoods", r.retracted_by_nogood)), counted=True)
    notes(call, done.notes)
    return 0


def cmd_sync_agent(call: Call) -> int:
    from engine.agents.sync_agent import gone_reason
    from engine.service import agents

    a = call.args
    done = agents.sync_agent(call.context, a.name, network_file(a), dry_run=a.dry_run,
                             only_in=a.only_in)
    if call.emit(done):
        return 0
    r = done.report
    d = r.diff
    if d.is_empty():
        call.say(f"{r.namespace}: the file says nothing new; nothing to do")
        return 0
    verb = "would change (nothing written)" if r.dry_run else "synced"
    call.say(f"{r.namespace} {verb}: {len(d.added)} added, {len(d.changed)} changed, "
             f"{len(d.gone)} gone, {len(d.retracted)} retracted, {len(d.restored)} restored, "
             f"{len(d.nogoods_added)} nogoods added, {len(d.nogoods_changed)} changed, "
             f"{len(d.nogoods_removed)} removed")
    id_lists(call, (("+ added", d.added), ("~ changed", d.changed),
                    (f"- gone (retracted: {gone_reason(r.namespace)})", d.gone),
                    ("- retracted in the file", d.retracted),
                    ("+ held again in the file", d.restored),
                    ("nogoods added", d.nogoods_added),
                    ("nogoods changed (made anew)", d.nogoods_changed),
                    ("nogoods removed (gone from the file)", d.nogoods_removed)))
    c = r.change
    call.say(f"  labels: {len(c.went_in)} went IN, {len(c.went_out)} went OUT"
             + (f"; retracted by nogoods: {some_ids(c.retracted_by_nogood)}"
                if c.retracted_by_nogood else ""))
    notes(call, done.notes)
    return 0


def cmd_namespaces(call: Call) -> int:
    from engine.service import agents

    found = agents.namespaces(call.context)
    listing(call, found, found.found, empty="no namespaces (bring one in with `"
            + call.command("import-agent NAME FILE") + "`)",
            row=lambda r: (r.name, f"{r.in_count}/{r.beliefs}", "active" if r.active else "OUT",
                           r.file, (r.synced_at or r.imported_at)[:19]),
            headers=["namespace", "IN/total", "switch", "file", "last import/sync (UTC)"])
    return 0


IMPORT_ARGUMENTS = (
    arg("name", metavar="NAME", help="the namespace: ids become NAME:id"), file_arguments,
    arg("--only-in", action="store_true",
        help="only the beliefs the file holds IN (what they name of the rest stays an OUT "
             "forward reference)"))


COMMANDS: dict[str, Command] = {
    "import-agent": Command(
        cmd_import_agent, "bring in another agent's memory under NAME: (ids prefixed, "
        "behind the premise NAME:active)", "import-agent billing billing-network.json",
        IMPORT_ARGUMENTS),
    "sync-agent": Command(
        cmd_sync_agent, "bring an imported agent's namespace up to date with a newer "
        "file (--dry-run: the diff only)", "sync-agent billing billing-network.json "
        "--dry-run",
        (*IMPORT_ARGUMENTS, arg("--dry-run", action="store_true", help="print what would be "
                                "added, changed and retracted; write nothing"))),
    "namespaces": Command(
        cmd_namespaces, "the imported agents' namespaces: IN/total and whether each is "
        "active", "namespaces --json"),
}
