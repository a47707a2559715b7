"""`openai:<model>`: OpenAI, or any OpenAI-compatible server, through langchain-openai.

OPENAI_API_KEY is required for OpenAI itself. With OPENAI_BASE_URL set (vLLM, llama.cpp's
server, LM Studio) the host must accept a TCP connection first, and a missing key is sent as
"unused": those servers do not check it unless started with one.
"""
from __future__ import annotations

from collections.abc import Mapping

from langchain_core.language_models import BaseChatModel

from adapters.llm.errors import import_extra, setup_error
from adapters.llm.network import check_tcp

UNCHECKED_KEY = "unused"


def build(model: str, *, spec: str, timeout: float, environ: Mapping[str, str]) -> BaseChatModel:
    langchain_openai = import_extra(
        "langchain_openai", "openai", model=spec, what="langchain-openai"
    )
    base_url = environ.get("OPENAI_BASE_URL") or None
    api_key = environ.get("OPENAI_API_KEY") or None
    if base_url is None and api_key is None:
        raise setup_error(
            f"{spec} needs OPENAI_API_KEY (or OPENAI_BASE_URL for an OpenAI-compatible server)",
            spec,
        )
    if base_url is not None:
        check_tcp(base_url, model=spec, hint="is the server running? check OPENAI_BASE_URL")
    return langchain_openai.ChatOpenAI(
        model=model,
        api_key=api_key or UNCHECKED_KEY,
        base_url=base_url,
        timeout=timeout,
        max_retries=0,  # the derive engine retries with backoff; do not multiply the tries
    )
