"""ReviewStage: the review critic as a stage of the shared machinery (engine/stages/).

Each round reads what is due afresh (engine.review.due), takes it in the run's turns
(engine/stages/turns.py: what the model passed over goes behind the rest, at most k showings;
what waited only on beliefs given up is shown once), shows up to `budget` beliefs with every
justification (prompt.py), asks for one JSON verdict per justification (schema.py restricts
ids and numbers to those shown), reads the reply (parser.py; the one retry quotes its
diagnostics), checks the verdicts against the graph (validate.py) and, with --auto or on
accept, applies them in the round's write transaction (apply.py). The round's details name
the beliefs held back and the due beliefs each waits on.
"""
from __future__ import annotations

from typing import Protocol

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from engine.review import parser
from engine.review.apply import ReviewApplyTx, write_review
from engine.review.due import DEPENDENCY, IMPACT, DueList, DueOptions, ReviewDueTx, read_due
from engine.stages.arguments import UnderReview, read_under_review
from engine.review.prompt import RETRY, build_prompt
from engine.review.proposals_file import render
from engine.review.schema import json_reply
from engine.review.validate import read_and_check
from engine.review.verdicts import Verdict
from engine.stages.contract import RoundContract
from engine.stages.item_reader import RetriesItems
from engine.stages.provenance import ProvenanceTx, RoundRecord, RunRecord
from engine.stages.records import ArgumentsTx
from engine.stages.stage import Applied, Checked, Prompt, ReadsAround, RoundInput, Stage
from engine.stages.turns import (
    HELD_BACK,
    RELEASED,
    WAITING_ON,
    ShownRound,
    TakesTurnsBase,
    Taken,
)
from engine.store import Store
from engine.tms import now

STRATEGY = "dependency order"
STRATEGIES = {DEPENDENCY: STRATEGY, IMPACT: "impact order"}


@dataclass(frozen=True)
class ReviewSettings:
    budget: int = 20  # beliefs per round
    ids: tuple[str, ...] = ()
    review_all: bool = False  # review again what has a current review
    apply_suggestions: bool = False
    domain: str | None = None
    min_depth: int = 0
    wait: bool = True  # a belief waits for what it rests on to be reviewed (False: --no-wait)
    order: str = DEPENDENCY  # or IMPACT: the due beliefs most rested on first (--order impact)


HELD_NAMED = 200  # held-back beliefs a round's details name (with what each waits on)


@dataclass(frozen=True)
class ReviewRound:
    """What a round keeps for parse, check and apply: what it showed."""

    shown: tuple[UnderReview, ...]
    hashes: Mapping[str, str] = field(default_factory=dict)
    expected: Mapping[str, Mapping[int, tuple[str, ...]]] = field(default_factory=dict)


def _context(shown: ShownRound | None) -> ReviewRound | None:
    return shown.context if shown is not None and isinstance(shown.context, ReviewRound) else None


class ReviewStage(RetriesItems[parser.ReviewParse], TakesTurnsBase[Verdict],
                  ReadsAround[ReviewDueTx]):
    name = "review"
    retry = RETRY

    def __init__(self, settings: ReviewSettings = ReviewSettings(), *, since: str | None = None):
        super().__init__()
        self.settings = settings
        self.since = since or now()  # with review_all, reviews older than this are redone

    # --- a round ---------------------------------------------------------------------
    def read_round_besides(self, store: Store[ReviewDueTx], n: int,
                           busy: frozenset[str]) -> RoundInput:
        """`busy`: beliefs shown by rounds in flight (--parallel), left out. What rests on
        them is not due until they are reviewed, so the rounds never overlap."""
        s = self.settings
        options = DueOptions(ids=s.ids, min_depth=s.min_depth, review_all=s.review_all,
                             since=self.since, wait=s.wait, given_up=self.turns.given_up(),
                             order=s.order)

        def work(tx: ReviewDueTx) -> tuple[DueList, Taken[str], tuple[UnderReview, ...]]:
            listed = read_due(tx, options)
            due = dataclasses.replace(listed, due=tuple(i for i in listed.due if i not in busy))
            turn = self.take(due.due, str, s.budget, once=due.released)
            unread = [i for i in turn.chosen if i not in due.material]
            fresh = read_under_review(tx, unread) if unread else {}
            return due, turn, tuple((due.material.get(i) or fresh[i]) for i in turn.chosen)

        due, turn, shown = store.read(work)
        prompt = build_prompt(shown, due_total=len(turn.queue), domain=s.domain)
        allowed = sorted({b.id for b in shown}
                         | {a for b in shown for j in b.justifications for a in j.antecedent_ids})
        context = ReviewRound(
            shown=shown,
            hashes={b.id: b.sha256 for b in shown},
            expected={b.id: {j.position: j.antecedent_ids for j in b.justifications}
                      for b in shown})
        details = {"strategy": STRATEGIES[s.order], "due": len(due.due), "in_scope": due.in_scope,
                   "current": due.current, HELD_BACK: due.waiting,
                   WAITING_ON: held_back(due), RELEASED: sorted(due.released),
                   **turn.details,
                   **({"impact": {i: due.impact.get(i, 0) for i in turn.chosen}}
                      if s.order == IMPACT else {}),
                   "justifications": len(prompt.justification_keys)}
        return RoundInput(
            prompt=Prompt(prompt.text, prompt.sha256),
            contract=RoundContract(tuple(allowed), json_reply(shown), stage=self.name),
            shown=prompt.belief_ids, empty=not shown, details=details, context=context,
            first_shown=self.turns.show(prompt.belief_ids))

    def judged(self, shown: ShownRound, valid: Sequence[Verdict]) -> set[str]:
        """A belief is judged when every justification shown of it has a valid verdict."""
        ctx = _context(shown)
        answered: dict[str, set[int]] = {}
        for v in valid:
            answered.setdefault(v.belief, set()).add(v.justification)
        expected = ctx.expected if ctx else {}
        return {b for b, positions in answered.items() if set(expected.get(b, ())) <= positions}

    def parse(self, reply: str, shown: RoundInput | None) -> parser.ReviewParse:
        ctx = _context(shown)
        parsed = parser.parse_reply(reply, ctx.expected if ctx else None)
        if ctx is not None:  # each verdict carries the hash of what it judged (for files)
            parsed.items = [dataclasses.replace(v, shown_sha256=ctx.hashes[v.belief])
                            for v in parsed.items]
        return parsed

    def check(self, tx: ArgumentsTx, items: Sequence[Verdict], shown: RoundInput | None
              ) -> Checked[Verdict]:
        ctx = _context(shown)
        return read_and_check(tx, items, ctx.hashes if ctx else {})[0]

    def apply(self, tx: ReviewApplyTx, items: Sequence[Verdict], shown: RoundInput | None,
              run: RunRecord, record: RoundRecord) -> Applied:
        ctx = _context(shown)
        return write_review(tx, items, ctx.hashes if ctx else {}, run, record,
                            apply_suggestions=self.settings.apply_suggestions,
                            at=record.at or now())

    # --- reports and files -----------------------------------------------------------
    def render_file(self, items: Sequence[Verdict], run: RunRecord, command: str) -> str:
        return render(items, run, command)


def held_back(due: DueList) -> dict[str, list[str]]:
    """The held-back beliefs a round's details name (the first HELD_NAMED by id), each with
    the unreviewed beliefs it waits on."""
    named = sorted(due.waiting_on)[:HELD_NAMED]
    return {b: list(due.waiting_on[b]) for b in named}


# The store parts review reads and writes (mypy holds the stage to them).
class ReviewStageTx(ReviewDueTx, ReviewApplyTx, ProvenanceTx, Protocol):
    """The store parts a review run reads (what is due) and writes (verdicts, provenance)."""


_STAGE: type[Stage[Verdict, parser.ReviewParse, ReviewStageTx]] = ReviewStage
