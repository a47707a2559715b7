"""`health`: how true the memory is, on one screen (engine/reading/health.py says what each
number is), now or as of a point, or the trend between two points (`diff`).

Read now, the graph's part is one view of the store and the sourced beliefs are checked
against their files (through git when the root is a work tree). Read as of a point, the
network is rebuilt from the change log and what history does not keep is left out: the
files as they were (the sources figure), the proposals. Review stamps then count up to the
point's time. Duplicate candidates are the slow part (an embedding per IN text, through the
embedding cache; nothing is written to the store): timed apart, and skipped on request or
where no embedding model is available.
"""
from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from engine.errors import InvalidInput
from engine.reading import health as reading
from engine.reading.health import Commands, DuplicatePairs, Health, Parts, SourceCounts, Trend
from engine.service.context import Context
from engine.memory.history import HistoryTx
from engine.reading.records import HealthTx
from engine.store import Store

DUPLICATE_K = 50  # each belief's nearest counted: far more than a belief has duplicates


@dataclass(frozen=True)
class HealthOptions:
    """`as_of`: read the memory as it was at a point; `duplicates`: compute the duplicate
    candidates (the slow step); `max_stale`, `min_reviewed`: the thresholds a CI gate sets
    (crossed: `breaches`); `root`: the folder sources are read under (default: recorded)."""

    as_of: str | None = None
    duplicates: bool = True
    max_stale: int | None = None
    min_reviewed: float | None = None
    root: str | None = None


def _check(options: HealthOptions) -> None:
    if options.max_stale is not None and options.max_stale < 0:
        raise InvalidInput(f"--max-stale takes 0 or more, not {options.max_stale}",
                           field="max_stale", value=options.max_stale)
    if options.min_reviewed is not None and not 0 <= options.min_reviewed <= 100:
        raise InvalidInput(f"--min-reviewed takes a percentage (0 to 100), not "
                           f"{options.min_reviewed:g}", field="min_reviewed",
                           value=options.min_reviewed)
    if options.as_of is not None and options.max_stale is not None:
        raise InvalidInput("--max-stale checks the files as they are now; it takes no "
                           "--as-of", field="max_stale")


def health(ctx: Context, options: HealthOptions = HealthOptions()) -> Health:
    """The screen, now or as of `options.as_of`."""
    _check(options)
    commands = Commands(ctx.command, ctx.stage_command)
    parts = _as_of(ctx, options) if options.as_of is not None else _now(ctx, options)
    return reading.screen(parts, commands, as_of=options.as_of, max_stale=options.max_stale,
                          min_reviewed=options.min_reviewed)


def trend(ctx: Context, first: str, second: str, duplicates: bool = False) -> Trend:
    """The screens at two points (a seq, an ISO time or a release name; `now` for the
    memory as it is), and which numbers moved between them."""
    def at(point: str) -> Health:
        as_of = None if point == "now" else point
        return health(ctx, HealthOptions(as_of=as_of, duplicates=duplicates))

    return Trend(at(first), at(second), first, second)


# --- now --------------------------------------------------------------------------------------
def _now(ctx: Context, options: HealthOptions) -> Parts:
    from engine.proposals.records import Status as ProposalStatus
    from engine.reading.impact import impacts

    store = ctx.store
    status, facts, pending, pool = store.read(lambda tx: (
        tx.status(), tx.health_facts(reading.POOL, reading.TOP),
        len(tx.proposals(ProposalStatus.PENDING)),
        tx.in_belief_texts() if options.duplicates else []))
    impact = impacts(store, [i for i, _, _ in facts.review.pool])
    sources, note = _sources(ctx, options.root)
    dupes, why = _duplicates(ctx, pool) if options.duplicates else (None, "left out")
    return Parts(status, facts, impact, pending, sources, dupes,
                 why if dupes is None else "", {"sources_note": note} if note else {})


def _sources(ctx: Context, root: str | None) -> tuple[SourceCounts | None, str]:
    """The sourced beliefs against their files; none to check: zeros without a file read."""
    from engine.service import sources as sourcing
    from engine.sources import staleness as s
    from engine.sources.status import sourced_status

    store = ctx.store
    pinned_any, hashed, unpinned = store.read(lambda tx: (
        bool(tx.sources()), len(tx.hashed_unpinned_ids()), len(tx.unpinned_sourced_ids())))
    if not pinned_any and not hashed:
        return SourceCounts(unpinned=unpinned), ""
    try:
        files = sourcing.source_files(ctx, root)
    except InvalidInput as e:
        return None, f"files not checked: {e}"
    hashes = sourcing.whole_files(store, Path(files.root), {})
    rows = sourced_status(store, files.reader, hashes, files.revisions)
    by: dict[str, int] = {}
    for r in rows:
        by[r.state] = by.get(r.state, 0) + 1
    stale = [r.id for r in rows if r.state in (s.GONE, s.CHANGED, s.UNREADABLE)]
    missing = [r.id for r in rows if r.state == s.FILE_MISSING]
    return SourceCounts(len(rows), by.get(s.UNCHANGED, 0) + by.get(s.STILL, 0),
                        by.get(s.MOVED, 0), len(stale), len(missing), unpinned,
                        tuple(sorted(stale + missing))), ""


def _duplicates(ctx: Context, pool: Sequence[tuple[str, str]]
                ) -> tuple[DuplicatePairs | None, str]:
    """Pairs of IN beliefs at the dedup stage's threshold, by the embedding model; None and
    why where it cannot run."""
    from engine.dedup.stage import DEFAULT_THRESHOLD
    from engine.embedding.cache import MemoryVectorCache, VectorCache, vectors_through_cache
    from engine.service.reading import embeddings_installed

    if ctx.embedder is None or not embeddings_installed():
        return None, "no embedding model here (the embeddings extra)"
    started = time.perf_counter()
    embedder = ctx.embedder()
    cache: VectorCache = MemoryVectorCache()
    if ctx.cache_folder is not None:
        from adapters.vector_cache import NpyVectorCache

        cache = NpyVectorCache(ctx.cache_folder / "embeddings")
    vectors = vectors_through_cache(embedder, [t for _, t in pool], cache=cache)
    pairs = reading.duplicate_pairs(pool, vectors, DEFAULT_THRESHOLD, DUPLICATE_K)
    return DuplicatePairs(DEFAULT_THRESHOLD, tuple(pairs), embedder.model_name,
                          round(time.perf_counter() - started, 2)), ""


# --- as of a point ----------------------------------------------------------------------------
def _as_of(ctx: Context, options: HealthOptions) -> Parts:
    from engine.memory import history
    from engine.memory.as_of import NetworkView

    point = options.as_of or ""
    network = history.network_as_of(ctx.store, point)
    stamps = _stamps_until(ctx.store, point)
    facts = reading.facts_of(network, stamps)
    view = NetworkView(network, point)
    impact = view.impacts([i for i, _, _ in facts.review.pool])
    pool = sorted((b.id, b.text) for b in network.beliefs.values()
                  if b.truth is not None and b.truth.value == "IN")
    dupes, why = _duplicates(ctx, pool) if options.duplicates else (None, "left out")
    return Parts(history.status_of(network), facts, impact, None, None, dupes,
                 why if dupes is None else "")


class _StampsTx(HistoryTx, HealthTx, Protocol):
    """What reading the review stamps as of a point needs."""


def _stamps_until(store: Store[_StampsTx], point: str) -> Mapping[str, str]:
    """The review stamps recorded by the time of `point` (the time of the change it names)."""
    from engine.change_records import LogQuery
    from engine.memory import history

    def work(tx: _StampsTx) -> Mapping[str, str]:
        seq = history.resolve_point(tx, point)
        entries = tx.change_entries(LogQuery(after=seq - 1, limit=1, oldest_first=True))
        until = entries[0].at if entries else ""
        return {i: at for i, at in tx.review_stamps().items() if until and at <= until}

    return store.read(work)
