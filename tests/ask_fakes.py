"""Helpers for ask tests: a small network, scripted chat models (langchain-core fakes, one
of them calling tools natively), and what runs `python -m engine.ask` in-process on the
test's store with such a model (`wiring`: main's context and parts)."""
from __future__ import annotations

import json
from typing import Any

from pydantic import Field

from engine.ask.run import AskBackend
from engine.service.context import Context
from engine.stages.calls import CallPolicy
from engine.stages.contract import unconstrained
from engine.wiring.parts import StageParts
from tests.derive_fakes import ScriptedChatModel, derived, load, premise


def network(store) -> None:
    """Auth: p1, p2 premises; slow (p1, p2); old-cache retracted with a reason; hidden is
    a belief no search for auth latency finds."""
    load(store, [
        premise("p1", "The auth service validates a JWT on every request."),
        premise("p2", "Auth signing keys are fetched synchronously."),
        derived("slow", ("p1", "p2"), text="Auth latency rises when keys are fetched."),
        premise("old-cache", "Auth keys were cached forever."),
        premise("hidden", "Deploys happen on Tuesdays."),
    ])
    from engine import tms

    tms.retract(store, "old-cache", "the cache now expires every five minutes")


def answer(status: str = "answered", text: str = "Key fetches block validation.",
           citations: list[tuple[str, str]] | None = None, gaps: list[str] | None = None,
           **extra: Any) -> str:
    cites = [{"id": i, "role": r} for i, r in (citations if citations is not None
                                                else [("slow", "supports")])]
    return json.dumps({"status": status, "answer": text, "citations": cites,
                       "gaps": gaps or [], **extra})


class ToolCallingChat(ScriptedChatModel):
    """A scripted model that says it can call tools: bind_tools records the tools."""

    bound_tools: list[Any] = Field(default_factory=list)

    def bind_tools(self, tools, **kwargs):  # type: ignore[override]
        self.bound_tools = list(tools)
        return self


def wiring(store, chat: ScriptedChatModel, *, native_tools: bool = False) -> dict[str, Any]:
    """main's `context` (the test's store) and `parts` (ask's model: `chat`, calling tools
    natively or not; no sleep between retries)."""
    def backend(model) -> AskBackend:
        return AskBackend(unconstrained(chat), model=model.spec,
                          tool_chat=chat if native_tools else None,
                          calls=CallPolicy(timeout=model.timeout, sleep=lambda s: None))

    return {"context": Context(store), "parts": StageParts(ask=backend)}
