"""Reading the memory from the command line: list, show, explain, trace, trace-tags,
search, query, get-metadata, compact, blockers, viz, wiki. Each one call of
engine/service/reading.py, as the --visible-to client would see it when that flag is
given."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from engine.cli.arguments import (
    ID,
    arg,
    local_path,
    namespace_flag,
    one_of,
    positive_int,
    read_flags,
    visible_to_flag,
    whole,
)
from engine.cli.command import Call, Column, Command, listing, records, shorten, table
from engine.defaults import (
    BLOCKERS_LIMIT,
    COMPACT_BUDGET,
    LIST_SORTS,
    SEARCH_LIMIT,
    SEARCH_MAX_DEPTH,
    SEARCH_SORT_POOL,
    SEARCH_SORTS,
    WIKI_TOPICS,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from engine.model import Belief
    from engine.reading.records import BeliefHit
    from engine.reading.search import Neighbour, SearchHit
    from engine.service.context import Context


def seen(call: Call) -> Context:
    """The call's context as the --visible-to client sees it (unchanged without the flag)."""
    given = call.args.visible_to
    if given is None:
        return call.context
    from engine.tms.access import parse_tags

    return call.context.seeing(frozenset(parse_tags(given, field="visible_to")))


def _depth(b: Belief | BeliefHit) -> int | str:
    return b.depth if b.depth is not None else "-"


def cmd_list(call: Call) -> int:
    from engine.model import Truth
    from engine.service import reading

    a = call.args
    found = reading.list_beliefs(seen(call), reading.ListOptions(
        truth=Truth.IN if a.in_ else Truth.OUT if a.out else None,
        premises=True if a.premises else False if a.derived else None,
        challenged=a.challenged, superseded=a.superseded, min_depth=a.min_depth,
        max_depth=a.max_depth, has_dependents=a.has_dependents, label=a.label, sort=a.sort,
        namespace=a.namespace, negative=a.negative, as_of=a.as_of, limit=a.limit,
        never_reviewed=a.never_reviewed, not_reviewed_since=a.not_reviewed_since))
    if call.emit(found):
        return 0
    # the review filters' table (with impact when sorted by it), else the problems', else
    # the impact's, else the plain one
    when, kinds, impact = found.reviewed, found.negative, found.impact
    if when is None and kinds is not None and not kinds:
        call.say("no belief is known to state a problem: classify them with "
                 + call.command("negatives --model SPEC --auto"))
        return 0
    columns: list[Column] = [("id", lambda b: b.id)]
    if when is None and kinds is not None:
        problem = kinds
        columns += [("problem", lambda b: problem[b.id])]
        impact = None
    else:
        columns += [("truth", lambda b: b.truth.value if b.truth else "-")]
    columns += [("depth", _depth)]
    if impact is not None:
        ranked = impact
        columns += [("impact", lambda b: ranked.get(b.id, 0))]
    if when is not None:
        reviewed = when
        columns += [("reviewed", lambda b: reviewed.get(b.id) or "never")]
    width = 50 if when is not None else 70 if impact is None else 60
    call.say(records(found.beliefs, columns + [("text", lambda b: shorten(b.text, width))]))
    if found.truncated:
        call.say(f"({found.total - len(found.beliefs)} more: --limit)")
    return 0


def cmd_show(call: Call) -> int:
    from engine.errors import InvalidInput
    from engine.service import history, reading

    a = call.args
    if a.history:
        if a.as_of is not None:
            raise InvalidInput("--history lists every change; it takes no --as-of",
                               field="as_of")
        found = history.belief_history(seen(call), a.id)
        listing(call, found, found.items, empty=f"no change-log entry touched {a.id}",
                row=lambda item: (item[0].seq, item[0].at[:19], item[0].actor, item[0].op,
                                  ", ".join(item[1].did), item[0].reason[:40]),
                headers=["seq", "at (UTC)", "actor", "op", "did", "reason"])
        return 0
    shown = reading.show(seen(call), a.id, a.as_of)
    if call.emit(shown):
        return 0
    b = shown.belief
    depth = b.depth if b.depth is not None else "none (no finite derivation)"
    call.say(f"{b.id}  [{b.truth.value if b.truth else '-'}]  depth {depth}  impact "
             f"{shown.impact}", f"  {b.text}", *(f"  {line}" for line in source_lines(b)))
    if b.retracted:
        call.say(f"  retracted{': ' + b.retract_reason if b.retract_reason else ''}")
    if b.asserted:
        call.say("  held as a user-asserted fact")
    for j in b.justifications:
        if j.gate:
            call.say(f"  premise, gated: OUT while {' or '.join(j.outlist)} is IN")
            continue
        line = f"  {j.kind.value}: {', '.join(j.antecedents) or '(no antecedents)'}"
        if j.outlist:
            line += f"  unless {', '.join(j.outlist)}"
        call.say(line + (f"  -- {j.label}" if j.label else ""))
    defeats = defeater_line(b.metadata)
    if defeats:
        call.say(f"  {defeats}")
    if shown.dependents:
        call.say(f"  dependents: {', '.join(shown.dependents)}")
    call.say(*(f"  superseded by {new}" for new in shown.superseded_by),
             *(f"  supersedes {old}" for old in shown.supersedes))
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


def defeater_line(metadata: Mapping[str, object]) -> str:
    """What a defeater defeats, and its type and reason type ("" for any other belief): ours
    (`defeats`, `justification`) or a peer file's (`defeats_node`, `defeats_justification`,
    counted from 0 there)."""
    target = metadata.get("defeats") or metadata.get("defeats_node")
    kind = metadata.get("defeater_type")
    if not isinstance(target, str) or not target or not isinstance(kind, str):
        return ""
    position = metadata.get("justification")
    counted_from_0 = metadata.get("defeats_justification")
    if not isinstance(position, int) and isinstance(counted_from_0, int):
        position = counted_from_0 + 1
    reason_type = metadata.get("defeat_reason_type")
    kinds = f"{kind}, {reason_type}" if isinstance(reason_type, str) and reason_type else kind
    which = f"justification {position} of " if isinstance(position, int) else ""
    return f"defeats {which}{target} ({kinds})"


def cmd_explain(call: Call) -> int:
    from engine.service import reading
    from engine.tms.explain import render_explanation

    step = reading.explain(seen(call), call.args.id, call.args.as_of)
    if not call.emit(step):
        call.say(*render_explanation(step))
    return 0


def cmd_trace(call: Call) -> int:
    from engine.service import reading

    traced = reading.trace(seen(call), call.args.id, call.args.as_of)
    if not call.emit(traced):
        call.say(table([(e.id, e.truth, e.kind) for e in traced.rests_on],
                       ["rests on", "truth", "kind"]))
    return 0


def cmd_trace_tags(call: Call) -> int:
    from engine.service import reading

    traced = reading.trace_tags(seen(call), call.args.id, call.args.as_of)
    if call.emit(traced):
        return 0
    found = traced.found
    call.say(f"{found['id']}: {', '.join(found['effective_tags']) or 'no access tags'}")
    rows = [(s["tag"], s["origin"], " -> ".join(s["via"])) for s in found["sources"]]
    if rows:
        call.say(table(rows, ["tag", "from", "through"]))
    return 0


def cmd_get_metadata(call: Call) -> int:
    from engine.service import reading

    found = reading.get_metadata(call.context, call.args.id, call.args.key)
    if call.emit(found):
        return 0
    if found.key is not None and isinstance(found.value, str):
        call.say(found.value)
    else:
        call.print_json(found.as_dict()["metadata"] if found.key is None else found.value)
    return 0


def cmd_search(call: Call) -> int:
    from engine.cli.meaning import ProgressBar
    from engine.service import reading

    a = call.args
    found = reading.search(seen(call), reading.SearchOptions(
        a.words, include_out=a.all, semantic=a.semantic, limit=a.limit, depth=a.depth,
        namespace=a.namespace, sort=a.sort), progress=ProgressBar(call.err))
    if call.emit(found):
        return 0
    if found.order is not None:
        by = {"impact": "impact", "recent": "updated"}[found.sort]
        order = found.order
        _hits(call, found.hits, "id", extra=(by, [order.get(h.belief.id, "")
                                                  for h in found.hits]))
    else:
        _hits(call, found.hits, "id")
    if found.neighbours:
        call.say(f"\nwithin {a.depth} justification step(s) of them:")
        _hits(call, found.neighbours, "neighbour", [n.distance for n in found.neighbours])
    return 0


def _hits(call: Call, found: Sequence[SearchHit] | Sequence[Neighbour], first: str,
          steps: Sequence[int] = (), extra: tuple[str, list[object]] | None = None) -> None:
    rows: list[tuple] = [(h.belief.id, h.belief.truth.value, _depth(h.belief),
                          h.belief.dependents, shorten(h.belief.text, 60)) for h in found]
    if steps:
        rows = [(r[0], s, *r[1:]) for r, s in zip(rows, steps)]
    if extra:
        rows = [(*r[:-1], v, r[-1]) for r, v in zip(rows, extra[1])]
    if not rows:
        call.say("no belief matches" + ("" if call.args.all else
                                        " (IN beliefs only; --all for OUT)"))
        return
    call.say(table(rows, [first, *(["steps"] if steps else []), "truth", "depth", "dependents",
                          *([extra[0]] if extra else []), "text"]))


def cmd_query(call: Call) -> int:
    from engine.service import reading

    a = call.args
    if a.list:
        pack = reading.query_pack()
        if not call.emit(pack):
            from engine.reading.queries import pack_rows

            call.say(table(pack_rows(pack.queries), ["query", "parameters (example)", "returns"]))
        return 0
    if a.favourites:
        count = reading.write_favourites(call.context, a.favourites)
        call.note(f"wrote {a.favourites}: {count} queries; drop it on Neo4j Browser")
        return 0
    answered = reading.query(call.context, a.name, a.param or ())
    if call.emit(answered):
        return 0
    from engine.reading.queries import text_rows

    if answered.result.rows:
        call.say(table(text_rows(answered.result), answered.columns))
    else:
        call.say("(no rows)")
    return 0


def cmd_compact(call: Call) -> int:
    from engine.cli.meaning import ProgressBar
    from engine.reading.compact import CompactOptions
    from engine.service import reading

    a = call.args
    done = reading.compact(seen(call), CompactOptions(
        budget=a.budget, topic=tuple(a.topic or ()), around=a.around, steps=a.steps,
        namespace=a.namespace), write=a.write, semantic=a.semantic,
        progress=ProgressBar(call.err))
    if call.emit(done):
        return 0
    if done.written:
        call.say(f"wrote {done.written}: {done.summary.tokens} of {done.summary.budget} tokens "
                 "between the eem:compact markers")
    else:
        call.out.write(done.summary.text)
    return 0


def cmd_blockers(call: Call) -> int:
    from engine.service import reading

    found = reading.blockers(seen(call), call.args.limit)
    if call.emit(found):
        return 0
    if not found.groups:
        call.say("no conclusion is held OUT by a closed gate alone")
    for g in found.groups:
        n = len(g.conclusions)
        come = "conclusion comes" if n == 1 else "conclusions come"
        call.say(f"take {', '.join(g.closers)} OUT and {n} {come} back:",
                 *(f"  {c.id}  {shorten(c.text, 70)}" for c in g.conclusions))
    if found.retracted:
        call.say("retracted premises, by the beliefs resting on them:",
                 *(f"  {r.id}  {r.resting} resting  "
                   f"{shorten(r.reason or '(no reason given)', 60)}" for r in found.retracted))
    return 0


def cmd_viz(call: Call) -> int:
    from engine.service import reading

    drawn = reading.viz(call.context, call.args.id, call.args.depth, call.args.output)
    call.note(f"wrote {drawn.path}: {drawn.beliefs} beliefs, {drawn.justifications} "
              f"justifications within {drawn.depth} steps of {drawn.id}")
    return 0


def cmd_wiki(call: Call) -> int:
    from engine.service import reading

    a = call.args

    def progress(done: int, total: int) -> None:
        call.note(f"embeddings: {done}/{total} computed")

    site = reading.wiki(call.context, reading.WikiOptions(
        a.output, a.title, a.repo_url or "", a.topics, a.page_size), progress)
    call.note(f"wrote {len(site.written)} files to {a.output}: {site.topics} topics, "
              f"{site.beliefs} beliefs")
    return 0


# --- arguments -----------------------------------------------------------------------------
READ_ID = (ID, read_flags)


def _compact_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--budget", type=positive_int, default=COMPACT_BUDGET, metavar="TOKENS",
                   help=f"at most this many tokens, footer included (default {COMPACT_BUDGET})")
    scope = p.add_mutually_exclusive_group()
    scope.add_argument("--topic", nargs="+", metavar="WORD",
                       help="only the beliefs that bear on these words, found as search "
                            "ranks them")
    p.add_argument("--semantic", action="store_true",
                   help="with --topic: by meaning as well (the beliefs' embeddings)")
    scope.add_argument("--around", metavar="ID",
                       help="only beliefs within --steps justification steps of ID")
    scope.add_argument("--namespace", metavar="NAME",
                       help="only the beliefs of this imported agent's namespace")
    p.add_argument("--steps", type=whole, default=2, metavar="N",
                   help="with --around: steps up and down (default 2)")
    visible_to_flag(p)
    p.add_argument("--write", metavar="FILE", type=local_path,
                   help="put the summary between <!-- eem:compact --> and "
                        "<!-- /eem:compact --> in FILE (markers appended when absent)")


COMMANDS: dict[str, Command] = {
    "list": Command(cmd_list, "list beliefs", "list --in --derived", (
        read_flags,
        one_of(arg("--in", dest="in_", action="store_true", help="IN beliefs only"),
               arg("--out", action="store_true", help="OUT beliefs only")),
        one_of(arg("--premises", action="store_true", help="premises only"),
               arg("--derived", action="store_true", help="derived beliefs only")),
        arg("--challenged", action="store_true", help="beliefs an open challenge gates"),
        arg("--superseded", action="store_true", help="beliefs superseded by another"),
        arg("--min-depth", type=whole, metavar="N", help="depth at least N"),
        arg("--max-depth", type=whole, metavar="N", help="depth at most N"),
        arg("--has-dependents", action="store_true", help="beliefs some justification names"),
        arg("--label", metavar="TEXT",
            help="beliefs with a justification whose label contains TEXT (any case)"),
        arg("--negative", action="store_true",
            help="IN beliefs that state a problem (bug, risk, limitation, ...), as the "
                 "negatives stage classified them, with the kind"),
        one_of(arg("--never-reviewed", action="store_true",
                   help="derived beliefs no review has judged (here, or in the file they were "
                        "imported from: its reviewed_at)"),
               arg("--not-reviewed-since", metavar="DAYS|POINT",
                   help="derived beliefs not reviewed in the last DAYS days, or since a point "
                        "(an ISO time or a release name); the never reviewed too")),
        arg("--sort", choices=LIST_SORTS, default="id",
            help="id (default), depth (deepest first), impact (transitive dependents, most "
                 "first), updated (newest first)"),
        arg("--limit", type=positive_int, metavar="N",
            help="at most N beliefs (--json: `total` says how many matched)"),
        namespace_flag)),
    "show": Command(
        cmd_show, "one belief with its justifications (--history: its changes)",
        "show auth-bottleneck --as-of v1.0",
        (*READ_ID, arg("--history", action="store_true",
                       help="the change-log entries that touched the belief, oldest first"))),
    "explain": Command(cmd_explain, "why a belief is IN or OUT", "explain auth-bottleneck",
                       READ_ID),
    "trace": Command(cmd_trace, "the premises a belief rests on", "trace auth-bottleneck --json",
                     READ_ID),
    "trace-tags": Command(cmd_trace_tags, "where each of a belief's access tags comes from",
                          "trace-tags payroll-summary --json", READ_ID),
    "search": Command(
        cmd_search, "find beliefs by words (and meaning, --semantic); IN only unless --all",
        "search cache stale reads --limit 5",
        (visible_to_flag,
         arg("words", nargs="+", metavar="WORD",
             help="words to find in belief texts and ids (any of them; prefixes match)"),
         one_of(arg("--in", dest="in_", action="store_true", help="IN beliefs only (the default)"),
                arg("--all", action="store_true",
                    help="OUT beliefs too (retracted, unsupported, undetermined)")),
         arg("--semantic", action="store_true",
             help="rank by meaning as well: the vector index over the beliefs' embeddings, fused "
                  "with the text ranking (a few missing embeddings are computed first; more: "
                  "`embed` computes them)"),
         arg("--limit", type=int, default=SEARCH_LIMIT,
             help=f"at most this many hits (default {SEARCH_LIMIT})"),
         arg("--depth", type=whole, default=0, metavar="N",
             help="also the beliefs within N justification steps of the hits (what they rest "
                  "on, their outlists, what rests on them; --json: hits and neighbours; at "
                  f"most {SEARCH_MAX_DEPTH})"),
         arg("--sort", choices=SEARCH_SORTS, default="relevance",
             help="relevance (default); impact (transitive dependents, most first) or recent "
                  f"(last updated, newest first): the best {SEARCH_SORT_POOL} matches (or "
                  "--limit, if more) re-ordered"),
         namespace_flag)),
    "query": Command(
        cmd_query, "run a query of the pack (cypher/queries/); --list shows them",
        "query why_in --param id=auth-key-fetch-blocks-requests",
        (arg("name", nargs="?", help="the query (see --list)"),
         arg("--param", action="append", metavar="KEY=VALUE",
             help="a query parameter (repeat for each)"),
         arg("--list", action="store_true", help="list the queries of the pack"),
         arg("--favourites", metavar="FILE.zip", type=local_path,
             help="write the pack as Neo4j Browser favourites (drop it on Browser)"))),
    "get-metadata": Command(
        cmd_get_metadata, "a belief's metadata, or one key of it",
        "get-metadata auth-uses-jwt beliefs_type", (ID, arg("key", nargs="?"))),
    "compact": Command(
        cmd_compact, "a token-budgeted summary of the network for an agent's context",
        "compact --budget 800 --write CLAUDE.md", _compact_arguments),
    "blockers": Command(
        cmd_blockers, "OUT conclusions held OUT only by IN beliefs in an outlist, by what "
        "closes them; the retracted premises most rest on", "blockers --json",
        (visible_to_flag, arg("--limit", type=int, default=BLOCKERS_LIMIT, help="at most this "
                              f"many groups and premises (default {BLOCKERS_LIMIT})"))),
    "viz": Command(
        cmd_viz, "write a belief's neighbourhood as a self-contained HTML page",
        "viz auth-key-fetch-blocks-requests --depth 2 -o graph.html",
        (ID, arg("--depth", type=int, default=2,
                 help="justification steps up and down from the belief (default 2)"),
         arg("-o", "--output", default="graph.html", type=local_path,
             help="the HTML file to write (default graph.html)")), json=False),
    "wiki": Command(
        cmd_wiki, "write a static site of the network: topics, beliefs, blockers, nogoods, "
        "search", "wiki -o site --title 'Auth service'",
        (arg("-o", "--output", default="site", type=local_path,
             help="the directory to write (default site)"),
         arg("--title", default="Belief registry", help="the site's title"),
         arg("--repo-url", help="a forge's repository URL (https://github.com/o/r): sources "
             "pinned to a commit link to its file view at that commit"),
         arg("--topics", choices=WIKI_TOPICS, default="auto",
             help="clusters (embeddings), prefix (id prefixes), or auto: clusters when the "
                  "embeddings extra is installed"),
         arg("--page-size", type=int, default=500,
             help="at most this many beliefs per topic page (default 500)")), json=False),
}
