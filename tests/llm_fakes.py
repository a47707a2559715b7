"""Fake chat models for the LLM back-end tests (subclasses of the real interface)."""
from __future__ import annotations

import json
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableLambda
from pydantic import Field


class FakeStructuredChat(BaseChatModel):
    """A chat model whose structured output is a fixed JSON object (None: a reply that is not
    JSON); records every with_structured_output call's schema and options."""

    reply: Any = None
    raw_text: str = "this is not JSON"
    asked: list[tuple[dict, dict]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "fake-structured"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self.raw_text))])

    def with_structured_output(self, schema, *, include_raw: bool = False, **kwargs):  # type: ignore[override]
        self.asked.append((schema, {"include_raw": include_raw, **kwargs}))

        def answer(messages: list[BaseMessage]) -> dict[str, Any]:
            text = json.dumps(self.reply) if self.reply is not None else self.raw_text
            raw = AIMessage(
                content=text,
                usage_metadata={"input_tokens": 11, "output_tokens": 7, "total_tokens": 18},
                response_metadata={"model_name": "fake"},
            )
            if self.reply is None:
                return {"raw": raw, "parsed": None, "parsing_error": ValueError("not JSON")}
            return {"raw": raw, "parsed": self.reply, "parsing_error": None}

        return RunnableLambda(answer)
