"""`--structured`: ask for the round's reply as JSON. Derive's proposals are rendered back to
its markdown format; a JSON stage (JsonReply) gets the JSON text itself.

The JSON schema restricts antecedents and unless-ids to the round's allowed ids (an enum), so
a provider that enforces schemas (Ollama's `format`, OpenAI's json_schema, Anthropic's tool
input, the local model's JSON grammar) can only cite ids that exist. The reply is rendered in
the markdown format the derive parser reads, so both paths yield the same proposals; the JSON
itself stays in the AIMessage's response_metadata["structured_output"].
"""
from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, cast

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda

from adapters.llm.errors import setup_error
from engine.stages.contract import JsonReply, ModelForRound, RoundContract

# Re-exported for older callers; the schema is derive's (engine/derive/reply_schema.py) and
# reaches this adapter through the round's contract.
from engine.derive.reply_schema import proposal_schema, render_markdown  # noqa: F401

def markdown_message(
    parsed: object, raw: BaseMessage, *, parsing_error: object = None,
    render: Callable[[object], tuple[str, list[object]]] = render_markdown,
) -> AIMessage:
    """The AIMessage a structured call answers with: markdown content, the raw reply's usage
    and metadata, and the JSON under response_metadata["structured_output"]."""
    metadata: dict[str, Any] = dict(getattr(raw, "response_metadata", None) or {})
    metadata["structured_output"] = parsed
    try:
        content, skipped = render(parsed)
    except ValueError as e:
        # Not a reply in the schema: hand the raw text on, so the report shows what came back.
        content, skipped = str(raw.text), []
        metadata["structured_error"] = str(parsing_error or e)
    if skipped:
        metadata["structured_skipped"] = skipped
    usage = getattr(raw, "usage_metadata", None)
    return AIMessage(content=content, usage_metadata=usage, response_metadata=metadata)


def structured_rounds(chat: BaseChatModel, **options: Any) -> ModelForRound:
    """A ModelForRound asking `chat` for JSON through `with_structured_output(**options)`.

    `options` carries the provider's method (and `strict`); the key `bounded` chooses the
    schema variant. Raises ModelError (exit 2) now if the model has no structured output.
    """
    bounded = options.pop("bounded", True)

    def for_round(contract: RoundContract) -> Runnable[list[BaseMessage], BaseMessage]:
        if isinstance(contract.reply, JsonReply):
            return json_round(chat, contract, bounded=bounded, **options)
        reply = contract.reply
        schema_of = reply.json_schema or proposal_schema
        render = reply.render_json or render_markdown
        schema = dict(schema_of(contract, bounded=bounded))
        structured = chat.with_structured_output(schema, include_raw=True, **options)

        def call(messages: list[BaseMessage], config: RunnableConfig) -> AIMessage:
            result = cast(dict[str, Any], structured.invoke(messages, config))  # include_raw
            return markdown_message(
                result.get("parsed"), result["raw"], parsing_error=result.get("parsing_error"),
                render=render)

        return RunnableLambda(call, name="structured_derive_round")

    _check_supported(for_round, chat)
    return for_round


def json_message(parsed: object, raw: BaseMessage, *, parsing_error: object = None
                 ) -> AIMessage:
    """The AIMessage a structured call of a JSON stage answers with: the decoded JSON as text
    (the stage's parser reads it), or the raw reply when nothing could be decoded."""
    metadata: dict[str, Any] = dict(getattr(raw, "response_metadata", None) or {})
    if parsed is None:
        content = str(raw.text)
        if parsing_error is not None:
            metadata["structured_error"] = str(parsing_error)
    else:
        content = json.dumps(parsed, ensure_ascii=False)
    usage = getattr(raw, "usage_metadata", None)
    return AIMessage(content=content, usage_metadata=usage, response_metadata=metadata)


def json_round(chat: BaseChatModel, contract: RoundContract, *, bounded: bool,
               **options: Any) -> Runnable[list[BaseMessage], BaseMessage]:
    """A round of a JSON stage through `with_structured_output(schema)`."""
    assert isinstance(contract.reply, JsonReply)
    schema = dict(contract.reply.for_provider(bounded=bounded))
    schema.setdefault("title", f"{contract.stage}_reply")
    structured = chat.with_structured_output(schema, include_raw=True, **options)

    def call(messages: list[BaseMessage], config: RunnableConfig) -> AIMessage:
        result = cast(dict[str, Any], structured.invoke(messages, config))  # include_raw
        return json_message(result.get("parsed"), result["raw"],
                            parsing_error=result.get("parsing_error"))

    return RunnableLambda(call, name=f"structured_{contract.stage}_round")


def _check_supported(for_round: Callable[[RoundContract], object], chat: BaseChatModel) -> None:
    try:
        for_round(RoundContract.markdown(("a", "b")))
    except NotImplementedError as e:
        message = f"{type(chat).__name__} has no structured output; run without --structured"
        raise setup_error(message, None) from e
