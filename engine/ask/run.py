"""One question, start to end, for the CLI and the MCP tool: the AskStage run as one round of
the shared machinery (report, provenance, CITED edges), and the answer with the cited
beliefs as they are now. A model failure, or no usable answer after the one retry, raises
ModelError (exit code 2): the retrieved context is never passed off as an answer."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.embedding.cache import Embedder
from engine.ask.answer import AskAnswer
from engine.ask.loop import tool_rounds
from engine.ask.prompt import ToolMode
from engine.ask.stage import AskSettings, AskStage, AskStageTx
from engine.errors import ModelError
from engine.model import Belief

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
from engine.stages.calls import CallPolicy
from engine.stages.contract import ModelForRound
from engine.stages.report import ReportFile
from engine.stages.run import CostFunction, Progress, RunOptions, RunResult, run_stage
from engine.stages.stage import LoopStage
from engine.store import Store
from engine.tokens import ESTIMATE, TokenCounter


@dataclass(frozen=True)
class AskBackend:
    """What the entry point hands in: the per-contract model, the chat model itself when it
    calls tools natively, its tokenizer when it has one, and how calls are made."""

    model_for_round: ModelForRound
    model: str = ""
    tool_chat: BaseChatModel | None = None
    tokenizer: TokenCounter | None = None
    calls: CallPolicy = field(default_factory=CallPolicy)
    cost: CostFunction | None = None


@dataclass
class AskResult:
    answer: AskAnswer
    cited: dict[str, Belief]
    stage: AskStage
    run: RunResult

    @property
    def run_id(self) -> str:
        return self.run.run_id

    def as_dict(self) -> dict[str, object]:
        cited = [{"id": c.id, "role": c.role,
                  "truth": b.truth.value if b.truth else None, "depth": b.depth,
                  "text": b.text}
                 for c in self.answer.citations if (b := self.cited.get(c.id)) is not None]
        return {**self.answer.as_dict(), "cited": cited, "run_id": self.run_id,
                "shown": list(self.stage.bundle.ids) if self.stage.bundle else [],
                "fetched": sorted(self.stage.session.fetched),
                "report": str(self.run.report_path) if self.run.report_path else None}


def ask(store: Store[AskStageTx], question: str, backend: AskBackend, *, budget: int,
        max_tool_rounds: int, domain: str | None = None, embedder: Embedder | None = None,
        params: dict[str, object] | None = None, report_file: ReportFile | None = None,
        progress: Progress | None = None) -> AskResult:
    mode = ToolMode.NATIVE if backend.tool_chat is not None else ToolMode.JSON
    stage = AskStage(AskSettings(question, budget=budget, max_tool_rounds=max_tool_rounds,
                                 tool_mode=mode, domain=domain),
                     counter=backend.tokenizer or ESTIMATE, embedder=embedder)
    model_for_round = tool_rounds(stage.current_tools, max_rounds=max_tool_rounds,
                                  tool_chat=backend.tool_chat, base=backend.model_for_round)
    options = RunOptions(model=backend.model, auto=True, max_rounds=1, calls=backend.calls,
                         params={**(params or {}), "question": question, "budget": budget,
                                 "max_tool_rounds": max_tool_rounds, "tool_mode": mode})
    as_run: LoopStage[AskStageTx] = stage  # the parts the run's transactions have
    result = run_stage(store, as_run, model_for_round, options, report_file=report_file,
                       progress=progress, cost=backend.cost)
    report = result.report
    last = report.rounds[-1] if report.rounds else None
    if report.error or last is None or not last.valid:
        why = report.error or "the model gave no usable answer after one retry"
        if last is not None and last.parse is not None and not last.valid and not report.error:
            why += ": " + "; ".join(d.reason for d in last.parse.diagnostics)
        raise ModelError(why, model=backend.model, exit_code=2)
    answer: AskAnswer = last.valid[0]
    cited = store.read(lambda tx: tx.get_beliefs([c.id for c in answer.citations]))
    return AskResult(answer, cited, stage, result)
