"""How a chat model answers a stage whose contract is a `JsonReply` (forge, until the shared
back-ends in adapters/llm/ honour JsonReply themselves; then this module folds into them).

- the in-process llama.cpp model decodes under a grammar compiled from the contract's bounded
  schema (llama_cpp's JSON-schema-to-GBNF), so every reply is JSON in the schema;
- `structured` asks a provider for `with_structured_output(schema)` (the strict schema where
  the provider needs it) and hands the JSON on as the reply text;
- otherwise the model answers freely and the stage's tolerant parser reads it.
"""
from __future__ import annotations

import copy
import json
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda

from engine.errors import ModelError
from engine.stages.contract import JsonReply, ModelForRound, RoundContract, unconstrained


def _json_reply(contract: RoundContract) -> JsonReply:
    if not isinstance(contract.reply, JsonReply):
        raise ModelError(f"the {contract.stage} stage expects a JSON reply contract")
    return contract.reply


def capped_items(schema: Any, most: int) -> Any:
    """The schema with every array's maxItems at most `most` (a tiny model's cap)."""
    schema = copy.deepcopy(schema)

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "array":
                node["maxItems"] = min(int(node.get("maxItems", most)), most)
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(schema)
    return schema


def grammar_json_rounds(chat: Any) -> ModelForRound:
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    def for_round(contract: RoundContract) -> Runnable[list[BaseMessage], BaseMessage]:
        schema = capped_items(_json_reply(contract).schema, chat.max_proposals)
        return chat.bind(grammar=json_schema_to_gbnf(json.dumps(schema)),
                         max_tokens=chat.max_tokens)

    return for_round


def structured_json_rounds(chat: BaseChatModel, *, bounded: bool = True,
                           **options: Any) -> ModelForRound:
    def for_round(contract: RoundContract) -> Runnable[list[BaseMessage], BaseMessage]:
        schema = dict(_json_reply(contract).for_provider(bounded=bounded))
        schema.setdefault("title", f"{contract.stage}_reply")
        structured = chat.with_structured_output(schema, include_raw=True, **options)

        def call(messages: list[BaseMessage], config: RunnableConfig) -> AIMessage:
            result = structured.invoke(messages, config)
            raw = result["raw"]
            parsed = result.get("parsed")
            content = json.dumps(parsed, ensure_ascii=False) if parsed is not None else str(
                raw.text)
            return AIMessage(content=content, usage_metadata=getattr(raw, "usage_metadata", None),
                             response_metadata=dict(getattr(raw, "response_metadata", None) or {}))

        return RunnableLambda(call, name=f"structured_{contract.stage}_round")

    return for_round


def json_model_for_round(spec: str, chat: BaseChatModel, *, structured: bool) -> ModelForRound:
    from adapters.llm import STRUCTURED_OPTIONS, split_spec
    from adapters.llm.local import LlamaCppChatModel
    from adapters.llm.replay import ReplayChatModel

    if isinstance(chat, LlamaCppChatModel):
        return grammar_json_rounds(chat)
    if isinstance(chat, ReplayChatModel) or not structured:
        return unconstrained(chat)
    scheme, _ = split_spec(spec)
    options = dict(STRUCTURED_OPTIONS.get(scheme) or {})
    if scheme not in STRUCTURED_OPTIONS:
        raise ModelError(f"{scheme}: no structured output; run without --structured",
                         model=spec, exit_code=2)
    return structured_json_rounds(chat, **options)
