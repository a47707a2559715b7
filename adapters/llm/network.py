"""Pre-flight reachability checks, so a wrong host fails in one line before any derive work.

Standard library only (urllib, socket): the checks run before any provider SDK is imported.
"""
from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from urllib.parse import urlsplit

from adapters.llm.errors import setup_error

CHECK_TIMEOUT = 5.0  # seconds; a pre-flight check, not a model call


def check_tcp(url: str, *, model: str, hint: str) -> None:
    """Open (and close) a TCP connection to the host and port of `url`."""
    parts = urlsplit(url)
    if not parts.hostname:
        raise setup_error(f"bad URL {url!r} (expected e.g. http://127.0.0.1:8000/v1)", model)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname, port), timeout=CHECK_TIMEOUT):
            pass
    except OSError as e:
        where = f"{parts.hostname}:{port}"
        raise setup_error(f"cannot reach {where} ({_reason(e)}): {hint}", model) from e


def get_json(url: str, *, model: str, hint: str) -> object:
    """GET `url` and decode its JSON body; any failure is one ModelError line (exit 2)."""
    try:
        with urllib.request.urlopen(url, timeout=CHECK_TIMEOUT) as response:
            body = response.read()
    except urllib.error.HTTPError as e:
        raise setup_error(f"{url} answered HTTP {e.code}: {hint}", model) from e
    except (OSError, ValueError) as e:
        raise setup_error(f"cannot reach {url} ({_reason(e)}): {hint}", model) from e
    try:
        return json.loads(body)
    except ValueError as e:
        raise setup_error(f"{url} did not answer JSON: {hint}", model) from e


def _reason(e: BaseException) -> str:
    reason = getattr(e, "reason", None) or e
    return str(reason) or type(e).__name__
