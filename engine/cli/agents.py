"""The commands of `python -m engine` for other agents' memories: import-agent, sync-agent,
namespaces (engine/cli/tms.py's table takes these COMMANDS); the work is in
engine/agents/import_agent.py and engine/agents/sync_agent.py, the file formats in
engine/cli/registry.py."""
from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from engine.agents import import_agent as agents
from engine.agents import sync_agent as agent_sync
from engine.agents.namespace import check_name, prefix
from engine.cli import registry
from engine.cli.command import Command
from engine.cli.support import print_json, some_ids, table

T = TypeVar("T")


def cmd_import_agent(store: Any, args: argparse.Namespace) -> int:
    check_name(args.name)
    got = registry.read_network(args.file, args.format, args.nogoods)
    report = agents.import_agent(store, args.name, got.network, got.stored, file=args.file,
                                 only_in=args.only_in)
    if args.json:
        print_json({**report.as_dict(), "notes": got.notes})
        return 0
    print(f"imported {report.beliefs} beliefs of {report.namespace} ({report.justifications} "
          f"justifications, {report.nogoods} nogoods) behind {report.namespace}:active: "
          f"{len(report.came_in)} came IN, {report.out} OUT")
    if report.came_in:
        print(f"  IN: {some_ids(report.came_in)}")
    registry.print_import_lists(
        (("retractions kept (retracted in the file)", report.retractions_kept),
         ("stale labels (stored IN, support not valid)", report.stale),
         ("circular support (stored IN, now OUT)", report.circular_support),
         ("undetermined (loops through outlists)", report.undetermined),
         ("asserted in the file (held while the agent is active)", report.asserted_there),
         ("ours taken OUT by the agent's nogoods", report.went_out),
         ("left out (not IN in the file; --only-in)", report.left_out),
         ("retracted by nogoods", report.retracted_by_nogood)), got.notes)
    return 0


def cmd_sync_agent(store: Any, args: argparse.Namespace) -> int:
    check_name(args.name)
    got = registry.read_network(args.file, args.format, args.nogoods)
    report = agent_sync.sync_agent(store, args.name, got.network, got.stored, file=args.file,
                                   dry_run=args.dry_run, only_in=args.only_in)
    if args.json:
        print_json({**report.as_dict(), "notes": got.notes})
        return 0
    d = report.diff
    verb = "would change (nothing written)" if report.dry_run else "synced"
    if d.is_empty():
        print(f"{report.namespace}: the file says nothing new; nothing to do")
        return 0
    print(f"{report.namespace} {verb}: {len(d.added)} added, {len(d.changed)} changed, "
          f"{len(d.gone)} gone, {len(d.retracted)} retracted, {len(d.restored)} restored, "
          f"{len(d.nogoods_added)} nogoods added, {len(d.nogoods_changed)} changed, "
          f"{len(d.nogoods_removed)} removed")
    registry.print_id_lists(
        (("+ added", d.added), ("~ changed", d.changed),
         (f"- gone (retracted: {agent_sync.gone_reason(report.namespace)})", d.gone),
         ("- retracted in the file", d.retracted),
         ("+ held again in the file", d.restored),
         ("nogoods added", d.nogoods_added),
         ("nogoods changed (made anew)", d.nogoods_changed),
         ("nogoods removed (gone from the file)", d.nogoods_removed)))
    c = report.change
    print(f"  labels: {len(c.went_in)} went IN, {len(c.went_out)} went OUT"
          + (f"; retracted by nogoods: {some_ids(c.retracted_by_nogood)}"
             if c.retracted_by_nogood else ""))
    registry.print_notes(got.notes)
    return 0


def cmd_namespaces(store: Any, args: argparse.Namespace) -> int:
    found = agents.namespaces(store)
    if args.json:
        print_json([{"name": r.name, "in": r.in_count, "beliefs": r.beliefs,
                     "active": r.active, "file": r.file, "imported_at": r.imported_at,
                     "synced_at": r.synced_at} for r in found])
        return 0
    if not found:
        print("no namespaces (bring one in with `python -m engine import-agent NAME FILE`)")
        return 0
    print(table([(r.name, f"{r.in_count}/{r.beliefs}", "active" if r.active else "OUT",
                  r.file, (r.synced_at or r.imported_at)[:19]) for r in found],
                ["namespace", "IN/total", "switch", "file", "last import/sync (UTC)"]))
    return 0


def _file_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", metavar="NAME", help="the namespace: ids become NAME:id")
    registry.import_arguments(p)
    p.add_argument("--only-in", action="store_true",
                   help="only the beliefs the file holds IN (what they name of the rest "
                        "stays an OUT forward reference)")


def _sync_arguments(p: argparse.ArgumentParser) -> None:
    _file_arguments(p)
    p.add_argument("--dry-run", action="store_true",
                   help="print what would be added, changed and retracted; write nothing")


def namespace_flag(p: argparse.ArgumentParser) -> None:
    """`--namespace NAME` for list, search, compact and export."""
    p.add_argument("--namespace", metavar="NAME",
                   help="only the beliefs of this imported agent's namespace (NAME:...)")


def only_namespace(store: Any, name: str, items: Sequence[T], key: Callable[[T], str]
                   ) -> list[T]:
    """The items whose id (by `key`) is in the namespace; an unknown namespace is an error."""
    agents.check_namespace(store, name)
    ns = prefix(name)
    return [x for x in items if key(x).startswith(ns)]


COMMANDS: dict[str, Command] = {
    "import-agent": Command(
        cmd_import_agent, "bring in another agent's memory under NAME: (ids prefixed, "
        "behind the premise NAME:active)", "import-agent billing billing-network.json",
        _file_arguments),
    "sync-agent": Command(
        cmd_sync_agent, "bring an imported agent's namespace up to date with a newer "
        "file (--dry-run: the diff only)", "sync-agent billing billing-network.json "
        "--dry-run", _sync_arguments),
    "namespaces": Command(
        cmd_namespaces, "the imported agents' namespaces: IN/total and whether each is "
        "active", "namespaces --json"),
}
