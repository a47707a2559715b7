"""`anthropic:<model>`: Claude through langchain-anthropic.

ANTHROPIC_API_KEY is required; ANTHROPIC_BASE_URL (a proxy or gateway), when set, must accept
a TCP connection before any work starts.
"""
from __future__ import annotations

from collections.abc import Mapping

from langchain_core.language_models import BaseChatModel

from adapters.llm.errors import import_extra, setup_error
from adapters.llm.network import check_tcp


def build(model: str, *, spec: str, timeout: float, environ: Mapping[str, str]) -> BaseChatModel:
    langchain_anthropic = import_extra(
        "langchain_anthropic", "anthropic", model=spec, what="langchain-anthropic"
    )
    api_key = environ.get("ANTHROPIC_API_KEY") or None
    if api_key is None:
        raise setup_error(f"{spec} needs ANTHROPIC_API_KEY", spec)
    base_url = environ.get("ANTHROPIC_BASE_URL") or None
    if base_url is not None:
        check_tcp(base_url, model=spec, hint="check ANTHROPIC_BASE_URL")
    return langchain_anthropic.ChatAnthropic(
        model=model,
        api_key=api_key,
        base_url=base_url,
        timeout=timeout,
        max_retries=0,  # the derive engine retries with backoff; do not multiply the tries
    )
