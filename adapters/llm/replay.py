"""`replay:<report.json>`: answer with the raw replies an earlier derive run recorded.

A derive report is a JSON object whose "rounds" each hold "responses" (the raw reply text of
every model call in that round, in call order) and "response" (the last one; used alone when a
round has no "responses" list). Replay answers call k with the k-th reply across all rounds,
so a derive re-runs exactly, or the parser can be debugged on real output. Past the last one
it raises ModelError. A replay spends no tokens, so usage_metadata is zeros.
"""
from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from adapters.llm.errors import setup_error
from engine.errors import ModelError


class ReplayChatModel(BaseChatModel):
    """Returns `responses` in order, one per call; a ModelError once they run out."""

    responses: tuple[str, ...]
    source: str = "replay"

    _calls: int = PrivateAttr(default=0)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "replay"

    @property
    def calls(self) -> int:
        return self._calls

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        with self._lock:
            index = self._calls
            if index >= len(self.responses):
                raise ModelError(
                    f"replay ran out of recorded responses after {index} calls ({self.source})",
                    model=f"replay:{self.source}",
                )
            self._calls += 1
        message = AIMessage(
            content=self.responses[index],
            usage_metadata={"input_tokens": 0, "output_tokens": 0, "total_tokens": 0},
            response_metadata={"model_name": f"replay:{self.source}", "replay_index": index},
        )
        return ChatResult(generations=[ChatGeneration(message=message)])


def build(path: str, *, spec: str) -> ReplayChatModel:
    return ReplayChatModel(responses=tuple(load_responses(Path(path), spec=spec)), source=path)


def load_responses(path: Path, *, spec: str) -> list[str]:
    """Every recorded raw reply of the report at `path`, rounds in order, calls in order."""
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise setup_error(f"cannot read derive report {path}: {e.strerror or e}", spec) from e
    except ValueError as e:
        raise setup_error(f"{path} is not JSON: {e}", spec) from e
    rounds = report.get("rounds") if isinstance(report, dict) else None
    if not isinstance(rounds, list):
        raise setup_error(f"{path} is not a derive report (no \"rounds\" list)", spec)
    responses: list[str] = []
    for position, entry in enumerate(rounds):
        recorded = _round_responses(entry)
        if recorded is None:
            raise setup_error(
                f"{path}: round {position + 1} has no recorded \"responses\" or \"response\"", spec
            )
        responses.extend(recorded)
    if not responses:
        raise setup_error(f"{path} records no model responses to replay", spec)
    return responses


def _round_responses(entry: object) -> list[str] | None:
    if not isinstance(entry, dict):
        return None
    many = entry.get("responses")
    if isinstance(many, list) and all(isinstance(text, str) for text in many):
        return list(many)
    one = entry.get("response")
    if isinstance(one, str):
        return [one]
    return None
