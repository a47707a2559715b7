"""One derive round: read what the round shows, build the prompt, ask the model (retrying
once on a format failure), parse, validate, and with `auto` apply everything in one write
transaction with the round's provenance.

Outcomes: `proposed` (at least one valid proposal), `dry` (an explicit NO PROPOSALS, or every
proposal failed validation), `format_failure` (after the retry still nothing parsable and no
NO PROPOSALS: not saturation), `empty` (no IN premise to show; the model is not called),
`error` (the model failed after its tries, or the store failed: nothing of the round applied).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from engine.derive.apply import RoundWrite, write_round
from engine.stages.calls import CallPolicy, ModelCallFailed, call_model
from engine.stages.contract import ModelForRound, RoundContract
from engine.derive.parser import ParseResult, parse_reply
from engine.derive.prompt import Prompt, PromptOptions, build_prompt
from engine.derive.proposals import FORMAT, NO_PROPOSALS, Proposal
from engine.derive.validate import Skip, Validation, ValidationRules, read_facts, validate_proposals
from engine.derive.view import RoundView, read_view
from engine.errors import EngineError
from engine.model import Change, Truth
from engine.store import DeriveRoundRecord, DeriveRunRecord, Store

if TYPE_CHECKING:
    from engine.derive.sampling import Sampler

PROPOSED, DRY, FORMAT_FAILURE, EMPTY, ERROR = "proposed", "dry", "format_failure", "empty", "error"
MAX_ECHO_CHARS = 20_000  # of a failed reply, repeated in the format-failure retry
MAX_LISTED_PROBLEMS = 20  # diagnostics quoted in the retry message


@dataclass
class RoundResult:
    n: int  # 1-based
    strategy: str = ""
    cluster: int | None = None
    sample: tuple[str, ...] = ()
    network: dict[str, int] = field(default_factory=dict)
    prompt: str = ""
    prompt_sha256: str = ""
    responses: list[str] = field(default_factory=list)
    parse: ParseResult | None = None
    first_parse: ParseResult | None = None  # the reply that was retried, when it was
    proposals: list[Proposal] = field(default_factory=list)
    valid: list[Proposal] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    applied: list[tuple[str, Truth | None]] = field(default_factory=list)
    change: Change = field(default_factory=Change)
    tokens_in: int = 0
    tokens_out: int = 0
    calls: int = 0  # model invocations, failed tries included
    seconds: float = 0.0
    outcome: str = ""
    error: str | None = None
    call_errors: list[str] = field(default_factory=list)

    @property
    def is_dry(self) -> bool:
        return self.outcome in (DRY, EMPTY)

    def to_report(self) -> dict[str, Any]:
        return {
            "round": self.n,
            "outcome": self.outcome,
            "strategy": self.strategy,
            "cluster": self.cluster,
            "sample": list(self.sample),
            "network": dict(self.network),
            "prompt": self.prompt,
            "prompt_sha256": self.prompt_sha256,
            "response": self.responses[-1] if self.responses else "",
            "responses": list(self.responses),
            "parse": self.parse.as_dict() if self.parse else None,
            "format_retry": self.first_parse.as_dict() if self.first_parse else None,
            "proposals_found": len(self.proposals),
            "valid": len(self.valid),
            "proposals": [dict(p.as_dict(), valid=any(p is v for v in self.valid))
                          for p in self.proposals],
            "skipped": [{"id": s.id, "reason": s.reason, "line": s.line} for s in self.skipped],
            "applied": [{"id": i, "truth_value": t.value if t else None} for i, t in self.applied],
            "change": self.change.as_dict(),
            "tokens": {"input": self.tokens_in, "output": self.tokens_out},
            "calls": self.calls,
            "call_errors": list(self.call_errors),
            "seconds": round(self.seconds, 3),
            "error": self.error,
        }


@dataclass(frozen=True)
class RoundSettings:
    budget: int = 300
    auto: bool = False
    prompt: PromptOptions = PromptOptions()
    rules: ValidationRules = ValidationRules()
    calls: CallPolicy = CallPolicy()


def echo(reply: str) -> str:
    """The failed reply as the retry conversation repeats it: cut when huge."""
    if len(reply) <= MAX_ECHO_CHARS:
        return reply
    return reply[:MAX_ECHO_CHARS] + f"\n[... {len(reply) - MAX_ECHO_CHARS} more characters]"


def format_retry_message(parsed: ParseResult) -> str:
    lines = [f"Your reply had no proposal in the required format and no `{NO_PROPOSALS}` line."]
    problems = parsed.rejected + parsed.notes
    if problems:
        lines.append("What was wrong:")
        lines += [f"- line {d.line}: {d.reason}" if d.line else f"- {d.reason}"
                  for d in problems[:MAX_LISTED_PROBLEMS]]
        if len(problems) > MAX_LISTED_PROBLEMS:
            lines.append(f"- ... and {len(problems) - MAX_LISTED_PROBLEMS} more")
    lines.append("")
    lines.append("Reply again with only the proposals, in exactly this format:")
    lines.append("")
    lines.append(FORMAT)
    return "\n".join(lines)


def network_stats(view: RoundView) -> dict[str, int]:
    return {"in": view.status.in_, "derived": view.status.derived,
            "max_depth": view.status.max_depth}


def run_round(
    store: Store,
    model_for_round: ModelForRound,
    sampler: "Sampler",
    settings: RoundSettings,
    *,
    n: int,
    run: DeriveRunRecord,
    at: Callable[[], str],
    clock: Callable[[], float] = time.monotonic,
) -> RoundResult:
    """Run round `n` (1-based). Model and store failures end in outcome `error`, with nothing
    of the round applied; they do not raise. Bugs do."""
    start = clock()
    result = RoundResult(n=n)
    try:
        view = read_view(store, sampler, n - 1, budget=settings.budget,
                         topic=settings.prompt.topic)
        prompt = build_prompt(view, settings.prompt)
        _describe_view(result, view, prompt)
        if not view.sample_ids:
            result.outcome = EMPTY
            return result
        parsed = _ask(result, model_for_round, prompt, settings)
        result.parse = parsed
        result.proposals = list(parsed.proposals)
        write = _validate_and_maybe_apply(store, result, settings, run, prompt, at,
                                          seconds=clock() - start)
        result.valid = write.validation.valid
        result.skipped = write.validation.skipped
        result.applied = write.applied
        result.change = write.change
        if parsed.is_format_failure:
            result.outcome = FORMAT_FAILURE
        else:
            result.outcome = PROPOSED if result.valid else DRY
    except ModelCallFailed as e:
        result.outcome = ERROR
        result.error = str(e)
        result.calls += e.tries
        result.call_errors += list(e.errors)
    except EngineError as e:
        result.outcome = ERROR
        result.error = f"{type(e).__name__}: {e}"
    finally:
        result.seconds = clock() - start
    return result


def _describe_view(result: RoundResult, view: RoundView, prompt: Prompt) -> None:
    result.strategy = view.sample.strategy
    result.cluster = view.sample.cluster
    result.sample = view.sample_ids
    result.network = network_stats(view)
    result.prompt = prompt.text
    result.prompt_sha256 = prompt.sha256


def _ask(result: RoundResult, model_for_round: ModelForRound, prompt: Prompt,
         settings: RoundSettings) -> ParseResult:
    contract = RoundContract(allowed_ids=prompt.allowed_ids,
                             min_antecedents=settings.rules.min_antecedents)
    runnable = model_for_round(contract)
    messages: list[BaseMessage] = [HumanMessage(prompt.text)]
    parsed = _call(result, runnable, messages, settings)
    if parsed.is_format_failure:
        result.first_parse = parsed
        messages += [AIMessage(echo(result.responses[-1])),
                     HumanMessage(format_retry_message(parsed))]
        parsed = _call(result, runnable, messages, settings)
    return parsed


def _call(result: RoundResult, runnable, messages, settings: RoundSettings) -> ParseResult:
    call = call_model(runnable, messages, settings.calls)
    result.calls += call.tries
    result.call_errors += list(call.errors)
    result.tokens_in += call.tokens_in
    result.tokens_out += call.tokens_out
    result.responses.append(call.text)
    return parse_reply(call.text)


def _validate_and_maybe_apply(store: Store, result: RoundResult, settings: RoundSettings,
                              run: DeriveRunRecord, prompt: Prompt,
                              at: Callable[[], str], *, seconds: float) -> RoundWrite:
    proposals = result.proposals
    if not settings.auto:
        validation = store.read(lambda tx: validate_proposals(
            proposals, read_facts(tx, proposals), settings.rules)) if proposals else Validation()
        return RoundWrite(validation)
    record = DeriveRoundRecord(
        run_id=run.id,
        round=result.n,
        strategy=result.strategy,
        cluster=result.cluster,
        prompt_sha256=prompt.sha256,
        tokens_in=result.tokens_in,
        tokens_out=result.tokens_out,
        seconds=round(seconds, 3),
    )
    stamp = at()
    return store.write(lambda tx: write_round(tx, proposals, settings.rules, run, record, at=stamp))
