"""`compact`: a summary of the network that fits a token budget, for an agent's context.

Everything is read in ONE read transaction, each section ordered and cut in Cypher
(engine/reading/records.py), so the same graph always gives the same bytes. The budget is shared
round-robin: the first line of every section, then the second of every section, and so on,
so no section starves the others; a section stops at its first line that does not fit. A
--topic scope is the beliefs that bear on the topic as search and ask rank them
(engine/reading/ranking.py), at most TOPIC_POOL from each index. A
section's heading is written only with its first line, the empty sections are named on one
line and the footer names only what it must, so a small budget goes to beliefs rather than
to headings. A belief is listed once, in the first section that has it; a belief an IN
summary covers is replaced by the summary (once). The footer says what counted the tokens
and which sections left lines out, and how many.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from engine import defaults
from engine.agents.records import AgentTx
from engine.errors import InvalidInput, NotFound
from engine.model import check_id
from engine.reading.compact.lines import belief_line, nogood_line
from engine.reading.ranking import Meaning, RankingTx, rank_in
from engine.reading.records import NetworkCounts, ReadingTx, Row, Section, SummaryCover, cover_index
from engine.stages.records import Gap, GapsTx
from engine.tokens import ESTIMATE, TokenCounter

DEFAULT_BUDGET = defaults.COMPACT_BUDGET
MIN_CANDIDATES = 5
MAX_CANDIDATES = 200
TOKENS_PER_LINE_GUESS = 12  # the shortest line: how many candidates a budget could hold
TOPIC_POOL = 200  # matches a --topic scope takes from each index, by the shared ranking
# Premises with the most direct dependents, whose transitive impact is counted to rank them:
# counting it for every premise of a 100k network is the sum of all their cones.
PREMISE_POOL = 24
GAPS_SHOWN = 3  # the newest gaps repair's research recorded, under the heading
GAPS_READ = 50  # read to find those about the scope
GAP_CHARS = 160

TITLES = {
    Section.NOGOODS: "Nogoods and contradictions",
    Section.CHANGES: "Went OUT recently, and why",
    Section.GATED: "OUT only by a closed gate",
    Section.PREMISES: "Load-bearing premises",
    Section.DEEPEST: "Deepest conclusions",
    Section.DEFEATED: "Defeated by review, or challenged",
}


class CompactTx(ReadingTx, GapsTx, AgentTx, RankingTx, Protocol):
    """What compact reads: the sections and scopes (ReadingTx), repair's gaps, a
    namespace's beliefs (AgentTx), the beliefs bearing on a topic (RankingTx)."""


def section_heading(section: Section) -> str:
    """`## 4. Load-bearing premises`: numbered in the fixed order, whichever are shown."""
    return f"## {list(Section).index(section) + 1}. {TITLES[section]}"


@dataclass(frozen=True)
class CompactOptions:
    budget: int = DEFAULT_BUDGET
    topic: tuple[str, ...] = ()
    around: str | None = None
    steps: int = 2
    namespace: str | None = None  # only an imported agent's beliefs (engine/agents/namespace.py)
    gaps_command: str = ""  # the command that lists the gaps, as the caller names it


@dataclass
class ShownLine:
    id: str
    line: str
    truth: str
    depth: int | None
    impact: int | None
    summary_of: int = 0

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, "truth": self.truth, "depth": self.depth,
                "impact": self.impact, "summary_of": self.summary_of, "line": self.line}


@dataclass
class Candidate:
    row: Row
    summary_of: int = 0


@dataclass
class SectionResult:
    section: Section
    total: int
    candidates: list[Candidate] = field(default_factory=list)
    shown: list[ShownLine] = field(default_factory=list)
    covered: int = 0  # rows this section had that a summary line stands for
    source: str = ""

    @property
    def left_out(self) -> int:
        return max(0, self.total - len(self.shown) - self.covered)

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"section": self.section.value, "title": TITLES[self.section],
                               "total": self.total, "left_out": self.left_out,
                               "lines": [s.as_dict() for s in self.shown]}
        if self.source:
            out["source"] = self.source
        return out


@dataclass
class Compact:
    text: str
    tokens: int
    budget: int
    estimator: str
    scope: str
    sections: list[SectionResult]

    def as_dict(self) -> dict[str, object]:
        return {"budget": self.budget, "tokens": self.tokens, "estimator": self.estimator,
                "scope": self.scope, "sections": [s.as_dict() for s in self.sections],
                "text": self.text}


def check_options(options: CompactOptions) -> None:
    if options.budget < 1:
        raise InvalidInput(f"--budget must be a positive number of tokens, not {options.budget}",
                           field="budget", value=options.budget)
    if sum(bool(x) for x in (options.topic, options.around, options.namespace)) > 1:
        raise InvalidInput("give one of --topic, --around, --namespace", field="scope")
    if options.around is not None:
        check_id(options.around)
    if options.steps < 0:
        raise InvalidInput(f"--steps must be 0 or more, not {options.steps}", field="steps")
    if options.topic and not any(w.strip() for w in options.topic):
        raise InvalidInput("--topic needs at least one word", field="topic")


def compact_in(tx: CompactTx, options: CompactOptions,
               counter: TokenCounter = ESTIMATE, *, meaning: Meaning | None = None
               ) -> Compact:
    """The summary, read through one transaction's view (a --topic by meaning as well
    with the topic's `meaning`)."""
    check_options(options)
    scope, scope_text = _scope(tx, options, meaning)
    counts = tx.network_counts()
    covers = cover_index(tx.summary_covers(scope))
    limit = max(MIN_CANDIDATES, min(MAX_CANDIDATES, options.budget // TOKENS_PER_LINE_GUESS))
    sections = _candidates(tx, scope, limit, covers)
    impacts: dict[str, int] = {}
    premises = next(s for s in sections if s.section is Section.PREMISES)
    premises.candidates = premises.candidates[:PREMISE_POOL]
    impacts.update(tx.impacts(c.row.id for c in premises.candidates))
    premises.candidates.sort(key=lambda c: (-impacts.get(c.row.id, 0), c.row.id))
    packer = _Packer(tx, options.budget, counter, impacts)
    heading = _heading(counts, scope_text) + _gap_lines(tx, scope, options.gaps_command)
    return packer.pack(sections, heading, scope_text, premise_pool=len(premises.candidates))


def _gap_lines(tx: GapsTx, scope: list[str] | None, command: str) -> list[str]:
    """The premises the network lacks (repair's research), newest first: for the scope's
    beliefs only when a scope is given."""
    gaps, total = tx.gaps(GAPS_READ)
    if scope is not None:
        wanted = set(scope)
        gaps = [g for g in gaps if g.for_belief in wanted]
        total = len(gaps)
    if not gaps:
        return []
    lines = [f"Gaps (premises the network lacks, from repair): {total}"
             + (f"; `{command}` lists them" if command else "")]
    return lines + [_gap_line(g) for g in gaps[:GAPS_SHOWN]]


def _gap_line(g: Gap) -> str:
    text = " ".join(g.text.split())
    if len(text) > GAP_CHARS:
        text = text[:GAP_CHARS - 3] + "..."
    return f"- gap for {g.for_belief} [{g.truth}]: {text}"


def _scope(tx: CompactTx, options: CompactOptions, meaning: Meaning | None
           ) -> tuple[list[str] | None, str]:
    if options.namespace:
        from engine.agents.import_agent import require_namespace

        require_namespace(tx, options.namespace)
        ids = tx.namespace_ids(options.namespace)
        return ids, f"namespace {options.namespace} ({len(ids)} beliefs)"
    if options.topic:
        words = [w for t in options.topic for w in t.split()]
        ranked = rank_in(tx, words, meaning=meaning, include_out=True, pool=TOPIC_POOL).ranked
        ids = [r.id for r in ranked]
        how = ", by meaning too" if meaning is not None else ""
        return ids, f"topic {' '.join(words)!r} ({len(ids)} beliefs{how})"
    if options.around is not None:
        near = tx.around_ids(options.around, options.steps)
        if near is None:
            raise NotFound("belief", options.around)
        return near, (f"around {options.around}, {options.steps} steps ({len(near)} beliefs)")
    return None, "the whole network"


def _candidates(tx: ReadingTx, scope: list[str] | None, limit: int,
                covers: dict[str, SummaryCover]) -> list[SectionResult]:
    summary_sizes = {c.id: len(c.covered) for c in covers.values()}
    seen: set[str] = set()
    results: list[SectionResult] = []
    for section in Section:
        rows = tx.section_rows(section, scope, limit)
        result = SectionResult(section, rows.total, source=rows.source)
        for row in rows.rows:
            if section is Section.NOGOODS:
                result.candidates.append(Candidate(row))
                continue
            cover = covers.get(row.id)
            if cover is not None and cover.id != row.id:
                result.covered += 1
                if cover.id in seen:
                    continue
                seen.add(cover.id)
                result.candidates.append(Candidate(
                    Row(cover.id, cover.text, "IN", cover.depth), len(cover.covered)))
                continue
            if row.id in seen:
                result.covered += 1  # listed in an earlier section
                continue
            seen.add(row.id)
            result.candidates.append(Candidate(row, summary_sizes.get(row.id, 0)))
        results.append(result)
    return results


def _heading(counts: NetworkCounts, scope_text: str) -> list[str]:
    line = (f"# Memory: {counts.beliefs} beliefs ({counts.in_} IN, {counts.out} OUT), "
            f"{counts.nogoods} nogoods; scope: {scope_text}")
    return [line]


class _Packer:
    def __init__(self, tx: ReadingTx, budget: int, counter: TokenCounter,
                 impacts: dict[str, int]):
        self.tx = tx
        self.budget = budget
        self.counter = counter
        self.impacts = impacts

    def cost(self, line: str) -> int:
        return self.counter.count(line) + 1  # the newline

    def pack(self, sections: list[SectionResult], heading: list[str], scope_text: str, *,
             premise_pool: int) -> Compact:
        premises_total = next(s.total for s in sections if s.section is Section.PREMISES)
        pool_note = premise_pool if premises_total > premise_pool else 0
        worst = self._render(sections, heading, used=self.budget, pool=pool_note, worst=True)
        fixed = self.counter.count(worst) + 1
        if fixed > self.budget:
            raise InvalidInput(
                f"--budget {self.budget} is too small for the headings and footer alone "
                f"(they take {fixed} tokens)", field="budget", value=self.budget)
        room = self.budget - fixed
        open_sections = [s for s in sections if s.candidates]
        turn = 0
        while open_sections:
            wanted = [s.candidates[turn].row.id for s in open_sections
                      if s.section is not Section.NOGOODS and turn < len(s.candidates)]
            missing = [i for i in wanted if i not in self.impacts]
            if missing:
                self.impacts.update(self.tx.impacts(missing))
            still_open = []
            for s in open_sections:
                if turn >= len(s.candidates):
                    continue
                shown = self._line(s, s.candidates[turn])
                cost = self.cost(shown.line)
                if not s.shown:  # a section's heading is written with its first line
                    cost += self.cost(section_heading(s.section))
                if cost > room:
                    continue  # this section is full; the others may still have room
                room -= cost
                s.shown.append(shown)
                if turn + 1 < len(s.candidates):
                    still_open.append(s)
            open_sections = still_open
            turn += 1
        return self._finish(sections, heading, scope_text, pool_note)

    def _finish(self, sections: list[SectionResult], heading: list[str], scope_text: str,
                pool: int) -> Compact:
        while True:
            draft = self._render(sections, heading, used=self.budget, pool=pool)
            used = self.counter.count(self._render(
                sections, heading, used=self.counter.count(draft), pool=pool))
            text = self._render(sections, heading, used=used, pool=pool)
            tokens = self.counter.count(text)
            if tokens <= self.budget or not any(s.shown for s in sections):
                return Compact(text, tokens, self.budget, self.counter.name, scope_text,
                               sections)
            # A tokenizer that is not additive over lines: give up the last line added.
            fullest = max((s for s in sections if s.shown),
                          key=lambda s: (len(s.shown), -list(Section).index(s.section)))
            fullest.shown.pop()

    def _line(self, section: SectionResult, candidate: Candidate) -> ShownLine:
        row = candidate.row
        if section.section is Section.NOGOODS:
            return ShownLine(row.id, nogood_line(row), row.truth, None, None)
        impact = self.impacts.get(row.id, 0)
        return ShownLine(row.id, belief_line(row, impact, summary_of=candidate.summary_of),
                         row.truth, row.depth, impact, candidate.summary_of)

    def _render(self, sections: list[SectionResult], heading: list[str], *, used: int,
                pool: int, worst: bool = False) -> str:
        lines = list(heading)
        empty = [s.section.value for s in sections if s.total == 0]
        if empty:
            lines.append(f"(none in scope: {', '.join(empty)})")
        for s in sections:
            if s.shown and not worst:
                lines.append(section_heading(s.section))
                lines.extend(x.line for x in s.shown)
        # `worst`: the longest the footer can be, whatever is shown (the packer's reserve)
        left = ", ".join(f"{s.section.value} {n}" for s in sections
                         if (n := s.total if worst else s.left_out)) or "nothing"
        lines.append(f"-- {used}/{self.budget} tokens by {self.counter.name}")
        lines.append(f"-- left out: {left}")
        shown = {s.section for s in sections if s.shown or (worst and s.total)}
        notes = []
        if shown - {Section.NOGOODS}:
            notes.append("impact: beliefs resting on it, transitively")
        if Section.CHANGES in shown:
            changes = next(s for s in sections if s.section is Section.CHANGES)
            notes.append(f"changes: {changes.source or 'retractions'}")
        if pool and Section.PREMISES in shown:
            notes.append(f"premises: top {pool} by direct dependents, ranked by impact")
        covered = sum(s.covered for s in sections)
        if covered:
            notes.append(f"{covered if not worst else sum(s.total for s in sections)} under "
                         "a summary or an earlier section")
        if notes:
            lines.append("-- " + "; ".join(notes))
        return "\n".join(lines) + "\n"
