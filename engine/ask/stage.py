"""AskStage: `ask` as a stage of the shared machinery (engine/stages/), one round per
question. Its own parts: the retrieval bundle (read_round), the answer parser and its
diagnoses, the retry message, and the apply, which writes no belief: only the question and
answer on the round and a CITED edge per citation, in the round's one write transaction.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, cast

from engine.embedding.cache import Embedder
from engine.ask import answer as answers
from engine.ask.answer import AskAnswer
from engine.ask.prompt import ToolMode, build_prompt, reply_schema, retry_text
from engine.ask.records import AskTx, CitedBelief
from engine.ask.retrieval import DEFAULT_BUDGET, AskReadTx, Bundle, retrieve
from engine.ask.tools import AskSession, AskTools, AskToolsTx
from engine.model import Truth
from engine.stages.contract import RoundContract
from engine.stages.echo import ECHO_REASON
from engine.stages.provenance import ProvenanceTx, RoundRecord, RunRecord
from engine.stages.stage import (
    Action,
    Applied,
    AppliedEntry,
    Checked,
    Parsed,
    ParsedReply,
    Prompt,
    RoundInput,
    Skip,
    Stage,
)
from engine.store import Store
from engine.tms.records import TmsTx
from engine.tokens import ESTIMATE, TokenCounter

MAX_TOOL_ROUNDS = 3


@dataclass(frozen=True)
class AskSettings:
    question: str
    budget: int = DEFAULT_BUDGET
    max_tool_rounds: int = MAX_TOOL_ROUNDS
    tool_mode: str = ToolMode.JSON
    domain: str | None = None


class AskApplyTx(TmsTx, AskTx, Protocol):
    """What an answer's round writes: the question and answer, a CITED edge per belief
    cited (AskTx), each with its label read (TmsTx)."""


class AskReadsTx(AskReadTx, AskToolsTx, Protocol):
    """What an ask round reads: the bundle, then what the model's tools fetch."""


class AskStageTx(AskReadsTx, AskApplyTx, ProvenanceTx, Protocol):
    """The store parts an ask run reads and writes (the answer, its citations, provenance)."""


class AskStage:
    name = "ask"

    def __init__(self, settings: AskSettings, *, counter: TokenCounter = ESTIMATE,
                 embedder: Embedder | None = None, at: str = ""):
        self.settings = settings
        self.counter = counter
        self.embedder = embedder
        self.session = AskSession()
        self.bundle: Bundle | None = None
        self.tools: AskTools | None = None
        self._store: Store[AskStageTx] | None = None

    def current_tools(self) -> AskTools:
        if self.tools is None:
            raise RuntimeError("the round has not been read yet")
        return self.tools

    # --- the Stage protocol ------------------------------------------------------------
    def read_round(self, store: Store[AskReadsTx], n: int) -> RoundInput:
        s = self.settings
        bundle = retrieve(store, s.question, budget=s.budget, counter=self.counter,
                          embedder=self.embedder)
        self.bundle = bundle
        self.session = AskSession(shown={e.id: e.truth for e in bundle.entries})
        self.tools = AskTools(store, self.session, embedder=self.embedder)
        mode = s.tool_mode if s.max_tool_rounds > 0 else ToolMode.NONE
        text = build_prompt(s.question, bundle, mode=mode, max_rounds=s.max_tool_rounds,
                            domain=s.domain)
        allowed = self.session.allowed_ids()
        contract = RoundContract(allowed, reply_schema(allowed, tools=mode == ToolMode.JSON),
                                 stage=self.name)
        return RoundInput(
            prompt=Prompt.of(text),
            contract=contract, shown=bundle.ids,
            details={"strategy": "question", "question": s.question,
                     "bundle_tokens": bundle.tokens, "budget": bundle.budget,
                     "estimator": bundle.estimator, "left_out": bundle.left_out,
                     "tool_mode": mode},
            context=self.session)

    def parse(self, reply: str, shown: RoundInput | None) -> Parsed[AskAnswer]:
        session = shown.context if shown is not None and isinstance(
            shown.context, AskSession) else self.session
        return answers.parse_answer(reply, session)

    def retry_message(self, parsed: ParsedReply[AskAnswer], shown: RoundInput) -> str:
        return retry_text(list(parsed.diagnostics), self.session.allowed_ids())

    def combine(self, first: ParsedReply[AskAnswer], second: ParsedReply[AskAnswer]
                ) -> Parsed[AskAnswer]:
        return answers.combine(cast(Parsed[AskAnswer], first), cast(Parsed[AskAnswer], second))

    def check(self, tx: object, items: Sequence[AskAnswer], shown: RoundInput | None
              ) -> Checked[AskAnswer]:
        # An answer that only copied the format's example says nothing: never shown as one.
        echoed = [i for i in items if any(ECHO_REASON in p for p in i.problems)]
        return Checked(valid=[i for i in items if i not in echoed],
                       skipped=[Skip("answer", ECHO_REASON) for _ in echoed])

    def apply(self, tx: AskApplyTx, items: Sequence[AskAnswer], shown: RoundInput | None,
              run: RunRecord, record: RoundRecord) -> Applied:
        checked = self.check(tx, items, shown)
        if not items:
            return Applied(checked)
        answer = items[0]
        ids = [c.id for c in answer.citations]
        beliefs = tx.get_beliefs(ids)
        cited = [CitedBelief(c.id, c.role, (beliefs[c.id].truth or Truth.OUT).value,
                             beliefs[c.id].text)
                 for c in answer.citations if c.id in beliefs]
        tx.record_answer(run.id, record.round, question=self.settings.question,
                         status=answer.status, answer=answer.answer, citations=cited,
                         at=record.at)
        return Applied(checked, entries=[
            AppliedEntry(c.id, Action.CITED, c.truth, {"role": c.role}) for c in cited])

    def item_key(self, item: AskAnswer) -> str:
        return "answer"  # one answer a round

    def item_dict(self, item: AskAnswer) -> dict[str, object]:
        return {**item.as_dict(), "id": "answer", "fetched": sorted(self.session.fetched),
                "tool_calls": list(self.session.tool_calls)}

    def render_file(self, items: Sequence[AskAnswer], run: RunRecord, command: str) -> str:
        return json.dumps([i.as_dict() for i in items], indent=2, ensure_ascii=False) + "\n"


_STAGE: type[Stage[AskAnswer, Parsed[AskAnswer], AskStageTx]] = AskStage
