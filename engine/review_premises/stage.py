"""PremiseReviewStage: `review --premises`, the review stage's mode that checks premises'
claims against their sources, on the shared machinery (engine/stages/).

Each round reads what is due afresh (premises_due.py: IN premises with a readable pinned
source and no current premise review, most depended-on first), takes it in the run's turns
(engine/stages/turns.py: what the model passed over goes behind the rest, at most k
showings), shows up to `budget` of them
with the source lines around each pin (premises_window.py, premises_prompt.py), reads one
verdict per premise (premises_verdicts.py: grounded quotes; the one retry quotes its
diagnostics), checks them against the graph and the sources as they are now and, with --auto
or on accept, applies them in the round's write transaction (premises_apply.py).
"""
from __future__ import annotations

from typing import Protocol

from collections.abc import Sequence
from dataclasses import dataclass

from engine.review_premises.apply import PremiseApplyTx, check_verdicts, write_premise_review
from engine.review_premises.due import PremiseDueTx, PremiseUnderReview, read_premises
from engine.review_premises.prompt import RETRY, build_prompt, json_reply
from engine.review_premises.proposals_file import render
from engine.review_premises.verdicts import PremiseParse, PremiseVerdict, parse_reply
from engine.review_premises.window import DEFAULT_BUDGET
from engine.sources.reader import SourceReader
from engine.stages.contract import RoundContract
from engine.stages.provenance import ProvenanceTx, RoundRecord, RunRecord
from engine.stages.item_reader import RetriesItems
from engine.stages.stage import Applied, Checked, Prompt, ReadsAround, RoundInput, Stage
from engine.stages.turns import TakesTurnsBase
from engine.review_premises.records import PremiseReviewTx
from engine.store import Store
from engine.tms import now

STRATEGY = "premises, most depended-on first"


@dataclass(frozen=True)
class PremiseSettings:
    budget: int = 20  # premises per round
    ids: tuple[str, ...] = ()
    review_all: bool = False  # review again what has a current review
    apply_suggestions: bool = False
    domain: str | None = None
    source_tokens: int = DEFAULT_BUDGET  # source lines shown per premise, in tokens


@dataclass(frozen=True)
class PremiseRound:
    shown: tuple[PremiseUnderReview, ...]


class PremiseReviewStage(RetriesItems[PremiseParse], TakesTurnsBase[PremiseVerdict],
                         ReadsAround[PremiseDueTx]):
    name = "review"
    retry = RETRY

    def __init__(self, reader: SourceReader, settings: PremiseSettings = PremiseSettings(), *,
                 since: str | None = None):
        super().__init__()
        self.reader = reader
        self.settings = settings
        self.since = since or now()  # with review_all, reviews older than this are redone

    def read_round_besides(self, store: Store[PremiseDueTx], n: int,
                           busy: frozenset[str]) -> RoundInput:
        """`busy`: premises shown by rounds in flight (--parallel), left out. A verdict on
        one premise changes no other premise's source or review stamp, so rounds in flight
        never judge the same premise and end as a sequential run would."""
        s = self.settings
        due = store.read(lambda tx: read_premises(
            tx, self.reader, ids=s.ids, budget=s.source_tokens, review_all=s.review_all,
            since=self.since))
        turn = self.take(due.due, _premise_id, s.budget, busy=busy)
        shown = tuple(turn.chosen)
        prompt = build_prompt(shown, due_total=len(turn.queue), budget=s.source_tokens,
                              domain=s.domain)
        details: dict[str, object] = {"strategy": STRATEGY, "mode": "premises",
                                   "due": len(due.due), "with_source": due.with_source,
                                   **{k.replace(" ", "_"): v for k, v in due.counts.items()
                                      if k != "due"},
                                   **turn.details}
        details["split"] = sum(p.window.split for p in shown)
        return RoundInput(
            prompt=Prompt(prompt.text, prompt.sha256),
            contract=RoundContract(prompt.ids, json_reply(shown), stage=self.name),
            shown=prompt.ids, empty=not shown, details=details, context=PremiseRound(shown),
            first_shown=self.turns.show(prompt.ids))

    def parse(self, reply: str, shown: RoundInput | None) -> PremiseParse:
        ctx = shown.context if shown is not None else None
        expected = ({p.id: p for p in ctx.shown} if isinstance(ctx, PremiseRound) else None)
        return parse_reply(reply, expected)

    def check(self, tx: PremiseReviewTx, items: Sequence[PremiseVerdict],
              shown: RoundInput | None) -> Checked[PremiseVerdict]:
        return check_verdicts(tx, items, self.reader, budget=self.settings.source_tokens).checked

    def apply(self, tx: PremiseApplyTx, items: Sequence[PremiseVerdict],
              shown: RoundInput | None,
              run: RunRecord, record: RoundRecord) -> Applied:
        return write_premise_review(tx, items, self.reader, run, record,
                                    budget=self.settings.source_tokens,
                                    apply_suggestions=self.settings.apply_suggestions,
                                    at=record.at or now())

    def render_file(self, items: Sequence[PremiseVerdict], run: RunRecord, command: str) -> str:
        return render(items, run, command)


def _premise_id(p: PremiseUnderReview) -> str:
    return p.id


# The store parts premise review reads and writes (mypy holds the stage to them).
class PremiseStageTx(PremiseDueTx, PremiseApplyTx, ProvenanceTx, Protocol):
    """The store parts a premise review run reads (what is due) and writes (verdicts,
    provenance)."""


_STAGE: type[Stage[PremiseVerdict, PremiseParse, PremiseStageTx]] = PremiseReviewStage
