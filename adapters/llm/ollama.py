"""`ollama:<model>`: a model served by Ollama, through langchain-ollama.

OLLAMA_HOST as Ollama itself reads it (`127.0.0.1:11434`, `http://box:11434`, `0.0.0.0`);
default http://127.0.0.1:11434. Before building, `/api/tags` must answer and list the model.
"""
from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

from langchain_core.language_models import BaseChatModel

from adapters.llm.errors import import_extra, setup_error
from adapters.llm.network import get_json

DEFAULT_PORT = 11434


def build(model: str, *, spec: str, timeout: float, environ: Mapping[str, str]) -> BaseChatModel:
    langchain_ollama = import_extra(
        "langchain_ollama", "ollama", model=spec, what="langchain-ollama"
    )
    host = ollama_host(environ.get("OLLAMA_HOST", ""))
    check_model_pulled(host, model, spec=spec)
    return langchain_ollama.ChatOllama(
        model=model,
        base_url=host,
        client_kwargs={"timeout": timeout},
    )


def ollama_host(value: str) -> str:
    """Normalise OLLAMA_HOST the way the Ollama CLI does: scheme http, port 11434."""
    value = value.strip() or "127.0.0.1"
    if "://" not in value:
        value = "http://" + value
    parts = urlsplit(value)
    hostname = parts.hostname or "127.0.0.1"
    if hostname == "0.0.0.0":  # a listen address; connect to this machine
        hostname = "127.0.0.1"
    if ":" in hostname:
        hostname = f"[{hostname}]"
    port = parts.port or DEFAULT_PORT
    return f"{parts.scheme}://{hostname}:{port}{parts.path.rstrip('/')}"


def check_model_pulled(host: str, model: str, *, spec: str) -> None:
    tags = get_json(
        f"{host}/api/tags",
        model=spec,
        hint="start it with `ollama serve`, or set OLLAMA_HOST",
    )
    models = tags.get("models") if isinstance(tags, dict) else None
    if not isinstance(models, list):
        raise setup_error(f"{host}/api/tags did not list models; is that an Ollama server?", spec)
    names = {entry.get("name") for entry in models if isinstance(entry, dict)}
    names |= {entry.get("model") for entry in models if isinstance(entry, dict)}
    if model not in names and f"{model}:latest" not in names:
        have = ", ".join(sorted(n for n in names if n)) or "none"
        raise setup_error(
            f"Ollama at {host} has no model '{model}' (has: {have}): run `ollama pull {model}`",
            spec,
        )
