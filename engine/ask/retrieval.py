"""What `ask` shows the model, found without one: the hybrid search for the question (full
text, and meaning when an embedder is given, fused by RRF), then for the best hits their
support (the justifications that make an IN belief IN, down to premises) and their direct
dependents, packed to a token budget in that order of priority.

OUT beliefs that match are kept and marked `[OUT]` with why they are OUT (the retraction
reason, the review finding that defeats them, the gate that closes them, or what fails), so
"we used to think X, and here is why we stopped" can be answered. A belief an IN summary
covers is shown as the summary, once.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from engine import defaults
from engine.embedding.cache import Embedder
from engine.errors import InvalidInput
from engine.model import Belief, Truth
from engine.reading.compact.lines import depth_text, shorten_words
from engine.reading.records import ReadingTx, SummaryCover, cover_index
from engine.reading.search import SearchHit, search
from engine.store import Store
from engine.tms.records import TmsTx
from engine.tms.semantics import is_valid
from engine.tokens import ESTIMATE, TokenCounter

DEFAULT_BUDGET = defaults.CONTEXT_BUDGET
SEARCH_LIMIT = 12  # hits the question's search keeps
SUPPORT_HITS = 6  # of those, whose support and dependents are fetched
DEPENDENTS_PER_HIT = 8
TEXT_CHARS = 400
MAX_SUPPORT = 120  # support entries read at most (3000 tokens hold far fewer)


class Role:
    MATCH = "match"
    SUPPORT = "support"
    DEPENDENT = "dependent"


@dataclass(frozen=True)
class Entry:
    """One belief of the bundle."""

    id: str
    text: str
    truth: str
    depth: int | None
    role: str  # match, support, dependent
    why_out: str = ""  # for an OUT belief: why
    related: str = ""  # for support: the belief it supports; for a dependent: what it rests on
    summary_of: int = 0

    def line(self) -> str:
        facts = [self.truth, f"depth {depth_text(self.depth)}"]
        if self.summary_of:
            facts.append(f"summary of {self.summary_of}")
        out = f"- {self.id} [{', '.join(facts)}]: {shorten_words(self.text, TEXT_CHARS)}"
        if self.why_out:
            out += f" (OUT because: {shorten_words(self.why_out, 200)})"
        return out

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, "text": self.text, "truth": self.truth, "depth": self.depth,
                "role": self.role, "why_out": self.why_out, "related": self.related,
                "summary_of": self.summary_of}


@dataclass
class Bundle:
    question: str
    entries: list[Entry] = field(default_factory=list)
    left_out: int = 0  # entries found that did not fit the budget
    tokens: int = 0
    budget: int = DEFAULT_BUDGET
    estimator: str = ESTIMATE.name

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(e.id for e in self.entries)

    def text(self) -> str:
        return render(self.question, self.entries, self.left_out)

    def as_dict(self) -> dict[str, object]:
        return {"question": self.question, "budget": self.budget, "tokens": self.tokens,
                "estimator": self.estimator, "left_out": self.left_out,
                "entries": [e.as_dict() for e in self.entries], "text": self.text()}


HEADINGS = {
    Role.MATCH: "## Beliefs that match the question (best first)",
    Role.SUPPORT: "## What they rest on (the justifications that hold, down to premises)",
    Role.DEPENDENT: "## What rests on them",
}


def render(question: str, entries: Sequence[Entry], left_out: int) -> str:
    lines = [f"# Question: {' '.join(question.split())}"]
    for role in (Role.MATCH, Role.SUPPORT, Role.DEPENDENT):
        group = [e for e in entries if e.role == role]
        if group:
            lines.append(HEADINGS[role])
            lines.extend(e.line() for e in group)
    if not entries:
        lines.append("(no belief matches the question)")
    if left_out:
        lines.append(f"({left_out} more related beliefs did not fit the budget)")
    return "\n".join(lines) + "\n"


def check_budget(budget: int) -> int:
    if budget < 1:
        raise InvalidInput(f"--budget must be a positive number of tokens, not {budget}",
                           field="budget", value=budget)
    return budget


def retrieve(store: Store, question: str, *, budget: int = DEFAULT_BUDGET,
             counter: TokenCounter = ESTIMATE, embedder: Embedder | None = None) -> Bundle:
    """The bundle for `question`: search (text, and meaning with `embedder`), then one read
    transaction for support, dependents, summaries and why OUT."""
    if not question.strip():
        raise InvalidInput("the question is empty", field="question")
    check_budget(budget)
    hits = search(store, question, limit=SEARCH_LIMIT, include_out=True, embedder=embedder)
    candidates = store.read(lambda tx: _candidates(tx, hits))
    return pack(question, candidates, budget, counter)


def pack(question: str, candidates: Sequence[Entry], budget: int,
         counter: TokenCounter) -> Bundle:
    """The candidates in order, each kept when its line still fits `budget`; the rendered
    text is counted whole at the end, and lines are given back until it fits (a tokenizer
    need not count a text as the sum of its lines)."""
    fixed = counter.count(render(question, [], len(candidates))) + 1
    room = budget - fixed
    kept: list[Entry] = []
    headed: set[str] = set()
    for entry in candidates:
        cost = counter.count(entry.line()) + 1
        if entry.role not in headed:
            cost += counter.count(HEADINGS[entry.role]) + 1
        if cost <= room:
            room -= cost
            kept.append(entry)
            headed.add(entry.role)
    while True:
        left = len(candidates) - len(kept)
        text = render(question, kept, left)
        tokens = counter.count(text)
        if tokens <= budget or not kept:
            return Bundle(question, kept, left, tokens, budget, counter.name)
        kept.pop()


class AskReadTx(TmsTx, ReadingTx, Protocol):
    """What the bundle reads around the hits: beliefs, dependents, supersede links (TmsTx)
    and the summaries that stand for them (ReadingTx)."""


def _candidates(tx: AskReadTx, hits: Sequence[SearchHit]) -> list[Entry]:
    hit_ids = [h.belief.id for h in hits]
    if not hit_ids:
        return []
    beliefs: dict[str, Belief] = dict(tx.get_beliefs(hit_ids))
    support = _support(tx, beliefs, hit_ids[:SUPPORT_HITS])
    dependents: dict[str, list[str]] = {
        h: sorted(tx.direct_dependents(h))[:DEPENDENTS_PER_HIT] for h in hit_ids[:SUPPORT_HITS]}
    _fetch(tx, beliefs, {d for ds in dependents.values() for d in ds})
    out_named = {m for b in list(beliefs.values()) if b.truth != Truth.IN
                 for j in b.justifications for m in j.mentions()}
    _fetch(tx, beliefs, out_named)  # what an OUT belief's justifications name: why it is OUT
    covers = cover_index(tx.summary_covers(sorted(beliefs)))
    _fetch(tx, beliefs, {c.id for c in covers.values()})
    truths = {i: b.truth for i, b in beliefs.items() if b.truth is not None}
    builder = _Builder(beliefs, truths, covers, _superseders(tx, beliefs))
    for hid in hit_ids:
        builder.add(hid, Role.MATCH)
    for sid, supported in support:
        builder.add(sid, Role.SUPPORT, related=supported)
    for hid in hit_ids[:SUPPORT_HITS]:
        for did in dependents.get(hid, []):
            builder.add(did, Role.DEPENDENT, related=hid)
    return builder.entries


def _superseders(tx: TmsTx, beliefs: Mapping[str, Belief]) -> dict[str, str]:
    """For each OUT belief an IN belief gates, what supersedes it (when something does)."""
    out: dict[str, str] = {}
    for b in beliefs.values():
        if b.truth == Truth.OUT and not b.retracted and any(
                beliefs[o].truth == Truth.IN for j in b.justifications for o in j.outlist
                if o in beliefs):
            by, _ = tx.supersede_links(b.id)
            if by:
                out[b.id] = by[0]
    return out


def _fetch(tx: TmsTx, beliefs: dict[str, Belief], ids: set[str]) -> None:
    missing = sorted(ids - beliefs.keys())
    if missing:
        beliefs.update(tx.get_beliefs(missing))


def _support(tx: TmsTx, beliefs: dict[str, Belief], roots: Sequence[str]
             ) -> list[tuple[str, str]]:
    """(belief, the belief it supports) down the shallowest valid justification of each IN
    belief, level by level from `roots` towards premises, reading one level per statement
    and stopping once MAX_SUPPORT are found (a budget never holds more)."""
    out: list[tuple[str, str]] = []
    seen = set(roots)
    frontier = [r for r in roots if r in beliefs]
    while frontier and len(out) < MAX_SUPPORT:
        _fetch(tx, beliefs, {m for bid in frontier for j in beliefs[bid].justifications
                             for m in j.mentions()})
        truths = {i: b.truth for i, b in beliefs.items() if b.truth is not None}
        nxt: list[str] = []
        for bid in frontier:
            b = beliefs[bid]
            if b.truth != Truth.IN or b.is_premise:
                continue
            valid = [j for j in b.justifications if is_valid(j, truths)]
            if not valid:
                continue
            best = min(valid, key=lambda j: (max((beliefs[a].depth or 0 for a in j.antecedents
                                                  if a in beliefs), default=0), j.antecedents))
            for a in best.antecedents:
                if a not in seen and a in beliefs:
                    seen.add(a)
                    out.append((a, bid))
                    nxt.append(a)
        frontier = nxt
    return out[:MAX_SUPPORT]


class _Builder:
    def __init__(self, beliefs: Mapping[str, Belief], truths: Mapping[str, Truth],
                 covers: Mapping[str, SummaryCover], superseders: Mapping[str, str]):
        self.beliefs = beliefs
        self.superseders = superseders
        self.truths = truths
        self.covers = covers
        self.seen: set[str] = set()
        self.entries: list[Entry] = []

    def add(self, bid: str, role: str, related: str = "") -> None:
        cover = self.covers.get(bid)
        if cover is not None and cover.id != bid and self.truths.get(bid) == Truth.IN:
            bid, summary_of = cover.id, len(cover.covered)
        else:
            summary_of = len(self.covers[bid].covered) if bid in self.covers and \
                self.covers[bid].id == bid else 0
        if bid in self.seen:
            return
        b = self.beliefs.get(bid)
        if b is None or b.truth is None:
            return
        self.seen.add(bid)
        self.entries.append(Entry(
            b.id, b.text, b.truth.value, b.depth, role,
            why_out=why_out(b, self.beliefs, self.superseders.get(b.id))
            if b.truth != Truth.IN else "",
            related=related, summary_of=summary_of))


def why_out(b: Belief, beliefs: Mapping[str, Belief], superseded_by: str | None = None) -> str:
    """Why an OUT belief is OUT, in a line: retraction, a newer belief that supersedes it, a
    challenge or a review finding, a closed gate, or the antecedents that are OUT. A premise
    is gated the same way (supersede and challenge give it an outlist-only justification)."""
    if b.retracted:
        return "retracted" + (f": {b.retract_reason}" if b.retract_reason else "")
    if b.truth == Truth.UNDETERMINED:
        return "on, or resting on, a loop through outlists"
    reasons: list[str] = []
    for j in b.justifications:
        closing = [o for o in j.outlist if o in beliefs and beliefs[o].truth == Truth.IN]
        failing = [a for a in j.antecedents if a not in beliefs or beliefs[a].truth != Truth.IN]
        reasons += [_closed_by(o, beliefs[o], superseded_by) for o in closing]
        if failing:
            reasons.append("rests on " + ", ".join(failing) + " (OUT)")
    if reasons:
        return "; ".join(dict.fromkeys(reasons))
    return "OUT" if b.is_premise else "no valid justification"


def _closed_by(gate_id: str, gate: Belief, superseded_by: str | None) -> str:
    kind = gate.metadata.get("source_type")
    if gate_id == superseded_by:
        return f"superseded by {gate_id}"
    if kind == "review":
        return f"defeated by review: {gate.text}"
    if kind == "challenge":
        return f"challenged by {gate_id}: {gate.text}"
    if kind == "defence":
        return f"answered by {gate_id}: {gate.text}"
    return f"held back by {gate_id} (IN)"
