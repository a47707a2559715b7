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
import re
from collections.abc import Callable, Mapping
from typing import Any, cast

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda

from adapters.llm.errors import setup_error
from engine.stages.contract import JsonReply, ModelForRound, RoundContract
from engine.derive.parser import parse_reply

NEW_ID_PATTERN = "^[a-z0-9][a-z0-9._:-]{0,199}$"
FIELDS = ("kind", "id", "conclusion", "antecedents", "unless", "mode", "label")


def proposal_schema(contract: RoundContract, *, bounded: bool = True) -> dict[str, Any]:
    """The JSON schema of a round's reply.

    Every property is required and no others are allowed (OpenAI's strict subset); a DERIVE
    has an empty "unless". `bounded` adds length and count limits (minItems, maxItems,
    maxLength, pattern) for back-ends that compile the schema to a grammar; leave it off for
    OpenAI strict mode, which does not accept all of them.
    """
    ids = sorted(set(contract.allowed_ids))
    id_item: dict[str, Any] = {"type": "string", "enum": ids}
    antecedents: dict[str, Any] = {
        "type": "array",
        "items": id_item,
        "description": f"existing belief ids the conclusion rests on, at least "
        f"{contract.min_antecedents}, only load-bearing ones",
    }
    unless: dict[str, Any] = {
        "type": "array",
        "items": id_item,
        "description": "GATE only: existing ids whose being IN defeats the conclusion; "
        "empty for DERIVE",
    }
    new_id: dict[str, Any] = {
        "type": "string",
        "description": "id of the new belief: lower case letters, digits and . _ : -",
    }
    conclusion: dict[str, Any] = {"type": "string", "description": "one-sentence conclusion"}
    label: dict[str, Any] = {"type": "string", "description": "short label"}
    proposals: dict[str, Any] = {"type": "array"}
    if bounded:
        antecedents |= {
            "minItems": contract.min_antecedents,
            "maxItems": max(contract.min_antecedents, 6),
        }
        unless |= {"maxItems": 3}
        new_id |= {"pattern": NEW_ID_PATTERN, "maxLength": 64}
        conclusion |= {"minLength": 8, "maxLength": 240}
        label |= {"minLength": 2, "maxLength": 80}
        proposals |= {"maxItems": contract.max_proposals}
    kinds = ["DERIVE", "GATE"] if contract.allow_gate else ["DERIVE"]
    proposals["items"] = {
        "type": "object",
        "properties": {
            "kind": {"type": "string", "enum": kinds},
            "id": new_id,
            "conclusion": conclusion,
            "antecedents": antecedents,
            "unless": unless,
            "mode": {
                "type": "string",
                "enum": ["ALL", "ANY"],
                "description": "ALL: needs every antecedent; ANY: each one suffices",
            },
            "label": label,
        },
        "required": list(FIELDS),
        "additionalProperties": False,
    }
    return {
        "title": "derive_proposals",
        "description": "New derived beliefs proposed from the existing beliefs; "
        "an empty list means no proposals.",
        "type": "object",
        "properties": {"proposals": proposals},
        "required": ["proposals"],
        "additionalProperties": False,
    }


def render_markdown(data: object) -> tuple[str, list[object]]:
    """The markdown reply for a decoded JSON reply, and the items that could not be rendered."""
    proposals = data.get("proposals") if isinstance(data, Mapping) else None
    if not isinstance(proposals, list):
        raise ValueError('expected an object with a "proposals" list')
    blocks: list[str] = []
    skipped: list[object] = []
    for item in proposals:
        block = _render_block(item)
        if block is None:
            skipped.append(item)
        else:
            blocks.append(block)
    return ("\n\n".join(blocks) if blocks else "NO PROPOSALS"), skipped


def _render_block(item: object) -> str | None:
    if not isinstance(item, Mapping):
        return None
    kind, mode = _line(item.get("kind")).upper(), _line(item.get("mode")).upper()
    new_id, conclusion, label = (_line(item.get(k)) for k in ("id", "conclusion", "label"))
    antecedents, unless = _ids(item.get("antecedents")), _ids(item.get("unless") or [])
    if kind not in ("DERIVE", "GATE") or mode not in ("ALL", "ANY"):
        return None
    if not (new_id and conclusion and label and antecedents) or unless is None:
        return None
    lines = [f"### {kind} {new_id}", conclusion, f"- Antecedents: {', '.join(antecedents)}"]
    if unless:
        lines.append(f"- Unless: {', '.join(unless)}")
    lines += [f"- Mode: {mode}", f"- Label: {label}"]
    block = "\n".join(lines)
    # A conclusion or label that reads as markdown structure (a heading, a rule, a field)
    # would not come back as written: set such an item aside rather than change its meaning.
    parsed = parse_reply(block).proposals
    if len(parsed) != 1 or (parsed[0].text, parsed[0].label) != (conclusion, label):
        return None
    return block


def _line(value: object) -> str:
    """One line of text: newlines and runs of blanks become single spaces."""
    return re.sub(r"\s+", " ", value).strip() if isinstance(value, str) else ""


def _ids(value: object) -> list[str] | None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None
    return [v.strip() for v in value if v.strip()]


def markdown_message(
    parsed: object, raw: BaseMessage, *, parsing_error: object = None
) -> AIMessage:
    """The AIMessage a structured call answers with: markdown content, the raw reply's usage
    and metadata, and the JSON under response_metadata["structured_output"]."""
    metadata: dict[str, Any] = dict(getattr(raw, "response_metadata", None) or {})
    metadata["structured_output"] = parsed
    try:
        content, skipped = render_markdown(parsed)
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
        schema = proposal_schema(contract, bounded=bounded)
        structured = chat.with_structured_output(schema, include_raw=True, **options)

        def call(messages: list[BaseMessage], config: RunnableConfig) -> AIMessage:
            result = cast(dict[str, Any], structured.invoke(messages, config))  # include_raw
            return markdown_message(
                result.get("parsed"), result["raw"], parsing_error=result.get("parsing_error")
            )

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
