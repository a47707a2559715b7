"""What a stage and a chat-model back-end agree on for one round.

The engine never knows which model it talks to. The entry point injects a `ModelForRound`:
given the round's contract it returns a langchain-core Runnable that takes the prompt
messages and returns an AIMessage whose `content` is the reply text the stage's parser reads,
with `usage_metadata` where the model reports tokens. A plain chat model ignores the contract;
a grammar-constrained local model builds its grammar from it; a structured-output back-end
asks for JSON in the contract's schema.

A contract's `reply` is one of two formats:
- `MarkdownProposals`: derive's markdown proposal blocks (adapters/llm/grammar.py builds
  their grammar; structured output asks for JSON and renders it back to markdown).
- `JsonReply`: a JSON value in a schema the stage writes (its ids restricted to what the
  round showed, as enums). The local model decodes under a grammar compiled from the schema;
  structured output asks for the schema and hands the JSON text on. The schema's top level
  is an object (what every provider accepts), so stages put their list under one key and
  their parsers also accept the bare list a free-text model tends to write.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypedDict, Unpack

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.runnables import Runnable

from engine.stages.calls import default_is_transient


@dataclass(frozen=True)
class MarkdownProposals:
    """Derive's reply format: proposal blocks citing only the round's allowed ids."""

    min_antecedents: int = 2
    max_proposals: int = 8  # a bound for constrained decoders; parsers accept any number
    allow_gate: bool = True
    # the texts of the beliefs shown: a grammar-bound decoder builds new ids of their words
    # (and of the allowed ids' words)
    shown_texts: tuple[str, ...] = ()
    # for structured output: the JSON schema of a reply (contract, bounded=...) and the
    # markdown rendered from a decoded one (text, items it could not render); the stage's own
    json_schema: Callable[..., Mapping[str, object]] | None = None
    render_json: Callable[[object], tuple[str, list[object]]] | None = None


class MarkdownOptions(TypedDict, total=False):
    """MarkdownProposals' fields, as RoundContract.markdown takes them."""

    min_antecedents: int
    max_proposals: int
    allow_gate: bool
    shown_texts: tuple[str, ...]
    json_schema: Callable[..., Mapping[str, object]] | None
    render_json: Callable[[object], tuple[str, list[object]]] | None


@dataclass(frozen=True)
class JsonReply:
    """A reply that is one JSON value of `schema`.

    `schema` may carry length and count bounds (minItems, maxItems, maxLength) that keep a
    grammar-constrained reply finite; `strict_schema`, when given, is the same shape without
    them, for providers whose strict mode refuses such keywords (OpenAI)."""

    schema: Mapping[str, object]
    strict_schema: Mapping[str, object] | None = None
    # a narrower schema for a grammar-bound decoder (the local model), when the stage has one:
    # forge's extractive premises, for a model too small to word a claim itself
    grammar_schema: Mapping[str, object] | None = None

    def for_provider(self, *, bounded: bool) -> Mapping[str, object]:
        return self.schema if bounded or self.strict_schema is None else self.strict_schema


@dataclass(frozen=True)
class RoundContract:
    allowed_ids: tuple[str, ...]  # ids a reply may cite
    reply: MarkdownProposals | JsonReply = field(default_factory=MarkdownProposals)
    stage: str = "derive"

    @classmethod
    def markdown(cls, allowed_ids: Iterable[str], **options: Unpack[MarkdownOptions]
                 ) -> "RoundContract":
        """Derive's contract: `options` are MarkdownProposals' fields."""
        return cls(tuple(allowed_ids), MarkdownProposals(**options))

    # Derive's fields, read by the markdown grammar and schema.
    @property
    def min_antecedents(self) -> int:
        return self.reply.min_antecedents if isinstance(self.reply, MarkdownProposals) else 0

    @property
    def max_proposals(self) -> int:
        return self.reply.max_proposals if isinstance(self.reply, MarkdownProposals) else 0

    @property
    def allow_gate(self) -> bool:
        return isinstance(self.reply, MarkdownProposals) and self.reply.allow_gate

    @property
    def shown_texts(self) -> tuple[str, ...]:
        return self.reply.shown_texts if isinstance(self.reply, MarkdownProposals) else ()


ModelForRound = Callable[[RoundContract], Runnable[list[BaseMessage], BaseMessage]]


@dataclass(frozen=True)
class ModelBinding:
    """What the entry point builds from --model: the engine's only view of the model (how
    each round talks to it, which of its errors are worth a retry, what a call costs)."""

    model_for_round: ModelForRound
    is_transient: Callable[[BaseException], bool] = default_is_transient
    cost: Callable[[int, int], float | None] | None = None


def unconstrained(chat: BaseChatModel) -> ModelForRound:
    """The contract is only in the prompt: any chat model as it is."""
    return lambda contract: chat


def verdict_per_item(ids: Sequence[str],
                     item_schema: Callable[[Sequence[str], bool], Mapping[str, object]]
                     ) -> JsonReply:
    """The reply of a stage that gives one verdict per item shown (premise review,
    negatives): `{"verdicts": [...]}`, a tuple of one verdict per id, in order, for grammars
    (`item_schema([id], True)`: with length bounds), an array of verdicts on the ids shown for
    strict structured output (`item_schema(ids, False)`)."""
    bounded = {"type": "array", "prefixItems": [item_schema([i], True) for i in ids],
               "items": False, "minItems": len(ids), "maxItems": len(ids)}
    strict = {"type": "array", "items": item_schema(ids, False)}

    def top(verdicts: Mapping[str, object]) -> dict[str, object]:
        return {"type": "object", "properties": {"verdicts": verdicts},
                "required": ["verdicts"], "additionalProperties": False}

    return JsonReply(schema=top(bounded), strict_schema=top(strict))
