"""`python -m engine ...`: the command table, its parser and `main`; and the commands of the
network as a whole (init, reset, status, list, show, explain, trace, what-if, verify, import,
export, query, search, batch, viz, serve), a thin skin over engine.tms.

Each command opens the store, calls one library function, and renders the result (text, or
JSON with --json). Mutating commands report {"went_in": [...], "went_out": [...]}. The other
groups declare their own `COMMANDS` (engine/cli/command.py says what a Command is); the
table below puts them in the order `--help` lists them.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from engine import interchange, results, tms
from engine.cli import agents as agent_commands
from engine.cli import history as going_back
from engine.cli import memory, proposals, reading, registry, sources, verbs
from engine.cli.command import PROG, Command, id_argument, report_change
from engine.cli.support import (
    BorrowedDriver,
    open_store,
    print_json,
    print_listing,
    run_guarded,
    shorten,
    some_ids,
    table,
)
from engine.cli.visible_to import seen_by, visible_to_flag
from engine.errors import InvalidInput
from engine.model import Belief, Truth
from engine.proposals import lifecycle as proposal_lifecycle
from engine.reading import queries, viz
from engine.reading import search as searching
from engine.tms import explain as explaining
from engine.tms.records import BeliefFilter

__all__ = ["COMMANDS", "PROG", "build_parser", "main"]


# --- handlers ------------------------------------------------------------------------
def cmd_init(store, args) -> int:
    if args.root:
        sources.root_folder(args.root)  # a bad --root writes nothing, not even the schema
    upgraded = tms.init(store)
    print("schema ready (constraints and indexes)")
    if args.root:
        print(sources.cmd_init_root(store, args.root))
    if upgraded.get("migrate_derive_runs") or upgraded.get("migrate_derive_rounds"):
        print(f"upgraded {upgraded.get('migrate_derive_runs', 0)} DeriveRun and "
              f"{upgraded.get('migrate_derive_rounds', 0)} DeriveRound nodes to Run / Round")
    if upgraded.get("belief_text_stemming"):
        print("rebuilt the belief_text full-text index with stemming (search: 'deactivation' "
              "finds 'auto-deactivated')")
    return 0


def cmd_reset(store, args) -> int:
    if not args.yes:
        raise InvalidInput("reset deletes every belief; confirm with --yes", field="yes")
    rejected = proposal_lifecycle.reset(store)
    print("graph emptied")
    if rejected:
        print(f"pending proposals rejected (what they named is gone): {some_ids(rejected)}")
    return 0


def cmd_status(store, args) -> int:
    s = tms.status(going_back.seen_as_of(store, args))
    if args.json:
        print_json(s.as_dict())
        return 0
    print(f"{s.beliefs} beliefs: {s.in_} IN, {s.out} OUT ({s.undetermined} undetermined)")
    print(f"{s.premises} premises, {s.derived} derived, max depth {s.max_depth}, "
          f"{s.nogoods} nogoods" + (f", {s.challenged} challenged" if s.challenged else ""))
    if s.undetermined_ids:
        print("undetermined (loops through outlists): " + ", ".join(s.undetermined_ids))
    return 0


def cmd_list(store, args) -> int:
    if args.negative and getattr(args, "as_of", None) is not None:
        raise InvalidInput("--negative reads the verdicts as they are now; it takes no --as-of",
                           field="as_of")
    store = going_back.seen_as_of(seen_by(store, args), args)
    truth = Truth.IN if args.in_ else Truth.OUT if args.out else None
    premises = True if args.premises else False if args.derived else None
    beliefs = tms.list_beliefs(store, BeliefFilter(
        truth=truth, premises=premises, challenged=args.challenged, superseded=args.superseded,
        min_depth=args.min_depth, max_depth=args.max_depth,
        has_dependents=args.has_dependents, sort=args.sort, label=args.label))
    if args.namespace:
        beliefs = agent_commands.only_namespace(store, args.namespace, beliefs,
                                                 lambda b: b.id)
    if args.negative:
        return _list_negative(store, beliefs, args)
    if args.sort == "impact":  # transitive dependents, counted in Cypher
        from engine.reading.impact import impacts

        impact = impacts(store, [b.id for b in beliefs])
        beliefs = sorted(beliefs, key=lambda b: (-impact.get(b.id, 0), b.id))
        if args.json:
            print_json([{**results.belief_row(b), "impact": impact.get(b.id, 0)}
                        for b in beliefs])
            return 0
        print(table([(b.id, b.truth.value if b.truth else "-",
                      b.depth if b.depth is not None else "-",
                      impact.get(b.id, 0), shorten(b.text, 60)) for b in beliefs],
                    ["id", "truth", "depth", "impact", "text"]))
        return 0
    if args.json:
        print_json([results.belief_row(b) for b in beliefs])
        return 0
    print(table([(b.id, b.truth.value if b.truth else "-", b.depth if b.depth is not None else "-",
                  shorten(b.text, 70)) for b in beliefs], ["id", "truth", "depth", "text"]))
    return 0


def _list_negative(store, beliefs: Sequence, args) -> int:
    """`list --negative`: those the negatives stage found to state a problem, with the kind."""
    from engine.negatives.due import negative_kinds

    kinds = negative_kinds(store)
    found = [b for b in beliefs if b.id in kinds]
    if args.json:
        print_json([{**results.belief_row(b), "negative": kinds[b.id]} for b in found])
        return 0
    if not found and not kinds:
        print("no belief is known to state a problem: classify them with "
              "python -m engine.negatives --model SPEC --auto")
        return 0
    print(table([(b.id, kinds[b.id], b.depth if b.depth is not None else "-",
                  shorten(b.text, 70)) for b in found], ["id", "problem", "depth", "text"]))
    return 0


def cmd_show(store, args) -> int:
    if args.history and args.visible_to is not None:
        raise InvalidInput("--history reads the change log, which --visible-to cannot filter",
                           field="visible_to")
    if args.history:
        if args.as_of is not None:
            raise InvalidInput("--history lists every change; it takes no --as-of",
                               field="as_of")
        return memory.print_history(store, args.id, args.json)
    from engine.reading.impact import impacts

    store = going_back.seen_as_of(store, args)
    seen = seen_by(store, args)
    b, dependents = tms.show(seen, args.id)
    impact = impacts(seen, [b.id]).get(b.id, 0)  # under --visible-to: visible beliefs only
    if args.visible_to is None:
        superseded_by, supersedes = tms.supersede_links(store, args.id)
    else:  # the links may name beliefs the client may not see: not shown
        superseded_by, supersedes = [], []
    if args.json:
        print_json({**results.belief_record(b, dependents), "impact": impact,
                    "superseded_by": superseded_by, "supersedes": supersedes})
        return 0
    depth = b.depth if b.depth is not None else "none (no finite derivation)"
    print(f"{b.id}  [{b.truth.value if b.truth else '-'}]  depth {depth}  impact {impact}")
    print(f"  {b.text}")
    for line in source_lines(b):
        print(f"  {line}")
    if b.retracted:
        print(f"  retracted{': ' + b.retract_reason if b.retract_reason else ''}")
    if b.asserted:
        print("  held as a user-asserted fact")
    for j in b.justifications:
        if j.gate:
            print(f"  premise, gated: OUT while {' or '.join(j.outlist)} is IN")
            continue
        line = f"  {j.kind.value}: {', '.join(j.antecedents) or '(no antecedents)'}"
        if j.outlist:
            line += f"  unless {', '.join(j.outlist)}"
        print(line + (f"  -- {j.label}" if j.label else ""))
    if dependents:
        print(f"  dependents: {', '.join(dependents)}")
    for new in superseded_by:
        print(f"  superseded by {new}")
    for old in supersedes:
        print(f"  supersedes {old}")
    return 0


def source_lines(b: Belief) -> list[str]:
    """Where a belief comes from: its file and lines, the quote pinned there, its URL."""
    found = []
    if b.source:
        span = b.metadata.get("lines")
        if isinstance(span, (list, tuple)) and len(span) == 2 and all(
                isinstance(n, int) for n in span):
            found.append(f"source: {b.source}:{span[0]}" + (f"-{span[1]}" if span[1] != span[0]
                                                             else ""))
        else:
            found.append(f"source: {b.source}")
    if isinstance(b.metadata.get("quote"), str) and b.metadata["quote"]:
        found.append(f"quote: \"{b.metadata['quote']}\"")
    if b.source_url:
        found.append(f"url: {b.source_url}")
    return found


def cmd_explain(store, args) -> int:
    store = going_back.seen_as_of(seen_by(store, args), args)
    step = explaining.explain(store, args.id)
    if args.json:
        print_json(step.as_dict())
    else:
        print("\n".join(explaining.render_explanation(step)))
    return 0


def cmd_trace(store, args) -> int:
    store = going_back.seen_as_of(seen_by(store, args), args)
    entries = explaining.trace(store, args.id)
    if args.json:
        print_json([e.__dict__ for e in entries])
        return 0
    print(table([(e.id, e.truth, e.kind) for e in entries], ["rests on", "truth", "kind"]))
    return 0


def cmd_trace_tags(store, args) -> int:
    store = going_back.seen_as_of(seen_by(store, args), args)
    found = explaining.trace_tags(store, args.id)
    if args.json:
        print_json(found)
        return 0
    print(f"{found['id']}: {', '.join(found['effective_tags']) or 'no access tags'}")
    rows = [(s["tag"], s["origin"], " -> ".join(s["via"])) for s in found["sources"]]
    if rows:
        print(table(rows, ["tag", "from", "through"]))
    return 0


def cmd_what_if(store, args) -> int:
    if args.operation == "rollback":
        if args.id or args.new or args.text is not None:
            raise InvalidInput("what-if rollback takes --to POINT only", field="operation")
        return going_back.what_if_rollback(store, args)
    if args.to:
        raise InvalidInput("--to goes with what-if rollback", field="to")
    if not args.id:
        raise InvalidInput(f"what-if {args.operation} needs a belief id", field="id")
    if args.operation == "supersede":
        return memory.what_if_supersede(store, args)
    if args.new or args.text is not None:
        raise InvalidInput(f"NEW and --text go with what-if supersede, not {args.operation}",
                           field="operation")
    change = tms.what_if(store, args.operation, args.id)
    if not args.json:
        print(f"if {args.operation} {args.id} (nothing written):")
    return report_change(change, args)


def cmd_verify(store, args) -> int:
    if args.repair:
        return _repair(store, args)
    problems = tms.verify(store)
    status = tms.status(store)
    if args.json:
        print_json(results.verify_record(problems, status.undetermined_ids))
    elif problems:
        print(table([(p.id, p.stored, p.computed) for p in problems],
                    ["belief", "stored", "computed from scratch"]))
    else:
        print(f"ok: all {status.beliefs} labels and depths equal the from-scratch computation")
    if not args.json and status.undetermined_ids:
        print("undetermined (loops through outlists): " + ", ".join(status.undetermined_ids))
    return 1 if problems else 0


def _repair(store, args) -> int:
    result = tms.repair(store)
    if args.json:
        print_json({"repaired": [p.__dict__ for p in result.repaired], **result.change.as_dict(),
                    "retracted_by_nogood": result.change.retracted_by_nogood})
        return 0
    if not result.repaired:
        print("ok: nothing to repair; every label and depth equals the from-scratch computation")
        return 0
    print(table([(p.id, p.stored, p.computed) for p in result.repaired],
                ["belief", "was", "now (from scratch)"]))
    print(f"repaired {len(result.repaired)} beliefs in one transaction")
    for bid in result.change.retracted_by_nogood:
        print(f"retracted by nogood: {bid}")
    return 0


def _verify_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--repair", action="store_true",
                   help="write the from-scratch labels and depths where the graph differs")


def cmd_import(store, args) -> int:
    if args.dry_run and not args.sync:
        raise InvalidInput("--dry-run goes with --sync", field="dry_run")
    if args.sync:
        if args.parts:
            raise InvalidInput("--parts goes with a plain import, not --sync", field="parts")
        return registry.cmd_import_sync(
            store, args, registry.read_network(args.file, args.format, args.nogoods))
    source, notes = registry.network_source(args.file, args.format, args.nogoods)
    report = interchange.import_source(
        store, source, parts=True if args.parts else None, part_size=args.part_size,
        file=args.file, progress=lambda done, parts: print(
            f"import: part {done} of {parts} written", file=sys.stderr, flush=True))
    if args.json:
        print_json({**report.as_dict(), "notes": notes})
        return 0
    print(f"imported {report.beliefs} beliefs, {report.justifications} justifications, "
          f"{report.nogoods} nogoods: {report.labels_in} IN, {report.labels_out} OUT"
          + (f" (in {report.parts} part{'s' if report.parts > 1 else ''})"
             if report.parts else ""))
    registry.print_import_lists(
        (("retractions kept (stored OUT, support valid)", report.retractions_kept),
         ("circular support (stored IN, now OUT)", report.circular_support),
         ("stale labels (stored IN, support not valid)", report.stale),
         ("undetermined (loops through outlists)", report.undetermined),
         ("beliefs naming themselves", report.self_listed),
         ("retracted by nogoods", report.retracted_by_nogood)), notes)
    return 0


def cmd_export(store, args) -> int:
    return registry.export(store, args)


def cmd_query(store, args) -> int:
    from adapters.query_pack import load_pack

    pack = load_pack()
    if args.list:
        if args.json:
            print_json(queries.pack_json(pack))
        else:
            print(table(queries.pack_rows(pack), ["query", "parameters (example)", "returns"]))
        return 0
    if args.favourites:
        from adapters.neo4j_browser import favourites_zip

        with open(args.favourites, "wb") as f:
            f.write(favourites_zip())
        print(f"wrote {args.favourites}: {len(pack)} queries; drop it on Neo4j Browser",
              file=sys.stderr)
        return 0
    query = queries.find_query(pack, args.name)
    result = queries.run_query(store, query, queries.parse_params(query, args.param or []))
    if args.json:
        print_json(queries.json_rows(result))
    elif result.rows:
        print(table(queries.text_rows(result), result.columns))
    else:
        print("(no rows)")
    return 0


def cmd_search(store, args) -> int:
    store = seen_by(store, args)
    searching.check_depth(args.depth)
    embedder = None
    if args.semantic:
        from adapters.embeddings import SentenceTransformerEmbedder

        embedder = SentenceTransformerEmbedder()
    if args.namespace:  # ranked over every match, then cut to the namespace's first hits
        hits = searching.search(store, args.words, limit=searching.MAX_LIMIT,
                                include_out=args.all, embedder=embedder)
        hits = agent_commands.only_namespace(store, args.namespace, hits,
                                              lambda h: h.belief.id)[:args.limit]
    else:
        hits = searching.search(store, args.words, limit=args.limit, include_out=args.all,
                                embedder=embedder)
    near = searching.neighbours(store, [h.belief.id for h in hits], args.depth, args.all)
    if args.namespace:
        near = agent_commands.only_namespace(store, args.namespace, near, lambda n: n.belief.id)
    if args.json:  # with --depth: the hits and their neighbours; without: the hits
        print_json({"hits": [h.as_dict() for h in hits],
                    "neighbours": [n.as_dict() for n in near]} if args.depth
                   else [h.as_dict() for h in hits])
        return 0
    _print_hits(hits, args, "id")
    if near:
        print(f"\nwithin {args.depth} justification step(s) of them:")
        _print_hits(near, args, "neighbour", [n.distance for n in near])
    return 0


def _print_hits(found: Sequence, args, first: str, steps: Sequence[int] = ()) -> None:
    rows: list[tuple] = [(h.belief.id, h.belief.truth.value,
                          h.belief.depth if h.belief.depth is not None else "-",
                          h.belief.dependents, shorten(h.belief.text, 60)) for h in found]
    if steps:
        rows = [(r[0], s, *r[1:]) for r, s in zip(rows, steps)]
    print_listing(rows, as_json=False, empty="no belief matches" + (
                      "" if args.all else " (IN beliefs only; --all for OUT)"),
                  row=lambda r: r, headers=[first, *(["steps"] if steps else []), "truth",
                                            "depth", "dependents", "text"])


def cmd_batch(store, args) -> int:
    from engine.cli.batch import run_batch

    return run_batch(store, args, build_parser(), COMMANDS)


def cmd_viz(store, args) -> int:
    from adapters.viz import render_html

    found = viz.neighbourhood(store, args.id, args.depth)
    path = viz.write_html(args.output, render_html(found))
    print(f"wrote {path}: {found.count('Belief')} beliefs, {found.count('Justification')} "
          f"justifications within {args.depth} steps of {args.id}", file=sys.stderr)
    return 0


def cmd_serve(store, args) -> int:
    from engine.cli.resident import control

    if args.action == "status":
        return control.status(getattr(args, "prog", PROG))
    return {"start": control.start, "stop": control.stop}[args.action]()


# --- the parser ----------------------------------------------------------------------
def _init_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--root", metavar="DIR",
                   help="record DIR as the memory's root (or move it there): relative "
                        "--source paths and `sources` read files under it from any folder")


def _reset_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--yes", action="store_true", help="confirm")


def _read_id(p: argparse.ArgumentParser) -> None:
    id_argument(p)
    visible_to_flag(p)
    going_back.as_of_flag(p)


def _status_arguments(p: argparse.ArgumentParser) -> None:
    going_back.as_of_flag(p)


def _list_arguments(p: argparse.ArgumentParser) -> None:
    visible_to_flag(p)
    going_back.as_of_flag(p)
    group = p.add_mutually_exclusive_group()
    group.add_argument("--in", dest="in_", action="store_true", help="IN beliefs only")
    group.add_argument("--out", action="store_true", help="OUT beliefs only")
    kind = p.add_mutually_exclusive_group()
    kind.add_argument("--premises", action="store_true", help="premises only")
    kind.add_argument("--derived", action="store_true", help="derived beliefs only")
    p.add_argument("--challenged", action="store_true", help="beliefs an open challenge gates")
    p.add_argument("--superseded", action="store_true", help="beliefs superseded by another")
    p.add_argument("--min-depth", type=memory.whole, metavar="N", help="depth at least N")
    p.add_argument("--max-depth", type=memory.whole, metavar="N", help="depth at most N")
    p.add_argument("--has-dependents", action="store_true",
                   help="beliefs some justification names")
    p.add_argument("--label", metavar="TEXT",
                   help="beliefs with a justification whose label contains TEXT (any case)")
    p.add_argument("--negative", action="store_true",
                   help="IN beliefs that state a problem (bug, risk, limitation, ...), as "
                        "python -m engine.negatives classified them, with the kind")
    p.add_argument("--sort", choices=["id", "depth", "impact", "updated"], default="id",
                   help="id (default), depth (deepest first), impact (transitive dependents, "
                        "most first), updated (newest first)")
    agent_commands.namespace_flag(p)


def _what_if_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("operation", choices=["retract", "assert", "supersede", "rollback"])
    p.add_argument("id", nargs="?", help="the belief (OLD for supersede)")
    p.add_argument("--to", metavar="POINT", help=f"rollback: {going_back.POINT_HELP}")
    p.add_argument("new", nargs="?", metavar="NEW", help="supersede: an existing belief")
    memory.replacement_flags(p)


def _show_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id")
    visible_to_flag(p)
    going_back.as_of_flag(p)
    p.add_argument("--history", action="store_true",
                   help="the change-log entries that touched the belief, oldest first")


def _query_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", nargs="?", help="the query (see --list)")
    p.add_argument("--param", action="append", metavar="KEY=VALUE",
                   help="a query parameter (repeat for each)")
    p.add_argument("--list", action="store_true", help="list the queries of the pack")
    p.add_argument("--favourites", metavar="FILE.zip",
                   help="write the pack as Neo4j Browser favourites (drop it on Browser)")


def _viz_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("id")
    p.add_argument("--depth", type=int, default=2,
                   help="justification steps up and down from the belief (default 2)")
    p.add_argument("-o", "--output", default="graph.html",
                   help="the HTML file to write (default graph.html)")


def _search_arguments(p: argparse.ArgumentParser) -> None:
    visible_to_flag(p)
    p.add_argument("words", nargs="+", metavar="WORD",
                   help="words to find in belief texts and ids (any of them; prefixes match)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--in", dest="in_", action="store_true",
                       help="IN beliefs only (the default)")
    which.add_argument("--all", action="store_true",
                       help="OUT beliefs too (retracted, unsupported, undetermined)")
    p.add_argument("--semantic", action="store_true",
                   help="rank by meaning as well: the vector index over the embeddings stored "
                        "on beliefs (derive --cluster stores them), fused with the text ranking")
    p.add_argument("--limit", type=int, default=searching.DEFAULT_LIMIT,
                   help=f"at most this many hits (default {searching.DEFAULT_LIMIT})")
    p.add_argument("--depth", type=memory.whole, default=0, metavar="N",
                   help="also the beliefs within N justification steps of the hits (what they "
                        "rest on, their outlists, what rests on them; --json: hits and "
                        f"neighbours; at most {searching.MAX_DEPTH})")
    agent_commands.namespace_flag(p)


def _batch_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", nargs="?", default="-",
                   help="commands, one per line in this CLI's syntax (default -: stdin)")
    p.add_argument("--keep-going", action="store_true",
                   help="run every line even after one fails (exit code: the first failure's)")


def _serve_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["start", "stop", "status"],
                   help="start the resident engine, stop it, or say whether commands use it")


COMMANDS: dict[str, Command] = {
    "init": Command(cmd_init, "create the schema (constraints, indexes); --root DIR records the"
                    " folder source paths are relative to", "init --root ~/src/myproject",
                    _init_arguments, json=False),
    "reset": Command(cmd_reset, "delete every belief, justification and nogood", "reset --yes",
                     _reset_arguments, json=False),
    **verbs.COMMANDS,  # add, add-justification, retract, assert, nogood
    "status": Command(cmd_status, "counts of beliefs by label and kind", "status --json",
                      _status_arguments),
    "list": Command(cmd_list, "list beliefs", "list --in --derived", _list_arguments),
    "show": Command(cmd_show, "one belief with its justifications (--history: its changes)",
                    "show auth-bottleneck --as-of v1.0", _show_arguments),
    "explain": Command(cmd_explain, "why a belief is IN or OUT", "explain auth-bottleneck",
                       _read_id),
    "trace": Command(cmd_trace, "the premises a belief rests on", "trace auth-bottleneck --json",
                     _read_id),
    "trace-tags": Command(cmd_trace_tags, "where each of a belief's access tags comes from",
                          "trace-tags payroll-summary --json", _read_id),
    "what-if": Command(cmd_what_if, "what a retract, assert or supersede would change (nothing"
                       " written); what-if rollback --to POINT",
                       "what-if retract auth-uses-jwt", _what_if_arguments),
    "verify": Command(cmd_verify, "recompute every label from scratch and compare; --repair"
                      " writes the differences", "verify --repair", _verify_arguments),
    "import": Command(cmd_import, "load a network.json (ftl-reasons / reasonsforge format) or a"
                      " markdown registry; --sync applies an edited one as logged writes",
                      "import beliefs.md --sync --dry-run", registry.import_command_arguments),
    "export": Command(cmd_export, "write the network as network.json or a markdown registry",
                      "export --format markdown -o beliefs.md", registry.export_arguments,
                      json=False),
    "query": Command(cmd_query, "run a query of the pack (cypher/queries/); --list shows them",
                     "query why_in --param id=auth-key-fetch-blocks-requests", _query_arguments),
    "search": Command(
        cmd_search, "find beliefs by words (and meaning, --semantic); IN only unless --all",
        "search cache stale reads --limit 5", _search_arguments),
    "batch": Command(
        cmd_batch, "run commands from a file or stdin, one per line, over one connection",
        "batch commands.txt --keep-going", _batch_arguments),
    "viz": Command(cmd_viz, "write a belief's neighbourhood as a self-contained HTML page",
                   "viz auth-key-fetch-blocks-requests --depth 2 -o graph.html", _viz_arguments,
                   json=False),
    "serve": Command(cmd_serve, "a resident engine that keeps the connection open, so each "
                     "command starts in milliseconds", "serve start", _serve_arguments,
                     json=False),
    **reading.COMMANDS,  # compact, summarize
    **memory.COMMANDS,  # supersede, challenge, defend, defeat, editing, log
    **going_back.COMMANDS,  # diff, release(s), rollback, revert
    **agent_commands.COMMANDS,  # import-agent, sync-agent, namespaces
    **proposals.COMMANDS,  # propose, proposals, proposal, accept, reject, withdraw
    **registry.COMMANDS,  # blockers, wiki
    **sources.COMMANDS,  # sources status|stale|hash
}


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The parser of every command; `prog`: the name it goes by (`eem` under eem)."""
    derive = "python -m engine.derive" if prog == PROG else f"{prog} derive"
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Justified beliefs in Neo4j with truth maintenance.",
        epilog="Connection: NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD, NEO4J_DATABASE. "
               "A writer waits for the write lock at most EEM_LOCK_TIMEOUT seconds (60). "
               f"Derive: {derive} --help",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, command in COMMANDS.items():
        p = sub.add_parser(name, help=command.help, description=command.help,
                           epilog=f"example: {prog} {command.example}",
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                       help="show tracebacks")
        if command.json:
            p.add_argument("--json", action="store_true", help="print JSON")
        command.arguments(p)
    return parser


def main(argv: Sequence[str] | None = None, *, borrowed: BorrowedDriver | None = None,
         parser: argparse.ArgumentParser | None = None, prog: str = PROG) -> int:
    """Run one command line. The resident engine (engine/cli/resident/server.py) passes its
    driver and a parser it built before (building one takes longer than most commands)."""
    parser = parser or build_parser(prog)
    args = parser.parse_args(argv)
    args.prog = parser.prog  # the name it goes by (eem, python -m engine), for hints
    handler = COMMANDS[args.command].handler

    def run() -> int:
        with open_store(borrowed) as store:
            return handler(store, args)

    return run_guarded(run, debug=getattr(args, "debug", False))
