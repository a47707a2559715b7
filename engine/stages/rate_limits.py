"""Rate limits: telling a provider's "slow down" (HTTP 429) from other failures, and how long
to wait before the next try.

Detected without importing any provider: an HTTP status of 429 on the exception
(`status_code`, or `response.status_code` as httpx and the openai/anthropic SDKs carry it), or
a class name that providers use for it (openai/anthropic `RateLimitError`, Google's
`ResourceExhausted` and `TooManyRequests`, Bedrock's `ThrottlingException`), on the exception
or on any exception in its `__cause__` / `__context__` chain (langchain wrappers re-raise).

The wait is exponential with jitter (between half the doubled delay and all of it), so
calls that were throttled together do not come back together; a `Retry-After` the provider sent
in seconds is honoured when it is longer. Every wait is capped.
"""
from __future__ import annotations

from collections.abc import Callable

RATE_LIMIT_STATUS = 429
RATE_LIMIT_CLASS_NAMES = frozenset({
    "RateLimitError", "RateLimitExceeded", "RateLimitException", "ResourceExhausted",
    "TooManyRequests", "TooManyRequestsError", "ThrottlingException",
})


def _chain(exc: BaseException) -> list[BaseException]:
    seen: set[int] = set()
    out: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        out.append(current)
        current = current.__cause__ or current.__context__
    return out


def _status(exc: BaseException) -> object:
    status = getattr(exc, "status_code", None)
    if status is None:
        status = getattr(getattr(exc, "response", None), "status_code", None)
    return status


def is_rate_limited(exc: BaseException) -> bool:
    """True when the provider refused the call for its rate (429, or a rate-limit class)."""
    for e in _chain(exc):
        if _status(e) == RATE_LIMIT_STATUS:
            return True
        if any(cls.__name__ in RATE_LIMIT_CLASS_NAMES for cls in type(e).__mro__):
            return True
    return False


def retry_after(exc: BaseException) -> float | None:
    """The seconds of a `Retry-After` header the error's response carries, when numeric."""
    for e in _chain(exc):
        headers: object = getattr(getattr(e, "response", None), "headers", None)
        value = headers.get("retry-after") if hasattr(headers, "get") else None
        if value is None:
            continue
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            continue
        if seconds >= 0:
            return seconds
    return None


def backoff_seconds(attempt: int, *, base: float, cap: float, jitter: Callable[[], float],
                    exc: BaseException | None = None) -> float:
    """The wait before try `attempt + 1` after the `attempt`-th rate-limited try (1-based):
    a jittered draw in [d/2, d] for d = base * 2**(attempt-1), at least the server's
    Retry-After, at most `cap`. `jitter` draws from [0, 1)."""
    ceiling = base * 2 ** (attempt - 1)
    wait = ceiling * (0.5 + 0.5 * min(max(jitter(), 0.0), 1.0))
    asked = retry_after(exc) if exc is not None else None
    if asked is not None:
        wait = max(wait, asked)
    return min(wait, cap)
