"""The chat model a stage program's `--model` names, wired for the stages (and for ask, the
command's and the MCP tool's). The one place outside engine/cli/ that loads the chat-model
back-ends (adapters/llm), and only when a run needs a model."""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.errors import ModelError
from engine.stages.calls import CallPolicy
from engine.stages.contract import ModelBinding
from engine.tokens import ModelTokenizer, TokenCounter

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from engine.ask.run import AskBackend


@dataclass(frozen=True)
class ModelSpec:
    """`--model`, `--timeout` (seconds per call) and `--structured`."""

    spec: str
    timeout: float = 600.0
    structured: bool = False


def _chat(model: ModelSpec) -> tuple[BaseChatModel, ModelBinding]:
    try:
        from adapters.llm import build_chat_model, model_for_round
        from adapters.llm.errors import is_transient
        from adapters.llm.pricing import cost_usd
    except ImportError as e:
        raise ModelError(f"the chat-model back-ends (adapters.llm) cannot be loaded: {e}",
                         model=model.spec, exit_code=2) from e
    chat = build_chat_model(model.spec, timeout=model.timeout)
    spec = model.spec

    def cost(tokens_in: int, tokens_out: int) -> float | None:
        return cost_usd(spec, tokens_in, tokens_out)

    return chat, ModelBinding(model_for_round(spec, chat, structured=model.structured),
                              is_transient, cost)


def chat_model(model: ModelSpec) -> ModelBinding:
    """The model for a stage's rounds, checked now (a bad one fails before any work)."""
    return _chat(model)[1]


def ask_backend(model: ModelSpec, *, sleep: Callable[[float], None] = time.sleep
                ) -> AskBackend:
    """ask's view of the model: tool calls made natively when the model can (not a local or
    replayed one, nor with --structured), the local model's own tokenizer."""
    from engine.ask.run import AskBackend

    chat, binding = _chat(model)  # first: it says when adapters.llm cannot load
    from adapters.llm import split_spec

    scheme, _ = split_spec(model.spec)
    natively = scheme not in ("local", "replay") and not model.structured \
        and has_tool_calling(chat)
    return AskBackend(
        binding.model_for_round, model=model.spec, tool_chat=chat if natively else None,
        tokenizer=local_tokenizer(chat) if scheme == "local" else None, cost=binding.cost,
        calls=CallPolicy(timeout=model.timeout, is_transient=binding.is_transient, sleep=sleep))


def has_tool_calling(chat: BaseChatModel) -> bool:
    """True when the model's class implements bind_tools (BaseChatModel's raises)."""
    from langchain_core.language_models import BaseChatModel

    method = getattr(type(chat), "bind_tools", None)
    return method is not None and method is not BaseChatModel.bind_tools


def local_tokenizer(chat: BaseChatModel) -> TokenCounter | None:
    """The llama.cpp model's own tokenizer (loading the model, which ask does anyway)."""
    from adapters.llm.local import LlamaCppChatModel

    if not isinstance(chat, LlamaCppChatModel):
        return None
    chat.load()
    return ModelTokenizer("the local model's own tokenizer (llama.cpp)", chat.count_tokens)
