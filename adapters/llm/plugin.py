"""`py:<module>:<callable>`: bring your own chat model.

The callable is called with no arguments and must return a langchain-core BaseChatModel, e.g.
`py:mypkg.models:make_chat` with `def make_chat(): return ChatSomething(...)`. The module is
imported from sys.path (the current environment), like any plug-in.
"""
from __future__ import annotations

import importlib

from langchain_core.language_models import BaseChatModel

from adapters.llm.errors import setup_error

USAGE = "expected py:<module>:<callable>, e.g. py:mypkg.models:make_chat"


def build(target: str, *, spec: str) -> BaseChatModel:
    module_name, sep, attribute = target.rpartition(":")
    if not sep or not module_name or not attribute:
        raise setup_error(f"bad model {spec!r}: {USAGE}", spec)
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise setup_error(f"cannot import {module_name!r} for {spec}: {e}", spec) from e
    factory = getattr(module, attribute, None)
    if not callable(factory):
        raise setup_error(f"{module_name} has no callable {attribute!r} ({USAGE})", spec)
    try:
        chat = factory()
    except Exception as e:  # a plug-in's own failure, shown as one line
        raise setup_error(f"{spec} failed: {type(e).__name__}: {e}", spec) from e
    if not isinstance(chat, BaseChatModel):
        raise setup_error(
            f"{spec} returned {type(chat).__name__}, not a langchain-core BaseChatModel",
            spec,
        )
    return chat
