"""What a row of the queue shows when a person looks at it: the what-if of accepting it now
(what would go IN and OUT), the beliefs nearest to its text (dedup's measure: the packaged
embedding model's cosine), and, for a sourced claim, the lines of its file with the quote
marked. Each is read when asked for, so the queue itself draws fast."""
from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

from engine.desk.queue import AGENT, Ref, Sources
from engine.desk.stage_files import StageFile
from engine.errors import EngineError
from engine.model import Belief
from engine.service import proposals as proposing
from engine.service import reading, sources, staged
from engine.service.context import Context
from engine.service.sources import SourceLines

NEAREST = 4  # beliefs shown nearest to a proposal's text
DUPLICATE_AT = 0.85  # dedup's default threshold: a cosine at or above it looks like the same claim


@dataclass
class Detail:
    key: str
    went_in: tuple[str, ...] = ()
    went_out: tuple[str, ...] = ()
    by_nogood: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()  # what the stage would write, one line per item
    refused: str = ""  # why accepting it would be refused now
    drift: tuple[str, ...] = ()  # what changed since an agent's proposal was made
    nearest: list[tuple[Ref, float]] = field(default_factory=list)
    nearest_note: str = ""
    lines: SourceLines | None = None
    lines_note: str = ""

    @property
    def duplicate_at(self) -> float:
        return DUPLICATE_AT


class NearestCache:
    """The nearest beliefs of each text, kept for the desk's life (an embedding costs tens
    of milliseconds; a row is looked at again and again). Cleared by any write."""

    def __init__(self) -> None:
        self._found: dict[str, tuple[tuple[str, float], ...]] = {}
        self._lock = threading.Lock()

    def get(self, ctx: Context, text: str) -> tuple[tuple[str, float], ...]:
        with self._lock:
            if text in self._found:
                return self._found[text]
        found = reading.similar(ctx, [text], NEAREST + 1).nearest[0]
        with self._lock:
            self._found[text] = found
        return found

    def clear(self) -> None:
        with self._lock:
            self._found.clear()


def read_detail(ctx: Context, source: Sources, key: str) -> Detail:
    """A row's what-if now, and its source lines."""
    origin, _, rest = key.partition(":")
    if origin == AGENT:
        return _agent_detail(ctx, key, rest)
    f, item = _file_item(source, rest)
    d = Detail(key)
    try:
        would = staged.what_if(ctx, f, [f.key(item)])
        d.went_in, d.went_out = tuple(would.change.went_in), tuple(would.change.went_out)
        d.by_nogood = tuple(would.change.retracted_by_nogood)
        d.refused = "; ".join(would.skipped.values())
        d.writes = tuple(_entry_line(e) for e in would.entries)
    except EngineError as e:
        d.refused = str(e)
    shown = f.as_dict(item)
    _lines(ctx, d, shown, str(shown.get("id") or shown.get("belief") or ""))
    return d


def read_nearest(ctx: Context, source: Sources, key: str, cache: NearestCache) -> Detail:
    """The beliefs nearest to a row's text."""
    origin, _, rest = key.partition(":")
    d = Detail(key)
    if origin == AGENT:
        found = [p for p in proposing.list_proposals(ctx, pending=True).proposals
                 if p.id == rest]
        if not found:
            d.nearest_note = f"{rest} is no longer pending"
            return d
        _nearest(ctx, d, str(found[0].args.get("text") or ""), found[0].target, cache)
        return d
    f, item = _file_item(source, rest)
    shown = f.as_dict(item)
    _nearest(ctx, d, str(shown.get("text") or shown.get("claim") or shown.get("narrower") or ""),
             str(shown.get("id") or shown.get("belief") or ""), cache)
    return d


def _file_item(source: Sources, rest: str) -> tuple[StageFile, object]:
    fid, _, item_key = rest.partition(":")
    f = source.file(fid)
    return f, f.item(item_key)


def _entry_line(entry: Mapping[str, object]) -> str:
    """A stage's report entry as a line: `auth-slow: added, IN`."""
    said = [str(entry.get("action") or "added")]
    if entry.get("truth_value"):
        said.append(str(entry["truth_value"]))
    return f"{entry.get('id', '')}: {', '.join(said)}"


def _agent_detail(ctx: Context, key: str, proposal_id: str) -> Detail:
    d = Detail(key)
    shown = proposing.show_proposal(ctx, proposal_id)
    p = shown.proposal
    impact = shown.fresh or p.impact
    d.went_in, d.went_out = impact.went_in, impact.went_out
    d.by_nogood, d.refused, d.drift = impact.retracted_by_nogood, impact.error, shown.drift
    pin = p.args.get("pin")
    if isinstance(pin, Mapping):
        _lines(ctx, d, {"source": pin.get("path"), "lines": pin.get("lines"),
                        "quote": pin.get("quote")}, "")
    else:
        _lines(ctx, d, {}, p.target)
    return d


def _nearest(ctx: Context, d: Detail, text: str, subject: str, cache: NearestCache) -> None:
    if not text:
        d.nearest_note = "no text to compare"
        return
    try:
        found = [(i, c) for i, c in cache.get(ctx, text) if i != subject][:NEAREST]
    except EngineError as e:
        d.nearest_note = str(e)
        return
    if not found:
        d.nearest_note = ("no stored embedding is near it (beliefs get one from derive "
                          "--cluster, dedup, contradictions and search --semantic)")
        return
    beliefs = reading.beliefs(ctx, [i for i, _ in found]).found
    d.nearest = [(Ref(i, _truth(beliefs.get(i)), getattr(beliefs.get(i), "text", "")), c)
                 for i, c in found]


def _truth(b: Belief | None) -> str:
    return b.truth.value if b is not None and b.truth else ""


def _lines(ctx: Context, d: Detail, shown: Mapping[str, object], subject: str) -> None:
    """The source lines of a sourced claim: the item's own source, else its subject's."""
    path = str(shown.get("source") or "")
    lines = shown.get("lines") or shown.get("quote_lines")
    quote = str(shown.get("quote") or "")
    if not path and subject:
        b = reading.beliefs(ctx, [subject]).found.get(subject)
        if b is None or not b.source:
            return
        path = b.source
        lines = lines or b.metadata.get("lines")
        quote = quote or str(b.metadata.get("quote") or "")
    if not path:
        return
    span = (int(lines[0]), int(lines[1])) if isinstance(lines, (list, tuple)) and \
        len(lines) == 2 else None
    try:
        d.lines = sources.source_lines(ctx, path, span, quote)
    except EngineError as e:
        d.lines_note = str(e)
