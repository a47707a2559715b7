"""What `ask` shows the model, found without one, and what the MCP `context_for` gives an
agent: the beliefs that bear on the question, most relevant first, packed to a token budget.

The order is the ranking every reader shares (engine/reading/ranking.py): full text and, with
an embedder, meaning, fused by RRF, then raised by proximity in the justification graph to
the best matches. What a match rests on and what rests on it come in by their own relevance
to the question, not by a slot of their own: a small budget goes to what the question asks
about. Near duplicates (two beliefs of the same label whose embeddings are as close as the
dedup stage's threshold for a likely duplicate, or, without embeddings, whose word sets
overlap as much as dedup --by-id asks of ids) take one line: the better ranked one, naming
the other ("also said by").

Each line keeps its provenance, so the model can cite why a belief holds: a derived IN
belief names what it rests on (the antecedents of its shallowest justification that holds);
an OUT belief says why it is OUT (the retraction reason, the review finding that defeats it,
the gate that closes it, the newer belief that supersedes it, or what fails). A belief an IN
summary covers is shown as the summary, once. Everything is read in one read transaction:
the same graph and question give the same bundle.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol

from engine import defaults
from engine.embedding.cache import Embedder, text_sha256
from engine.embedding.records import NEAR_DUPLICATE_COSINE, NEAR_DUPLICATE_JACCARD
from engine.errors import InvalidInput
from engine.model import Belief, Truth
from engine.reading.compact.lines import depth_text, shorten_words
from engine.reading.ranking import Meaning, Ranked, RankingTx, meaning_of, rank_in
from engine.reading.records import ReadingTx, SummaryCover, cover_index
from engine.store import Store
from engine.tms.records import TmsTx
from engine.tms.semantics import is_valid
from engine.tokens import ESTIMATE, TokenCounter

if TYPE_CHECKING:
    from engine.optional import Matrix, Vector

DEFAULT_BUDGET = defaults.CONTEXT_BUDGET
POOL = 100  # matches read from each index for a question
TEXT_CHARS = 400
RESTS_ON_SHOWN = 3  # antecedents a line names; more are counted
DUPLICATES_SHOWN = 3  # near duplicates a line names; more are counted
REACH = 2  # budgets' worth of bare lines of the best ranked beliefs turned into entries
_WORD = re.compile(r"[a-z0-9]+")


class Role:
    """How a belief stands to the best matches: one of them names it in a justification
    (support: an antecedent, or a gate of its outlist), it names one of them (dependent), or
    neither (match); every one of them matches the question itself."""

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
    related: str = ""  # for support: the match it supports; for a dependent: what it rests on
    summary_of: int = 0
    rests_on: tuple[str, ...] = ()  # a derived IN belief: its holding justification's antecedents
    duplicates: tuple[str, ...] = ()  # near duplicates this line stands for
    score: float = 0.0

    def line(self) -> str:
        facts = [self.truth, f"depth {depth_text(self.depth)}"]
        if self.summary_of:
            facts.append(f"summary of {self.summary_of}")
        out = f"- {self.id} [{', '.join(facts)}]: {shorten_words(self.text, TEXT_CHARS)}"
        if self.why_out:
            out += f" (OUT because: {shorten_words(self.why_out, 200)})"
        if self.rests_on:
            out += f" (rests on: {_some(self.rests_on, RESTS_ON_SHOWN)})"
        also = [d for d in self.duplicates if d not in self.rests_on]  # named once
        if also:
            out += f" (also said by: {_some(also, DUPLICATES_SHOWN)})"
        return out

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, "text": self.text, "truth": self.truth, "depth": self.depth,
                "role": self.role, "why_out": self.why_out, "related": self.related,
                "summary_of": self.summary_of, "rests_on": list(self.rests_on),
                "duplicates": list(self.duplicates), "score": round(self.score, 6)}


def _some(ids: Sequence[str], shown: int) -> str:
    more = len(ids) - shown
    return ", ".join(ids[:shown]) + (f" and {more} more" if more > 0 else "")


@dataclass
class Bundle:
    question: str
    entries: list[Entry] = field(default_factory=list)
    left_out: int = 0  # entries found that did not fit the budget
    tokens: int = 0
    budget: int = DEFAULT_BUDGET
    estimator: str = ESTIMATE.name
    ranked_by: str = "words"  # words, or words and meaning

    @property
    def ids(self) -> tuple[str, ...]:
        """Every belief the bundle names as a line, or as a near duplicate of one."""
        return tuple(dict.fromkeys(i for e in self.entries for i in (e.id, *e.duplicates)))

    def text(self) -> str:
        return render(self.question, self.entries, self.left_out)

    def as_dict(self) -> dict[str, object]:
        return {"question": self.question, "budget": self.budget, "tokens": self.tokens,
                "estimator": self.estimator, "ranked_by": self.ranked_by,
                "left_out": self.left_out, "entries": [e.as_dict() for e in self.entries],
                "text": self.text()}


HEADING = "## Beliefs that bear on it, most relevant first"


def render(question: str, entries: Sequence[Entry], left_out: int) -> str:
    lines = [f"# Question: {' '.join(question.split())}"]
    if entries:
        lines.append(HEADING)
        lines.extend(e.line() for e in entries)
    else:
        lines.append("(no belief matches the question)")
    if left_out:
        lines.append(f"({left_out} more related beliefs did not fit the budget)")
    return "\n".join(lines) + "\n"


def check_budget(budget: int) -> int:
    if budget < 1:
        raise InvalidInput(f"--budget must be a positive number of tokens, not {budget}",
                           field="budget", value=budget)
    return budget


def retrieve(store: Store[AskReadTx], question: str, *, budget: int = DEFAULT_BUDGET,
             counter: TokenCounter = ESTIMATE, embedder: Embedder | None = None) -> Bundle:
    """The bundle for `question`, read in one transaction: ranked by words, and by meaning
    with `embedder` (the memory's embeddings must then be current: MissingEmbeddings)."""
    if not question.strip():
        raise InvalidInput("the question is empty", field="question")
    check_budget(budget)
    meaning = meaning_of(embedder, question)  # before the transaction: it is slow
    return store.read(lambda tx: bundle_in(tx, question, budget=budget, counter=counter,
                                           meaning=meaning))


class AskReadTx(RankingTx, TmsTx, ReadingTx, Protocol):
    """What the bundle reads: the ranking (RankingTx), supersede links (TmsTx) and the
    summaries that stand for beliefs (ReadingTx)."""


def bundle_in(tx: AskReadTx, question: str, *, budget: int = DEFAULT_BUDGET,
              counter: TokenCounter = ESTIMATE, meaning: Meaning | None = None,
              pool: int = POOL) -> Bundle:
    """The bundle inside a read transaction the caller holds."""
    ranking = rank_in(tx, question.split(), meaning=meaning, include_out=True, pool=pool)
    considered = _within_reach(ranking.ranked, budget)
    candidates = _entries(tx, considered, ranking.links)
    bundle = pack(question, candidates, budget, counter,
                  more=len(ranking.ranked) - len(considered))
    bundle.ranked_by = "words and meaning" if meaning is not None else "words"
    return bundle


def _within_reach(ranked: Sequence[Ranked], budget: int) -> Sequence[Ranked]:
    """The best ranked beliefs whose bare lines (id and text, by the estimate, which counts
    high) add up to REACH budgets: the rest could not be shown, so nothing more is read for
    them."""
    spent = 0
    for n, r in enumerate(ranked):
        spent += ESTIMATE.count(f"- {r.id} [IN, depth 0]: {r.belief.text[:TEXT_CHARS]}") + 1
        if spent > REACH * budget:
            return ranked[:n + 1]
    return ranked


def pack(question: str, candidates: Sequence[Entry], budget: int,
         counter: TokenCounter, more: int = 0) -> Bundle:
    """The candidates in order, each kept when its line still fits `budget`; the rendered
    text is counted whole at the end, and lines are given back until it fits (a tokenizer
    need not count a text as the sum of its lines). `more`: beliefs ranked after the
    candidates, counted among those left out."""
    fixed = counter.count(render(question, [], len(candidates) + more)) + 1
    room = budget - fixed - (counter.count(HEADING) + 1)
    kept: list[Entry] = []
    for entry in candidates:
        cost = counter.count(entry.line()) + 1
        if cost <= room:
            room -= cost
            kept.append(entry)
    while True:
        left = len(candidates) - len(kept) + more
        text = render(question, kept, left)
        tokens = counter.count(text)
        if tokens <= budget or not kept:
            return Bundle(question, kept, left, tokens, budget, counter.name)
        kept.pop()


def _entries(tx: AskReadTx, ranked: Sequence[Ranked], links: Mapping[str, frozenset[str]]
             ) -> list[Entry]:
    """The ranked beliefs as bundle entries, best first: near duplicates folded into the
    better ranked one, a covered belief shown as its summary. One read of the beliefs and
    of what their justifications name (provenance, why OUT)."""
    if not ranked:
        return []
    ids = [r.id for r in ranked]
    beliefs = dict(tx.get_beliefs(sorted({*ids, *(m for i in ids for m in links.get(i, ()))})))
    covers = cover_index(tx.summary_covers(ids))
    _fetch(tx, beliefs, {c.id for c in covers.values()})
    truths = {i: b.truth for i, b in beliefs.items() if b.truth is not None}
    shown = [*ids, *sorted({c.id for c in covers.values()})]
    builder = _Builder(beliefs, truths, covers, _superseders(tx, beliefs, shown),
                       _Likeness(_current_vectors(tx, shown, beliefs)), links)
    for r in ranked:
        builder.add(r)
    return builder.entries


def _current_vectors(tx: AskReadTx, ids: Sequence[str], beliefs: Mapping[str, Belief]
                     ) -> dict[str, Vector]:
    """The unit vectors of those of `ids` whose stored embedding was computed from their
    text as it is now (any model: one model makes a memory's vectors)."""
    stored = tx.embeddings(ids)
    if not stored:
        return {}
    from engine.optional import numpy_module

    np = numpy_module("embeddings")
    out: dict[str, Vector] = {}
    for i, e in stored.items():
        b = beliefs.get(i)
        if b is not None and e.sha256 == text_sha256(b.text):
            v = np.asarray(e.vector, dtype=np.float32)
            norm = float(np.linalg.norm(v))
            if norm:
                out[i] = v / norm
    return out


class _Likeness:
    """Whether two beliefs say the same thing: the cosine of their embeddings against the
    dedup stage's threshold when both have a current one, else the overlap of their words
    against dedup --by-id's. The cosines of every pair are one matrix product."""

    def __init__(self, vectors: Mapping[str, Vector]) -> None:
        self._row = {i: n for n, i in enumerate(vectors)}
        self._cosines: Matrix | None = None
        if vectors:
            from engine.optional import numpy_module

            matrix = numpy_module("embeddings").stack(list(vectors.values()))
            self._cosines = matrix @ matrix.T
        self._words: dict[str, frozenset[str]] = {}

    def first_twin(self, b: Belief, among: Sequence[Entry]) -> int | None:
        """The position in `among` of the first entry saying what `b` says, if any."""
        mine = self._row.get(b.id)
        if mine is not None and among and self._cosines is not None:
            rows = [self._row.get(e.id) for e in among]
            with_vectors = [(n, r) for n, r in enumerate(rows) if r is not None]
            if with_vectors:
                near = self._cosines[mine, [r for _, r in with_vectors]]
                for (n, _), cosine in zip(with_vectors, near):
                    if cosine >= NEAR_DUPLICATE_COSINE:
                        return n
            others = [n for n, r in enumerate(rows) if r is None]
        else:
            others = list(range(len(among)))
        words = self._word_set(b.id, b.text)
        for n in others:
            if _jaccard(words, self._word_set(among[n].id, among[n].text)) \
                    >= NEAR_DUPLICATE_JACCARD:
                return n
        return None

    def _word_set(self, bid: str, text: str) -> frozenset[str]:
        found = self._words.get(bid)
        if found is None:
            found = self._words[bid] = frozenset(w for w in _WORD.findall(text.lower())
                                                 if len(w) > 2)
        return found


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def _superseders(tx: TmsTx, beliefs: Mapping[str, Belief], ids: Sequence[str]
                 ) -> dict[str, str]:
    """For each OUT belief of `ids` an IN belief gates, what supersedes it (when something
    does)."""
    out: dict[str, str] = {}
    for b in (beliefs[i] for i in ids if i in beliefs):
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


class _Builder:
    def __init__(self, beliefs: Mapping[str, Belief], truths: Mapping[str, Truth],
                 covers: Mapping[str, SummaryCover], superseders: Mapping[str, str],
                 likeness: _Likeness, links: Mapping[str, frozenset[str]]):
        self.beliefs = beliefs
        self.truths = truths
        self.covers = covers
        self.superseders = superseders
        self.likeness = likeness
        self.links = links
        self.seen: set[str] = set()
        self.entries: list[Entry] = []
        self._by_truth: dict[str, list[int]] = {}  # truth -> positions of its entries

    def add(self, r: Ranked) -> None:
        bid = r.id
        cover = self.covers.get(bid)
        if cover is not None and cover.id != bid and self.truths.get(bid) == Truth.IN:
            bid, summary_of = cover.id, len(cover.covered)
        else:
            summary_of = len(self.covers[bid].covered) if bid in self.covers and \
                self.covers[bid].id == bid else 0
        b = self.beliefs.get(bid)
        if bid in self.seen or b is None or b.truth is None:
            return
        self.seen.add(bid)
        same_label = self._by_truth.setdefault(b.truth.value, [])
        twin = self.likeness.first_twin(b, [self.entries[n] for n in same_label])
        if twin is not None:
            at = same_label[twin]
            kept = self.entries[at]
            self.entries[at] = replace(kept, duplicates=(*kept.duplicates, bid))
            return
        role, related = self._role(r)
        same_label.append(len(self.entries))
        self.entries.append(Entry(
            b.id, b.text, b.truth.value, b.depth, role,
            why_out=why_out(b, self.beliefs, self.superseders.get(b.id))
            if b.truth != Truth.IN else "",
            related=related, summary_of=summary_of, rests_on=self._rests_on(b),
            score=r.score))

    def _role(self, r: Ranked) -> tuple[str, str]:
        """How the belief relates to the best match one justification step from it."""
        for seed in r.near:
            if r.id in self.links.get(seed, ()):
                return Role.SUPPORT, seed
            if seed in self.links.get(r.id, ()):
                return Role.DEPENDENT, seed
        return Role.MATCH, ""

    def _rests_on(self, b: Belief) -> tuple[str, ...]:
        """The antecedents of the shallowest justification of an IN belief that holds."""
        if b.truth != Truth.IN or b.is_premise:
            return ()
        valid = [j for j in b.justifications if is_valid(j, self.truths)]
        if not valid:
            return ()
        best = min(valid, key=lambda j: (max((self.beliefs[a].depth or 0 for a in j.antecedents
                                              if a in self.beliefs), default=0), j.antecedents))
        return tuple(best.antecedents)


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
