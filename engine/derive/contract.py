"""What the derive engine and a chat-model back-end agree on for one round.

The engine never knows which model it talks to. The entry point injects a
`ModelForRound`: given the round's contract it returns a langchain-core Runnable that takes
the prompt messages and returns an AIMessage whose `content` is the reply text the parser
reads (the markdown format), with `usage_metadata` where the model reports tokens. A plain
chat model ignores the contract; a grammar-constrained local model builds its grammar from it;
a structured-output back-end asks for JSON restricted to `allowed_ids` and renders the result
in the markdown format.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.runnables import Runnable


@dataclass(frozen=True)
class RoundContract:
    allowed_ids: tuple[str, ...]  # ids a proposal may cite: the sample and the shown derived
    min_antecedents: int = 2
    max_proposals: int = 8  # a bound for constrained decoders; parsers accept any number
    allow_gate: bool = True


ModelForRound = Callable[[RoundContract], Runnable[list[BaseMessage], BaseMessage]]


def unconstrained(chat: BaseChatModel) -> ModelForRound:
    """The contract is only in the prompt: any chat model as it is."""
    return lambda contract: chat
