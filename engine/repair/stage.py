"""RepairStage: repair of what review (or a person's challenge) defeated, as a stage of the
shared machinery (engine/stages/).

Each round reads the defeated justifications afresh (due.py), takes them in the run's turns
(engine/stages/turns.py: what the model passed over goes behind the rest, at most k
showings), shows up to `budget` of them
with review's finding and candidate bridges (bridges.py, the hybrid search), asks for one
JSON repair per justification (prompt.py), reads the reply (parser.py, which also checks
the bridges and texts against the graph so the one retry can quote what is wrong), checks
the repairs again (validate.py) and, with --auto or on accept, applies them in the round's
write transaction (apply.py).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from engine.embedding.cache import Embedder

from engine.repair import parser
from engine.repair.apply import RepairApplyTx, write_repairs
from engine.reading.search import HybridSearchTx
from engine.repair.bridges import candidates_for, query_text, query_words
from engine.repair.due import Defeated, DueList, read_due, with_findings
from engine.repair.prompt import RETRY, RepairCase, build_prompt, json_reply
from engine.repair.proposals_file import render
from engine.repair.records import RepairTx
from engine.repair.repairs import Repair
from engine.repair.validate import RepairCheckTx, check_repairs, graph_problems
from engine.stages.arguments import ArgumentsTx, read_under_review
from engine.stages.contract import RoundContract
from engine.stages.item_reader import RetriesItems
from engine.stages.provenance import ProvenanceTx, RoundRecord, RunRecord
from engine.stages.stage import Applied, Checked, Prompt, RoundInput, Stage
from engine.stages.turns import TakesTurnsBase, Taken
from engine.store import Store
from engine.tms.records import TmsTx
from engine.tms import now

STRATEGY = "most depended on first"


@dataclass(frozen=True)
class RepairSettings:
    budget: int = 10  # defeated justifications per round
    bridges: int = 5  # candidate bridges shown per justification
    domain: str | None = None


@dataclass(frozen=True)
class RepairRound:
    """What a round keeps for parse: what it showed, and how to reach the graph."""

    cases: tuple[RepairCase, ...]
    expected: Mapping[str, Mapping[int, str]] = field(default_factory=dict)
    store: Store[RepairCheckTx] | None = None


def _context(shown: RoundInput | None) -> RepairRound | None:
    return shown.context if shown is not None and isinstance(shown.context, RepairRound) else None


class RepairDueTx(RepairTx, TmsTx, Protocol):
    """What the due justifications read: the defeats and findings (RepairTx), the claims."""


class RepairCaseTx(ArgumentsTx, HybridSearchTx, Protocol):
    """What a repair case reads: the argument as review shows it (ArgumentsTx) and the
    beliefs that could bridge it (HybridSearchTx)."""


def cases_of(tx: RepairCaseTx, chosen: Sequence[Defeated], words: Mapping[str, Sequence[str]],
             vectors: Mapping[str, Sequence[float]], limit: int) -> list[RepairCase]:
    material = read_under_review(tx, {d.belief for d in chosen})
    named = {d.key: (material[d.belief].justifications[d.position - 1].antecedent_ids
                     if d.belief in material and material[d.belief].justification(d.position)
                     else ()) for d in chosen}
    found = candidates_for(tx, chosen, named, words, vectors, limit)
    out = []
    for d in chosen:
        b = material.get(d.belief)
        j = b.justification(d.position) if b is not None else None
        if b is not None and j is not None:
            out.append(RepairCase(d, b.text, b.truth, j, tuple(found[d.key])))
    return out


class RepairStage(RetriesItems[parser.RepairParse], TakesTurnsBase[Repair]):
    name = "repair"
    retry = RETRY

    def __init__(self, settings: RepairSettings = RepairSettings(), *,
                 embedder: Embedder | None = None):
        super().__init__()
        self.settings = settings
        self.embedder = embedder  # None: bridges by their words only

    # --- a round ---------------------------------------------------------------------
    def read_round(self, store: Store[RepairStageTx], n: int) -> RoundInput:
        s = self.settings

        def first(tx: RepairDueTx) -> tuple[DueList, Taken[Defeated], list[Defeated],
                                            dict[str, str]]:
            due = read_due(tx)
            turn = self.take(due.due, _key, s.budget)
            chosen = with_findings(tx, turn.chosen)
            claims = {b.id: b.text for b in tx.get_beliefs({d.belief for d in chosen}).values()}
            return due, turn, chosen, claims

        due, turn, chosen, claims = store.read(first)
        texts = {d.key: query_text(d, claims.get(d.belief, "")) for d in chosen}
        words = {k: query_words(t) for k, t in texts.items()}
        vectors: dict[str, Sequence[float]] = {}
        if self.embedder is not None and texts:  # before the transaction: it is slow
            keys = [k for k in texts if words[k]]
            vectors = dict(zip(keys, self.embedder.embed([texts[k] for k in keys])))
        cases = tuple(store.read(lambda tx: cases_of(tx, chosen, words, vectors, s.bridges)))
        prompt = build_prompt(cases, due_total=len(turn.queue), domain=s.domain)
        expected: dict[str, dict[int, str]] = {}
        for c in cases:
            expected.setdefault(c.defeated.belief, {})[c.defeated.position] = c.claim
        allowed = sorted({c.defeated.belief for c in cases}
                         | {h.belief.id for c in cases for h in c.bridges}
                         | {a for c in cases for a in c.justification.antecedent_ids})
        details = {"strategy": STRATEGY, "due": len(due.due), "defeated": due.defeated,
                   "answered": due.answered,
                   "bridges": sum(len(c.bridges) for c in cases),
                   **turn.details}
        return RoundInput(
            prompt=Prompt(prompt.text, prompt.sha256),
            contract=RoundContract(tuple(allowed), json_reply(cases), stage=self.name),
            shown=prompt.keys, empty=not cases, details=details,
            context=RepairRound(cases, expected, store), first_shown=self.turns.show(prompt.keys))

    def parse(self, reply: str, shown: RoundInput | None) -> parser.RepairParse:
        ctx = _context(shown)
        check = None
        if ctx is not None and ctx.store is not None:
            store = ctx.store

            def check(repairs: Sequence[Repair]):
                return store.read(lambda tx: graph_problems(tx, repairs))
        return parser.parse_reply(reply, ctx.expected if ctx else None, check)

    def check(self, tx: RepairCheckTx, items: Sequence[Repair], shown: RoundInput | None
              ) -> Checked[Repair]:
        return check_repairs(tx, items)[0]

    def apply(self, tx: RepairApplyTx, items: Sequence[Repair], shown: RoundInput | None,
              run: RunRecord, record: RoundRecord) -> Applied:
        return write_repairs(tx, items, run, record, at=record.at or now())

    # --- reports and files -----------------------------------------------------------
    def render_file(self, items: Sequence[Repair], run: RunRecord, command: str) -> str:
        return render(items, run, command)


def _key(d: Defeated) -> str:
    return d.key


class RepairStageTx(RepairCheckTx, RepairApplyTx, RepairCaseTx, ProvenanceTx, Protocol):
    """The store parts repair reads (what is due, its cases: a RepairDueTx and a
    RepairCaseTx) and writes (repairs, provenance)."""


_STAGE: type[Stage[Repair, parser.RepairParse, RepairStageTx]] = RepairStage
