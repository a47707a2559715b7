"""Whole networks in and out from the command line: import (and --sync) and export, each one
call of engine/service/registry.py."""
from __future__ import annotations

import argparse
from collections.abc import Sequence

from engine.cli.arguments import arg, as_of_flag, each, local_path, namespace_flag, one_of
from engine.cli.arguments import visible_to_flag
from engine.cli.command import Call, Command, id_lists
from engine.defaults import IMPORT_PART_SIZE

FORMATS = ("json", "markdown")


def network_file(args: argparse.Namespace):
    """The file an import or an agent's import reads, as the service takes it."""
    from engine.service.registry import NetworkFile

    return NetworkFile(args.file, args.format, args.nogoods)


def notes(call: Call, given: Sequence[str]) -> None:
    call.say(*(f"  note: {note}" for note in given))


def cmd_import(call: Call) -> int:
    from engine.errors import InvalidInput
    from engine.service import registry

    a = call.args
    if a.dry_run and not a.sync:
        raise InvalidInput("--dry-run goes with --sync", field="dry_run")
    if a.sync:
        if a.parts:
            raise InvalidInput("--parts goes with a plain import, not --sync", field="parts")
        return _sync(call)
    done = registry.import_file(
        call.context, network_file(a), parts=True if a.parts else None, part_size=a.part_size,
        progress=lambda written, planned: call.note(
            f"import: part {written} of {planned} written"))
    keep_embeddings(call)
    if call.emit(done):
        return 0
    r = done.report
    call.say(f"imported {r.beliefs} beliefs, {r.justifications} justifications, "
             f"{r.nogoods} nogoods: {r.labels_in} IN, {r.labels_out} OUT"
             + (f" (in {r.parts} part{'s' if r.parts > 1 else ''})" if r.parts else ""))
    id_lists(call, (("retractions kept (stored OUT, support valid)", r.retractions_kept),
                    ("circular support (stored IN, now OUT)", r.circular_support),
                    ("stale labels (stored IN, support not valid)", r.stale),
                    ("undetermined (loops through outlists)", r.undetermined),
                    ("beliefs naming themselves", r.self_listed),
                    ("retracted by nogoods", r.retracted_by_nogood)), counted=True)
    notes(call, done.notes)
    return 0


def keep_embeddings(call: Call) -> None:
    """After an import's write: the embeddings computed (--embed, or by default when the
    memory keeps them) with a bar on stderr; else a line there saying how many beliefs have
    none and what computes them."""
    from engine.cli.meaning import ProgressBar
    from engine.service.meaning import after_import

    kept = after_import(call.context, call.args.embed, ProgressBar(call.err))
    if kept.missing and kept.backlog is not None:
        call.note(f"{kept.missing} of {kept.backlog.total} beliefs have no embedding yet "
                  f"(search and ask --semantic rank by them): "
                  f"`{call.context.command('embed')}` computes them, as `import --embed` does")


def _sync(call: Call) -> int:
    from engine.service import registry

    done = registry.sync_file(call.context, network_file(call.args), dry_run=call.args.dry_run)
    if not call.args.dry_run:
        keep_embeddings(call)
    if call.emit(done):
        return 0
    plan = done.report.plan
    if plan.is_empty():
        call.say(f"{done.file}: the graph already says what the file says; nothing to do")
        return 0
    verb = "would apply (nothing written)" if done.report.dry_run else "synced"
    call.say(f"{done.file} {verb}:")
    id_lists(call, (("+ added", plan.added), ("~ reworded (in place)", list(plan.reworded)),
                    ("~ fields", [i for i in plan.fields if i not in plan.reworded]),
                    ("~ metadata", plan.metadata), ("~ justifications", plan.justifications),
                    ("- retracted", plan.retracted), ("+ restored", plan.restored),
                    ("+ asserted", plan.asserted), ("- unasserted", plan.unasserted),
                    ("- removed", plan.removed), ("+ nogoods added", plan.nogoods_added),
                    ("~ nogoods changed", plan.nogoods_changed),
                    ("- nogoods removed", plan.nogoods_removed)), shown=", ".join)
    c = done.report.change
    call.say(f"  labels: {len(c.went_in)} went IN, {len(c.went_out)} went OUT"
             + (f" (OUT: {', '.join(c.went_out[:20])})" if c.went_out else ""))
    notes(call, done.notes)
    return 0


def cmd_export(call: Call) -> int:
    from engine.cli.reading import seen
    from engine.service import registry

    a = call.args
    done = registry.export(seen(call), registry.ExportOptions(
        output=a.output, format=a.format, split=a.split, namespace=a.namespace,
        as_of=a.as_of), call.out)
    if a.split:
        call.note(f"wrote {len(done.written)} files to {a.split} ({done.beliefs} beliefs)")
    for path in ([] if a.split else done.written):
        call.note(f"wrote {path}")
    return 0


# The network file an import reads (import, import-agent, sync-agent).
file_arguments = each(
    arg("file", type=local_path,
        help="network.json, beliefs.md (ours, or the one ftl-reasons and reasonsforge write), "
             "or a split registry's directory"),
    arg("--format", choices=FORMATS, help="default: by the file (a directory or .md is markdown)"),
    arg("--nogoods", metavar="FILE", type=local_path,
        help="the nogoods.md of an ftl-reasons / reasonsforge beliefs.md (default: the "
             "nogoods.md beside it, when there is one)"))


COMMANDS: dict[str, Command] = {
    "import": Command(
        cmd_import, "load a network.json (ftl-reasons / reasonsforge format) or a markdown "
        "registry; --sync applies an edited one as logged writes",
        "import beliefs.md --sync --dry-run",
        (file_arguments,
         arg("--sync", action="store_true",
             help="apply the file's differences from the graph (adds, rewords in place, "
                  "justifications, retractions, removals of beliefs nothing rests on, nogoods "
                  "added, changed and removed) as logged writes in one transaction, keeping "
                  "the history"),
         arg("--dry-run", action="store_true",
             help="with --sync: print the plan and the labels it would change; write nothing"),
         one_of(arg("--embed", action="store_true", default=None,
                    help="then compute the embeddings the beliefs lack, in batches (the "
                         "default when the memory keeps embeddings: `embed` ran before)"),
                arg("--no-embed", dest="embed", action="store_false",
                    help="compute no embedding, even when the memory keeps them")),
         arg("--parts", action="store_true",
             help="import in parts, one transaction each, into an empty memory (the default "
                  "for a file of more than --part-size beliefs when the memory is empty); if "
                  "it stops, writers are refused until `reset --yes`"),
         arg("--part-size", type=int, default=IMPORT_PART_SIZE, metavar="N",
             help=f"beliefs a part (default {IMPORT_PART_SIZE}); a file of no more is one "
                  "transaction"))),
    "export": Command(
        cmd_export, "write the network as network.json or a markdown registry",
        "export --format markdown -o beliefs.md",
        (arg("-o", "--output", type=local_path,
             help="file to write (default: stdout); .md: markdown"),
         arg("--format", choices=FORMATS,
             help="json (network.json) or markdown (the registry); default: by the file's "
                  "extension, json on stdout"),
         arg("--split", metavar="DIR", type=local_path,
             help="the markdown registry as DIR/index.md and one file per id prefix"),
         namespace_flag, visible_to_flag, as_of_flag), json=False),
}
