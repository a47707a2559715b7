"""The real in-process SmolLM2 chat model for tests, or a skip naming what is not installed."""
from __future__ import annotations

import importlib.util

import pytest

from engine.errors import ModelError


def local_model_or_skip():
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed: pip install 'eem-engine[local]' "
                    "(with the Makefile's LLAMA_CMAKE_ARGS)")
    from adapters.llm.local import smollm2_path

    try:
        smollm2_path()
    except ModelError as e:
        pytest.skip(str(e))
    from adapters.llm import build_chat_model

    return build_chat_model("local", timeout=120)
