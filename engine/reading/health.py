"""`health`: one screen of the numbers that say how true a memory is, each with the command
that acts on it.

- beliefs IN / OUT (undetermined among the OUT);
- sourced beliefs against their files: unchanged (their words read as pinned), moved,
  stale (changed, gone, unreadable), missing; and those naming a file with no pin at all;
- derived beliefs (IN, with a justification that is not a gate) by review: current, never
  reviewed, reviewed before the last change to them or to what their justifications name;
  the not-current ones with the most impact first;
- duplicate candidates: pairs of IN beliefs whose embeddings' cosine reaches the dedup
  stage's threshold (the slow step: timed apart, and left out on request);
- contradictions: nogoods, those holding (every member IN), beliefs OUT only through one;
- beliefs OUT only because their support is circular: each has a justification that would
  hold if some OUT beliefs were IN, and every such belief is of the same kind (the greatest
  set closed that way; circular support is no support here);
- loose premises: nothing rests on them and nothing pins them to a source;
- open proposals and open challenges.

The graph's part is one view of the store (HealthTx.health_facts: a few aggregating
queries); `facts_of` is its twin over a whole Network, for a memory read as of a point and
for the in-memory store. Nothing here prints or reads a file.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.model import Belief, Status, Truth
from engine.reading.records import (
    CURRENT,
    NEVER,
    OUTDATED,
    HealthFacts,
    ReviewStanding,
)
from engine.tms.records import Network

if TYPE_CHECKING:
    from engine.optional import ArrayLike

POOL = 15  # not-current derived beliefs (most direct dependents) whose impact is counted
TOP = 5  # how many of a list the screen names
Number = int | float
MARKER_SOURCES = ("challenge", "review", "defence", "defeat")  # metadata source_type of
# the beliefs that carry :Defeater in the graph


# --- when a belief was reviewed -------------------------------------------------------------
def filed_review(b: Belief) -> str:
    """The `reviewed_at` an imported file gave the belief ("" none)."""
    value = b.extra.get("reviewed_at")
    return value if isinstance(value, str) else ""


def reviewed_when(b: Belief, stamp: str = "") -> str:
    """When review last judged the belief: its stamp here or its file's, the later."""
    return max(stamp or "", filed_review(b))


def is_derived(b: Belief) -> bool:
    return any(not j.gate for j in b.justifications)


def is_marker(b: Belief) -> bool:
    return b.metadata.get("source_type") in MARKER_SOURCES


def review_state(b: Belief, reviewed: str, beliefs: Mapping[str, Belief]) -> str:
    if not reviewed:
        return NEVER
    named = {ref for j in b.justifications for ref in j.mentions()}
    changed = [beliefs[i].updated_at for i in named
               if i in beliefs and not is_marker(beliefs[i])]
    return OUTDATED if max([b.updated_at, *changed]) > reviewed else CURRENT


# --- the graph's facts, over a whole network (as of a point; the in-memory store) -----------
def facts_of(network: Network, stamps: Mapping[str, str], pool: int = POOL,
             listed: int = TOP) -> HealthFacts:
    """HealthTx.health_facts computed over `network` (stored labels), with the review
    stamps `stamps` (by id)."""
    beliefs = network.beliefs
    direct: dict[str, set[str]] = {}
    named_by: set[str] = set()
    for b in beliefs.values():
        for j in b.justifications:
            for a in j.antecedents:
                direct.setdefault(a, set()).add(b.id)
            named_by.update(j.mentions())
    states: dict[str, str] = {}
    for b in beliefs.values():
        if b.truth == Truth.IN and is_derived(b):
            states[b.id] = review_state(b, reviewed_when(b, stamps.get(b.id, "")), beliefs)
    open_ = sorted(((i, s, len(direct.get(i, ()))) for i, s in states.items() if s != CURRENT),
                   key=lambda r: (-r[2], r[0]))
    counts = {s: sum(1 for v in states.values() if v == s) for s in (CURRENT, NEVER, OUTDATED)}
    review = ReviewStanding(len(states), counts[CURRENT], counts[NEVER], counts[OUTDATED],
                            tuple(open_[:pool]))
    loose = sorted(b.id for b in beliefs.values()
                   if not is_derived(b) and b.id not in named_by and not b.source
                   and not is_marker(b))
    holding = sum(1 for n in network.nogoods
                  if all(m in beliefs and beliefs[m].truth == Truth.IN for m in n.members))
    by_nogood = tuple(sorted(b.id for b in beliefs.values() if b.truth != Truth.IN
                             and b.retracted and b.retract_reason.startswith("nogood ")))
    return HealthFacts(review, _out_support(beliefs), len(loose), tuple(loose[:listed]),
                       len(network.nogoods), holding, by_nogood)


def _out_support(beliefs: Mapping[str, Belief]) -> dict[str, tuple[tuple[str, ...], ...]]:
    def is_in(i: str) -> bool:
        return i in beliefs and beliefs[i].truth == Truth.IN

    found = {}
    for b in beliefs.values():
        if b.truth != Truth.OUT or b.retracted:
            continue
        open_ = tuple(tuple(dict.fromkeys(a for a in j.antecedents if not is_in(a)))
                      for j in b.justifications
                      if not j.gate and not any(is_in(o) for o in j.outlist))
        if open_:
            found[b.id] = open_
    return found


def circular(out_support: Mapping[str, Sequence[Sequence[str]]]) -> list[str]:
    """The OUT beliefs whose support is circular: the greatest set of them in which each
    has a justification whose antecedents not IN are all in the set (by id)."""
    alive = set(out_support)
    changed = True
    while changed:
        changed = False
        for bid in sorted(alive):
            if not any(all(a in alive for a in j) for j in out_support[bid]):
                alive.discard(bid)
                changed = True
    return sorted(alive)


# --- duplicates -------------------------------------------------------------------------------
@dataclass(frozen=True)
class DuplicatePairs:
    """Pairs of IN beliefs at cosine >= threshold (each belief's `k` best counted), the
    closest first."""

    threshold: float
    pairs: tuple[tuple[str, str, float], ...] = ()
    model: str = ""
    seconds: float = 0.0  # how long the step took (embedding and search)


def duplicate_pairs(pool: Sequence[tuple[str, str]], vectors: ArrayLike, threshold: float, k: int
                    ) -> list[tuple[str, str, float]]:
    """(a, b, cosine) with a < b for the pairs of `pool` whose unit `vectors` (row i for
    item i) reach `threshold`, each belief's k nearest counted; closest first."""
    from engine.pairs.neighbours import nearest

    if len(pool) < 2:
        return []
    found: dict[tuple[str, str], float] = {}
    for i, j, score in nearest(vectors, k, threshold):
        a, b = sorted((pool[i][0], pool[j][0]))
        if a != b:
            found[(a, b)] = max(score, found.get((a, b), -2.0))
    return sorted(((a, b, round(s, 4)) for (a, b), s in found.items()),
                  key=lambda p: (-p[2], p[0], p[1]))


# --- the screen -----------------------------------------------------------------------------
@dataclass(frozen=True)
class SourceCounts:
    """Sourced beliefs against their files (see `sources status`)."""

    pinned: int = 0
    unchanged: int = 0
    moved: int = 0
    stale: int = 0
    missing: int = 0
    unpinned: int = 0  # naming a file, with no hash and no pin
    stale_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Figure:
    """One line of the screen: its name, its numbers, the command that acts on it, and
    the first ids or pairs it is about."""

    name: str
    numbers: Mapping[str, Number | None]
    command: str
    top: tuple[str | tuple[str | int | float, ...], ...] = ()  # ids, or an id (or two) and
    # what is said of it
    note: str = ""

    def as_dict(self) -> dict[str, object]:
        return {**dict(self.numbers), "command": self.command,
                **({"top": [list(t) if isinstance(t, tuple) else t for t in self.top]}
                   if self.top else {}),
                **({"note": self.note} if self.note else {})}


@dataclass(frozen=True)
class Health:
    figures: tuple[Figure, ...]
    as_of: str | None = None
    breaches: tuple[str, ...] = ()  # the thresholds crossed, each said in a line

    def figure(self, name: str) -> Figure:
        return next(f for f in self.figures if f.name == name)

    def number(self, name: str, key: str) -> Number | None:
        found = [f for f in self.figures if f.name == name]
        return found[0].numbers.get(key) if found else None

    def as_dict(self) -> dict[str, object]:
        return {"as_of": self.as_of, **{f.name: f.as_dict() for f in self.figures},
                "breaches": list(self.breaches)}


@dataclass(frozen=True)
class Commands:
    """How the screen names a command: under the program's name as it was called."""

    command: Callable[[str], str]
    stage: Callable[[str, str], str]


@dataclass(frozen=True)
class Parts:
    """What the screen is made of, read by the service: the counts of `status`, the
    graph's facts, the impact of the review pool, and what only `now` has (files,
    proposals; None when read as of a point), and the duplicates (None: not computed)."""

    status: Status
    facts: HealthFacts
    impact: Mapping[str, int]
    open_proposals: int | None = None
    sources: SourceCounts | None = None
    duplicates: DuplicatePairs | None = None
    duplicates_note: str = ""
    extra: Mapping[str, str] = field(default_factory=dict)


def percent(part: int, whole: int) -> float:
    return 100.0 if whole == 0 else round(100.0 * part / whole, 1)


def screen(parts: Parts, commands: Commands, *, as_of: str | None = None,
           max_stale: int | None = None, min_reviewed: float | None = None) -> Health:
    """The figures, and the thresholds crossed."""
    c, s, f = commands, parts.status, parts.facts
    figures = [Figure("beliefs", {"total": s.beliefs, "in": s.in_, "out": s.out,
                                  "undetermined": s.undetermined, "premises": s.premises,
                                  "derived": s.derived},
                      c.command("list --out" + (f" --as-of {as_of}" if as_of else "")))]
    if parts.sources is not None:
        src = parts.sources
        figures.append(Figure("sources", {
            "pinned": src.pinned, "unchanged": src.unchanged, "moved": src.moved,
            "stale": src.stale, "missing": src.missing, "unpinned": src.unpinned},
            c.command("sources stale --retract"), src.stale_ids[:TOP],
            note=(f"{src.unpinned} name a file but are not pinned to it: "
                  f"`{c.command('sources hash')}`" if src.unpinned else "")))
    r = f.review
    ranked = sorted(((i, why, parts.impact.get(i, d)) for i, why, d in r.pool),
                    key=lambda t: (-t[2], t[0]))[:TOP]
    figures.append(Figure("review", {
        "derived": r.derived, "current": r.current, "never": r.never, "outdated": r.outdated,
        "reviewed_pct": percent(r.current, r.derived)},
        c.command("list --never-reviewed --sort impact"),
        tuple((i, why, n) for i, why, n in ranked),
        note=f"`{c.stage('review', '--model SPEC')}` reviews them" if r.current < r.derived
        else ""))
    if parts.duplicates is not None:
        d = parts.duplicates
        figures.append(Figure("duplicates", {"pairs": len(d.pairs), "threshold": d.threshold,
                                             "seconds": d.seconds},
                              c.stage("dedup", "--model SPEC"), d.pairs[:TOP]))
    else:
        figures.append(Figure("duplicates", {"pairs": None},
                              c.stage("dedup", "--model SPEC"),
                              note=parts.duplicates_note or "not computed"))
    figures.append(Figure("contradictions", {"nogoods": f.nogoods, "holding": f.holding,
                                             "out_through_one": len(f.out_by_nogood)},
                          c.command("query nogoods"), f.out_by_nogood[:TOP]))
    looped = circular(f.out_support)
    figures.append(Figure("circular", {"out": len(looped)}, c.command("explain ID"),
                          tuple(looped[:TOP])))
    figures.append(Figure("loose", {"premises": f.loose}, c.command("show ID"),
                          f.loose_ids[:TOP]))
    figures.append(Figure("open", {"proposals": parts.open_proposals,
                                   "challenges": s.challenged},
                          c.command("proposals --pending")))
    breaches = []
    stale = (parts.sources.stale + parts.sources.missing) if parts.sources else None
    if max_stale is not None and stale is not None and stale > max_stale:
        breaches.append(f"{stale} stale sourced beliefs, more than --max-stale {max_stale}")
    pct = percent(r.current, r.derived)
    if min_reviewed is not None and pct < min_reviewed:
        breaches.append(f"{pct}% of derived beliefs reviewed, fewer than --min-reviewed "
                        f"{min_reviewed:g}%")
    return Health(tuple(figures), as_of, tuple(breaches))


# --- a trend between two points ---------------------------------------------------------------
def numbers_of(h: Health) -> dict[str, Number]:
    """Every number of the screen by `figure.key`."""
    return {f"{f.name}.{k}": v for f in h.figures for k, v in f.numbers.items()
            if isinstance(v, (int, float)) and not isinstance(v, bool) and k != "seconds"}


@dataclass(frozen=True)
class Trend:
    first: Health
    second: Health
    first_point: str
    second_point: str

    def changes(self) -> list[tuple[str, Number | None, Number | None]]:
        a, b = numbers_of(self.first), numbers_of(self.second)
        return [(k, a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]

    def as_dict(self) -> dict[str, object]:
        return {"from": self.first_point, "to": self.second_point,
                "changes": [{"number": k, "from": x, "to": y,
                             "by": (y - x if isinstance(x, (int, float))
                                    and isinstance(y, (int, float)) else None)}
                            for k, x, y in self.changes()],
                "first": self.first.as_dict(), "second": self.second.as_dict()}

