"""Errors at the edge of the chat-model back-ends.

`import_extra` turns a missing optional SDK into one ModelError line naming the extra;
`is_transient` tells the derive engine's retry loop which provider failures are worth another
try (timeouts, dropped connections, HTTP 408/409/425/429/5xx) and which are not (bad key, bad
request, unknown model, our own ModelErrors).

Provider exception classes are looked up in `sys.modules` only: an exception of a provider's SDK
can exist only if that SDK was imported, so classifying never imports anything.
"""
from __future__ import annotations

import importlib
import sys
from types import ModuleType

from engine.errors import ModelError

TRANSIENT_STATUS = frozenset({408, 409, 425, 429})

# (module, attribute) pairs naming exception classes that mean "the call never completed".
_TRANSPORT_CLASSES = (
    ("httpx", "TransportError"),  # timeouts, connect/read errors, protocol errors
    ("openai", "APIConnectionError"),  # and its subclass APITimeoutError
    ("anthropic", "APIConnectionError"),
    ("requests", "ConnectionError"),
    ("requests", "Timeout"),
)


def setup_error(message: str, model: str | None) -> ModelError:
    """A model that cannot be set up (bad string, missing extra, key, host or file): exit 2,
    raised before any derive work."""
    return ModelError(message, model=model, exit_code=2)


def import_extra(module: str, extra: str, *, model: str, what: str, note: str = "") -> ModuleType:
    """Import an optional provider package, or raise ModelError (exit 2) naming the extra."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        suffix = f" ({note})" if note else ""
        message = f"{what} is not installed: pip install 'eem-engine[{extra}]'{suffix}"
        raise setup_error(message, model) from e


def is_transient(exc: BaseException) -> bool:
    """True when retrying the same call may succeed; looks through `__cause__` chains."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        verdict = _classify(current)
        if verdict is not None:
            return verdict
        current = current.__cause__ or current.__context__
    return False


def _classify(exc: BaseException) -> bool | None:
    """True/False when this exception decides it, None to look at its cause."""
    if isinstance(exc, ModelError):
        return False
    status = _status_code(exc)
    if status is not None:
        return status in TRANSIENT_STATUS or 500 <= status <= 599
    if isinstance(exc, (TimeoutError, ConnectionError)):
        return True
    for module_name, attribute in _TRANSPORT_CLASSES:
        module = sys.modules.get(module_name)
        cls = getattr(module, attribute, None) if module is not None else None
        if isinstance(cls, type) and isinstance(exc, cls):
            return True
    return None


def _status_code(exc: BaseException) -> int | None:
    """The HTTP status an SDK error carries (openai/anthropic/ollama `status_code`, httpx's
    `response.status_code`, urllib's `code`); None when there is none."""
    for candidate in (
        getattr(exc, "status_code", None),
        getattr(getattr(exc, "response", None), "status_code", None),
        getattr(exc, "code", None) if _is_urllib_http_error(exc) else None,
    ):
        if isinstance(candidate, int) and 100 <= candidate <= 599:
            return candidate
    return None


def _is_urllib_http_error(exc: BaseException) -> bool:
    error_module = sys.modules.get("urllib.error")
    return error_module is not None and isinstance(exc, error_module.HTTPError)
