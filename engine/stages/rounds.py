"""One round of any stage in three phases: `open_round` reads what the round shows,
`ask_round` asks the model (retrying once when the reply needs it) and parses, `close_round`
validates, and with `auto` validates again and applies in ONE write transaction together
with the round's provenance. The run (engine/stages/parallel.ParallelRounds, under
engine/stages/run.run_stage) calls them, one round at a time or several asking at once.

Outcomes (engine.stages.report.Outcome): `proposed` (at least one valid item), `dry` (an
explicit "nothing", or nothing valid), `format_failure` (after the retry the reply still
needs one: not saturation), `empty` (nothing to show; the model is not called), `error` (the
model failed after its tries, or the store failed: nothing of the round applied).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import Runnable

from engine.change_records import ChangeEntry
from engine.errors import EngineError
from engine.stages.calls import CallPolicy, ModelCallFailed, call_model
from engine.stages.contract import ModelForRound
from engine.stages.provenance import RoundRecord, RunRecord
from engine.stages.report import Outcome, RoundResult
from engine.stages.stage import (
    Applied,
    Checked,
    LoopStage,
    ParsedReply,
    RoundInput,
    RunTxT,
    TxT,
)
from engine.store import Store

MAX_ECHO_CHARS = 20_000  # of a failed reply, repeated in the retry


@dataclass(frozen=True)
class RoundSettings:
    auto: bool = False
    calls: CallPolicy = CallPolicy()


def echo(reply: str) -> str:
    """The failed reply as the retry conversation repeats it: cut when huge."""
    if len(reply) <= MAX_ECHO_CHARS:
        return reply
    return reply[:MAX_ECHO_CHARS] + f"\n[... {len(reply) - MAX_ECHO_CHARS} more characters]"


@dataclass
class OpenRound:
    """A round between its read and its write: what it showed, and once asked, the parse.
    A parallel run keeps several of these in flight (engine/stages/parallel.py)."""

    result: RoundResult
    shown: RoundInput | None = None
    parsed: ParsedReply | None = None

    @property
    def settled(self) -> bool:
        """Nothing left to do but record it: empty, or failed."""
        return self.result.outcome is not None


def open_round(stage: LoopStage[TxT], n: int, read: Callable[[], RoundInput], *,
               clock: Callable[[], float] = time.monotonic) -> OpenRound:
    """Read what round `n` shows (`read`: the stage's read_round, or a parallel run's read
    around the rounds in flight)."""
    start = clock()
    opened = OpenRound(RoundResult(n=n, stage=stage.name))
    try:
        opened.shown = read()
        describe(opened.result, opened.shown)
        if opened.shown.empty:
            opened.result.outcome = Outcome.EMPTY
    except EngineError as e:
        _failed(opened.result, e)
    finally:
        opened.result.seconds += clock() - start
    return opened


def ask_round(opened: OpenRound, stage: LoopStage[TxT], model_for_round: ModelForRound,
              settings: RoundSettings, *, clock: Callable[[], float] = time.monotonic) -> None:
    """The model call (and its one format retry) and the parse. Touches only this round's
    own records, so rounds in flight may ask at once."""
    if opened.settled or opened.shown is None:
        return
    start = clock()
    try:
        opened.parsed = _ask(opened.result, stage, model_for_round, opened.shown, settings)
        record_proposals(opened.result, opened.parsed, stage)
    except (ModelCallFailed, EngineError) as e:
        _failed(opened.result, e)
    finally:
        opened.result.seconds += clock() - start


def close_round(opened: OpenRound, store: Store[RunTxT], stage: LoopStage[RunTxT],
                settings: RoundSettings, *, run: RunRecord, at: Callable[[], str],
                clock: Callable[[], float] = time.monotonic) -> RoundResult:
    """Validate, and with `auto` validate again and apply in ONE write transaction with the
    round's provenance; the outcome."""
    result, shown, parsed = opened.result, opened.shown, opened.parsed
    if opened.settled or shown is None or parsed is None:
        return result
    start = clock()
    try:
        if settings.auto:
            record = round_record(result, stage, run, seconds=result.seconds + clock() - start,
                                  at=at())
            applied = store.write(
                lambda tx: apply_round(tx, stage, result.proposals, shown, run, record),
                round_entry(stage, run, record))
        else:
            checked = (store.read(lambda tx: stage.check(tx, result.proposals, shown))
                       if result.proposals else Checked())
            applied = Applied(checked)
        record_applied(result, applied, stage)
        if parsed.needs_retry:
            result.outcome = Outcome.FORMAT_FAILURE
        else:
            result.outcome = Outcome.PROPOSED if result.valid else Outcome.DRY
    except EngineError as e:
        _failed(result, e)
    finally:
        result.seconds += clock() - start
    return result


def _failed(result: RoundResult, e: EngineError) -> None:
    result.outcome = Outcome.ERROR
    if isinstance(e, ModelCallFailed):
        result.error = str(e)
        result.calls += e.tries
        result.call_errors += list(e.errors)
        result.rate_limited += e.rate_limited
    else:
        result.error = f"{type(e).__name__}: {e}"


def apply_round(tx: RunTxT, stage: LoopStage[RunTxT], items: Sequence[object],
                shown: RoundInput | None, run: RunRecord, record: RoundRecord) -> Applied:
    """Inside one write transaction: the run (once), the round, then the stage's writes."""
    tx.create_run(run)
    tx.record_round(record)
    return stage.apply(tx, items, shown, run, record)


def round_entry(stage: LoopStage[TxT], run: RunRecord, record: RoundRecord, **args: object
                ) -> ChangeEntry:
    """A stage round's change-log entry: the op is the stage, the actor the run."""
    return ChangeEntry(stage.name, {"run": run.id, "round": record.round, **args},
                       actor=run.id)


def round_record(result: RoundResult, stage: LoopStage[TxT], run: RunRecord, *, seconds: float,
                 at: str) -> RoundRecord:
    return RoundRecord(
        run_id=run.id, round=result.n, prompt_sha256=result.prompt_sha256,
        tokens_in=result.tokens_in, tokens_out=result.tokens_out, seconds=round(seconds, 3),
        strategy=result.strategy, cluster=result.cluster, stage=stage.name, at=at)


def describe(result: RoundResult, shown: RoundInput) -> None:
    result.strategy = str(shown.details.get("strategy", ""))
    cluster = shown.details.get("cluster")
    result.cluster = cluster if isinstance(cluster, int) else None
    result.shown = shown.shown
    result.first_shown = shown.first_shown
    result.details = {k: v for k, v in shown.details.items() if k not in ("strategy", "cluster")}
    result.prompt = shown.prompt.text
    result.prompt_sha256 = shown.prompt.sha256


def record_proposals(result: RoundResult, parsed: ParsedReply, stage: LoopStage[TxT]) -> None:
    result.parse = parsed
    result.proposals = list(parsed.items)
    result.proposal_dicts = [stage.item_dict(p) for p in result.proposals]
    result.proposal_keys = [stage.item_key(p) for p in result.proposals]


def record_applied(result: RoundResult, applied: Applied, stage: LoopStage[TxT]) -> None:
    result.valid = list(applied.checked.valid)
    result.valid_keys = [stage.item_key(v) for v in result.valid]
    result.skipped = list(applied.checked.skipped)
    result.applied = list(applied.entries)
    result.change = applied.change


def _ask(result: RoundResult, stage: LoopStage[TxT], model_for_round: ModelForRound,
         shown: RoundInput, settings: RoundSettings) -> ParsedReply:
    runnable = model_for_round(shown.contract)
    messages: list[BaseMessage] = [HumanMessage(shown.prompt.text)]
    parsed = _call(result, stage, runnable, messages, shown, settings)
    if parsed.needs_retry:
        result.first_parse = parsed
        messages += [AIMessage(echo(result.responses[-1])),
                     HumanMessage(stage.retry_message(parsed, shown))]
        parsed = stage.combine(parsed, _call(result, stage, runnable, messages, shown, settings))
    return parsed


def _call(result: RoundResult, stage: LoopStage[TxT], runnable: Runnable,
          messages: Sequence[BaseMessage], shown: RoundInput, settings: RoundSettings
          ) -> ParsedReply:
    call = call_model(runnable, messages, settings.calls)
    result.calls += call.tries
    result.call_errors += list(call.errors)
    result.rate_limited += call.rate_limited
    result.tokens_in += call.tokens_in
    result.tokens_out += call.tokens_out
    result.responses.append(call.text)
    return stage.parse(call.text, shown)
