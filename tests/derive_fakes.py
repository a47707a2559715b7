"""Fakes for derive tests: a scripted chat model (a langchain-core fake chat model), samplers
(the real ones from engine.derive.sampling, with fake vectors; and a fixed-sample Sampler),
and helpers that build a small network and write replies.
"""
from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from engine.stages.contract import RoundContract, unconstrained
from engine.derive.sampling import Sample, make_sampler
from engine.model import Belief, Justification
from engine.tms import add_beliefs_in


@dataclass(frozen=True)
class Hang:
    """A script item: block this long (or until released) before answering `then`."""

    seconds: float
    then: str = "NO PROPOSALS"


class ScriptedChatModel(FakeMessagesListChatModel):
    """Answers call k with script[k]: a reply text, an AIMessage (to carry usage_metadata),
    an exception instance (raised), or a Hang. Records the messages of every call."""

    responses: list[BaseMessage] = []
    script: list[Any]
    tokens: tuple[int, int] = (100, 20)

    _received: list[list[BaseMessage]] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def received(self) -> list[list[BaseMessage]]:
        return self._received

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        with self._lock:
            index = len(self._received)
            self._received.append(list(messages))
        if index >= len(self.script):
            raise AssertionError(f"the script has {len(self.script)} answers; call {index + 1}")
        item = self.script[index]
        if isinstance(item, Hang):
            threading.Event().wait(item.seconds)
            item = item.then
        if isinstance(item, BaseException):
            raise item
        if isinstance(item, str):
            item = AIMessage(content=item, usage_metadata={
                "input_tokens": self.tokens[0], "output_tokens": self.tokens[1],
                "total_tokens": sum(self.tokens)})
        return ChatResult(generations=[ChatGeneration(message=item)])


class RecordingModelForRound:
    """unconstrained(chat), remembering each round's contract."""

    def __init__(self, chat: ScriptedChatModel):
        self.chat = chat
        self.contracts: list[RoundContract] = []
        self._inner = unconstrained(chat)

    def __call__(self, contract: RoundContract):
        self.contracts.append(contract)
        return self._inner(contract)


def alphabetical(budget: int = 300):
    """The real default sampler."""
    return make_sampler("alphabetical", budget=budget)


def intra_cluster(groups: Sequence[Sequence[str]], budget: int = 300):
    """The real intra-cluster sampler over known clusters: one-hot vectors, and a clusterer
    that reads the cluster off them (no embedding model, no scikit-learn)."""
    label = {i: k for k, g in enumerate(groups) for i in g}

    def vectors(items):
        return [[1.0 if label[i] == k else 0.0 for k in range(len(groups))] for i, _ in items]

    def clusterer(matrix, k, seed):
        return [int(row.argmax()) for row in matrix]

    return make_sampler("intra-cluster", budget=budget, seed=1, n_clusters=len(groups),
                        vectors=vectors, clusterer=clusterer)


class FixedSampler:
    """A Sampler that shows the same given ids every round (those in the pool)."""

    n_clusters: int | None = None

    def __init__(self, ids: Sequence[str], strategy: str = "fixed", cluster: int | None = None):
        self.ids = tuple(ids)
        self.strategy = strategy
        self.cluster = cluster

    def sample(self, round_index: int, pool: Sequence[tuple[str, str]]) -> Sample:
        return Sample(self.ids, self.strategy, self.cluster, "the given ids")


def premise(bid: str, text: str | None = None) -> Belief:
    return Belief(id=bid, text=text or f"Premise {bid}.")


def derived(bid: str, *justifications: Iterable[str] | Justification, text: str | None = None,
            unless: Sequence[str] = ()) -> Belief:
    js = tuple(j if isinstance(j, Justification) else Justification(tuple(j), tuple(unless))
               for j in justifications)
    return Belief(id=bid, text=text or f"Derived {bid}.", justifications=js)


def load(store, beliefs: Sequence[Belief]) -> None:
    """Add beliefs through the real TMS path (engine.tms.add_beliefs_in), in one transaction."""
    store.write(lambda tx: add_beliefs_in(tx, list(beliefs)))


def block(bid: str, antecedents: Sequence[str], *, kind: str = "DERIVE",
          unless: Sequence[str] = (), mode: str = "ALL", label: str = "because",
          text: str | None = None) -> str:
    lines = [f"### {kind} {bid}", text or f"Conclusion {bid}.",
             f"- Antecedents: {', '.join(antecedents)}"]
    if unless:
        lines.append(f"- Unless: {', '.join(unless)}")
    lines += [f"- Mode: {mode}", f"- Label: {label}"]
    return "\n".join(lines)


def reply(*blocks: str) -> str:
    return "\n\n".join(blocks) + "\n"


SCRIPT_ENV = "DERIVE_TEST_SCRIPT"


def scripted_from_env() -> ScriptedChatModel:
    """A `py:` plug-in for the CLI tests (`--model py:tests.derive_fakes:scripted_from_env`):
    the script is the JSON list in $DERIVE_TEST_SCRIPT, each item a reply text or
    {"raise": "<builtin exception name>", "message": "..."}."""
    import builtins
    import json
    import os

    def item(x):
        if isinstance(x, dict):
            return getattr(builtins, x["raise"])(x.get("message", ""))
        return x

    return ScriptedChatModel(script=[item(x) for x in json.loads(os.environ[SCRIPT_ENV])])
