"""One model call: a per-call timeout, retries with exponential backoff on transient errors,
jittered backoff on rate limits (engine/stages/rate_limits.py), token counts from
`usage_metadata`, wall seconds.

A rate-limited try (HTTP 429) is not a failure of the call: it has its own budget
(`rate_limit_tries`) beside the `tries` of other transient errors, so parallel calls that
are throttled wait and come back without using up the retries meant for broken connections.

Which provider errors are transient is the back-ends' knowledge (adapters.llm.errors); the
entry point injects that classifier as `CallPolicy.is_transient`, so the engine imports no
adapter. A call that outlives its timeout is abandoned (its thread is a daemon, so it cannot
keep the process alive) and counts as transient.
"""
from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from langchain_core.messages import BaseMessage
from langchain_core.runnables import Runnable

from engine.errors import EngineError, ModelError
from engine.stages.rate_limits import backoff_seconds, is_rate_limited


class CallTimeout(TimeoutError):
    pass


def default_is_transient(exc: BaseException) -> bool:
    """Without the back-ends' classifier: timeouts and dropped connections only."""
    return isinstance(exc, (TimeoutError, ConnectionError)) and not isinstance(exc, EngineError)


@dataclass(frozen=True)
class CallPolicy:
    timeout: float = 600.0  # seconds per try
    tries: int = 3
    backoff: float = 2.0  # seconds before the second try; doubled before each later one
    is_transient: Callable[[BaseException], bool] = default_is_transient
    sleep: Callable[[float], None] = time.sleep
    rate_limit_tries: int = 6  # rate-limited tries a call may have before it fails
    rate_limit_backoff: float = 2.0  # seconds (before jitter) after the first 429; doubled
    rate_limit_max_wait: float = 120.0  # no single wait is longer
    jitter: Callable[[], float] = random.random


@dataclass(frozen=True)
class CallResult:
    text: str
    tokens_in: int
    tokens_out: int
    seconds: float  # wall time of the whole call, retries and waits included
    tries: int
    errors: tuple[str, ...] = ()  # the failures before the try that answered
    rate_limited: int = 0  # of the tries, those refused for the rate (429)


class ModelCallFailed(ModelError):
    """The model failed after its tries (or at once, on a non-transient error)."""

    def __init__(self, message: str, *, tries: int, seconds: float, errors: tuple[str, ...],
                 rate_limited: int = 0):
        super().__init__(message)
        self.tries = tries
        self.seconds = seconds
        self.errors = errors
        self.rate_limited = rate_limited


def reply_text(message: object) -> str:
    """The text of a reply: `.text` of an AIMessage (content blocks joined), else str()."""
    if isinstance(message, BaseMessage):
        return str(message.text)  # langchain-core >= 1: a property (a str)
    if isinstance(message, str):
        return message
    return "" if message is None else str(message)


def usage(message: object) -> tuple[int, int]:
    meta = getattr(message, "usage_metadata", None) or {}
    return int(meta.get("input_tokens") or 0), int(meta.get("output_tokens") or 0)


def _invoke_with_timeout(runnable: Runnable, messages: Sequence[BaseMessage],
                         timeout: float) -> object:
    box: dict[str, object] = {}

    def target() -> None:
        try:
            box["value"] = runnable.invoke(list(messages))
        except BaseException as e:  # handed to the caller's thread
            box["error"] = e

    worker = threading.Thread(target=target, name="derive-model-call", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        raise CallTimeout(f"no reply within {timeout:g} s (--timeout)")
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box.get("value")


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text[:300]}" if text else type(exc).__name__


def call_model(
    runnable: Runnable,
    messages: Sequence[BaseMessage],
    policy: CallPolicy = CallPolicy(),
    *,
    clock: Callable[[], float] = time.monotonic,
) -> CallResult:
    start = clock()
    errors: list[str] = []
    tries = max(1, policy.tries)
    failures = 0  # tries that failed for another reason than the rate
    throttled = 0
    while True:
        try:
            message = _invoke_with_timeout(runnable, messages, policy.timeout)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as e:
            errors.append(_describe(e))
            attempts = failures + throttled + 1
            if is_rate_limited(e):
                throttled += 1
                if throttled < max(1, policy.rate_limit_tries):
                    policy.sleep(backoff_seconds(throttled, base=policy.rate_limit_backoff,
                                                 cap=policy.rate_limit_max_wait,
                                                 jitter=policy.jitter, exc=e))
                    continue
                raise ModelCallFailed(
                    f"the model was rate-limited {throttled} times: {errors[-1]}",
                    tries=attempts, seconds=clock() - start, errors=tuple(errors),
                    rate_limited=throttled) from e
            failures += 1
            transient = isinstance(e, CallTimeout) or policy.is_transient(e)
            if not transient or failures == tries:
                what = "failed" if not transient else f"failed {failures} times"
                raise ModelCallFailed(
                    f"the model {what}: {errors[-1]}",
                    tries=attempts,
                    seconds=clock() - start,
                    errors=tuple(errors),
                    rate_limited=throttled,
                ) from e
            policy.sleep(policy.backoff * 2 ** (failures - 1))
            continue
        tokens_in, tokens_out = usage(message)
        return CallResult(
            text=reply_text(message),
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            seconds=clock() - start,
            tries=failures + throttled + 1,
            errors=tuple(errors),
            rate_limited=throttled,
        )
