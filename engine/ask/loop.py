"""The tool rounds of `ask`, inside the one model call the machinery makes (so --timeout and
the call's tries cover them): a Runnable that lets the model call the read-only tools at most
`max_rounds` times before its answer.

Two ways, chosen by the entry point from the back-end: the provider's own tool calling
(langchain-core `bind_tools`, ToolMessages back), or, for back-ends without it (the
grammar-bound local model, `--structured`, a replay), a JSON reply that is either a tool
request or the answer, decoded under a schema rebuilt after every tool call so that the ids
a tool returned become citable.
"""
from __future__ import annotations

import json
from collections.abc import Callable

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.runnables import Runnable, RunnableLambda

from engine.ask.prompt import reply_schema
from engine.ask.tools import AskTools, tool_schemas
from engine.stages.replies import json_values
from engine.stages.calls import reply_text, usage
from engine.stages.contract import ModelForRound, RoundContract

MAX_TOOL_RESULT_CHARS = 12_000
LAST_ROUND = ("You have used every tool round: answer now, with the JSON object only.")


def tool_request(text: str) -> tuple[str, object] | None:
    """(tool name, its input) when the reply asks for a tool, else None."""
    for value in json_values(text):
        if isinstance(value, dict):
            tool = value.get("tool")
            if isinstance(tool, str) and tool.strip().lower() not in ("", "none"):
                return tool.strip(), value.get("tool_input", value.get("args"))
    return None


def tool_args(name: str, given: object) -> dict[str, object]:
    """A JSON-mode tool input (a string, or already an object) as the tool's arguments."""
    if isinstance(given, dict):
        return given
    text = "" if given is None else str(given).strip()
    if name == "search":
        return {"words": text}
    if name == "what_if":
        operation, _, rest = text.partition(" ")
        return {"operation": operation, "id": rest.strip()}
    return {"id": text}


def _result_text(result: object) -> str:
    text = json.dumps(result, ensure_ascii=False, default=str)
    if len(text) > MAX_TOOL_RESULT_CHARS:
        text = text[:MAX_TOOL_RESULT_CHARS] + f"... [{len(text) - MAX_TOOL_RESULT_CHARS} more]"
    return text


class _Usage:
    def __init__(self) -> None:
        self.tokens_in = 0
        self.tokens_out = 0

    def add(self, message: object) -> None:
        tin, tout = usage(message)
        self.tokens_in += tin
        self.tokens_out += tout

    def answer(self, text: str) -> AIMessage:
        return AIMessage(content=text, usage_metadata={
            "input_tokens": self.tokens_in, "output_tokens": self.tokens_out,
            "total_tokens": self.tokens_in + self.tokens_out})


def tool_rounds(tools_of: Callable[[], AskTools], *, max_rounds: int,
                tool_chat: BaseChatModel | None = None,
                base: ModelForRound | None = None) -> ModelForRound:
    """The ModelForRound of an ask round: native tool calling with `tool_chat`, else the
    JSON protocol through `base` (the back-end's own per-contract model)."""

    def for_round(contract: RoundContract) -> Runnable[list[BaseMessage], BaseMessage]:
        if tool_chat is not None:
            return RunnableLambda(lambda messages: _native(tool_chat, messages, tools_of(),
                                                           max_rounds))
        if base is None:
            raise ValueError("tool_rounds needs tool_chat or base")
        return RunnableLambda(lambda messages: _json(base, messages, tools_of(), max_rounds,
                                                     contract.stage))

    return for_round


def _native(chat: BaseChatModel, messages: list[BaseMessage], tools: AskTools,
            max_rounds: int) -> AIMessage:
    bound = chat.bind_tools(tool_schemas())
    convo = list(messages)
    spent = _Usage()
    for step in range(max_rounds + 1):
        reply = bound.invoke(convo)
        spent.add(reply)
        calls = list(getattr(reply, "tool_calls", None) or [])
        if not calls or step == max_rounds:
            return spent.answer(reply_text(reply))
        convo.append(reply)
        for n, call in enumerate(calls):
            result = tools.run(str(call.get("name", "")), call.get("args"))
            convo.append(ToolMessage(content=_result_text(result),
                                     tool_call_id=str(call.get("id") or f"call-{step}-{n}")))
        if step == max_rounds - 1:
            convo.append(HumanMessage(LAST_ROUND))
    raise AssertionError("unreachable")


def _json(base: ModelForRound, messages: list[BaseMessage], tools: AskTools, max_rounds: int,
          stage: str) -> AIMessage:
    convo = list(messages)
    spent = _Usage()
    for step in range(max_rounds + 1):
        allowed = tools.session.allowed_ids()
        may_call = step < max_rounds
        contract = RoundContract(allowed, reply_schema(allowed, tools=may_call), stage=stage)
        reply = base(contract).invoke(convo)
        spent.add(reply)
        text = reply_text(reply)
        request = tool_request(text) if may_call else None
        if request is None:
            return spent.answer(text)
        name, given = request
        result = tools.run(name, tool_args(name, given))
        convo += [AIMessage(text), HumanMessage(
            f"Result of {name}:\n{_result_text(result)}\n\n"
            + (LAST_ROUND if step == max_rounds - 1 else
               "Call another tool, or answer with \"tool\": \"none\".") )]
    raise AssertionError("unreachable")
