"""NegativesStage: which beliefs state a problem, on the shared machinery (engine/stages/).

Each round reads what is due afresh (due.py: IN beliefs without a verdict on their text, with
a problem word unless `every`), shows up to `budget` of them (prompt.py), reads one verdict
per belief (verdicts.py; the one retry quotes its diagnostics), checks them against the graph
as it is now and, with --auto or on accept, writes them in the round's write transaction
(apply.py). What the model passes over waits behind the rest (engine/stages/turns.py). Rounds
may run in parallel: a verdict on one belief changes no other's due-ness.
"""
from __future__ import annotations

from typing import Protocol

from collections.abc import Sequence
from dataclasses import dataclass

from engine.embedding.cache import text_sha256
from engine.negatives.apply import check_verdicts, write_verdicts
from engine.negatives.due import read_due
from engine.negatives.records import NegativeTx
from engine.negatives.prompt import RETRY, build_prompt, json_reply
from engine.negatives.proposals_file import render
from engine.negatives.verdicts import NegativeParse, NegativeVerdict, parse_reply
from engine.stages.contract import RoundContract
from engine.stages.item_reader import RetriesItems
from engine.stages.records import NegativeCandidate
from engine.stages.provenance import ProvenanceTx, RoundRecord, RunRecord
from engine.stages.stage import Applied, Checked, ReadsAround, RoundInput, Stage
from engine.stages.turns import TakesTurnsBase
from engine.store import Store
from engine.tms import now

NAME = "negatives"
STRATEGY = "IN beliefs without a verdict on their text, by id"


@dataclass(frozen=True)
class NegativeSettings:
    budget: int = 40  # beliefs per round
    ids: tuple[str, ...] = ()  # only these beliefs
    every: bool = False  # send beliefs without a problem word too
    redo: bool = False  # judge again what has a verdict on its text as it is
    domain: str | None = None


class NegativesStage(RetriesItems[NegativeParse], TakesTurnsBase[NegativeVerdict],
                      ReadsAround[NegativeTx]):
    name = NAME
    retry = RETRY

    def __init__(self, settings: NegativeSettings = NegativeSettings()):
        super().__init__()
        self.settings = settings
        self.run_id = ""  # the run this stage applies for, once it has applied a round

    def read_round_besides(self, store: Store[NegativeTx], n: int,
                           busy: frozenset[str]) -> RoundInput:
        """`busy`: beliefs shown by rounds in flight (--parallel), left out."""
        s = self.settings
        due = store.read(lambda tx: read_due(tx, ids=s.ids, every=s.every, redo=s.redo,
                                             this_run=self.run_id))
        turn = self.take(due.due, _belief_id, s.budget, busy=busy)
        shown = turn.chosen
        ids = tuple(c.id for c in shown)
        return RoundInput(
            prompt=build_prompt(shown, due_total=len(turn.queue), domain=s.domain),
            contract=RoundContract(ids, json_reply(ids), stage=self.name), shown=ids,
            empty=not shown,
            details={"strategy": STRATEGY, "due": len(turn.queue), "in": due.in_beliefs,
                     "current": due.current, "no_problem_word": due.no_cue, **turn.details},
            context={c.id: text_sha256(c.text) for c in shown},
            first_shown=self.turns.show(ids))

    def parse(self, reply: str, shown: RoundInput | None) -> NegativeParse:
        expected = shown.context if shown is not None else None
        return parse_reply(reply, expected if isinstance(expected, dict) else None)

    def check(self, tx: NegativeTx, items: Sequence[NegativeVerdict], shown: RoundInput | None
              ) -> Checked[NegativeVerdict]:
        return check_verdicts(tx, items)[0]

    def apply(self, tx: NegativeTx, items: Sequence[NegativeVerdict], shown: RoundInput | None,
              run: RunRecord, record: RoundRecord) -> Applied:
        self.run_id = run.id
        return write_verdicts(tx, items, run, record, at=record.at or now())

    def render_file(self, items: Sequence[NegativeVerdict], run: RunRecord, command: str) -> str:
        return render(items, run, command)


def _belief_id(c: NegativeCandidate) -> str:
    return c.id


# The store parts the negatives stage reads and writes (mypy holds the stage to them).
class NegativeStageTx(NegativeTx, ProvenanceTx, Protocol):
    """The store parts a negatives run reads and writes, and its provenance."""


_STAGE: type[Stage[NegativeVerdict, NegativeParse, NegativeStageTx]] = NegativesStage
