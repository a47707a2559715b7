"""The pipeline's loop with repair on the real Neo4j: review, then repair, then review of
what repair produced, pass after pass, until a pass adds, defeats, repairs and merges
nothing."""
from __future__ import annotations

import pytest

from engine import tms
from engine.pipeline.passes import run_pipeline
from engine.pipeline.stages import PipelineOptions, Runs, repair_pass, review_pass
from engine.stages.contract import unconstrained
from tests.repair_fakes import ReviewAndRepairModel, defeated_network

pytestmark = pytest.mark.neo4j


def test_a_pass_repairs_then_reviews_the_repair_and_the_next_pass_stops(store, tmp_path):
    net = defeated_network(store)
    chat = ReviewAndRepairModel()
    runs = Runs(PipelineOptions("fake", max_rounds=5, timeout=60.0), unconstrained(chat))
    loop = [review_pass(runs), repair_pass(runs, None), review_pass(runs)]
    result = run_pipeline(net, [], loop, max_passes=4)
    assert result.status == "complete" and result.stopped == "pass 2 changed nothing"
    by_pass = [(p, o.stage, o.repaired) for p, o in result.outcomes]
    assert by_pass == [(1, "review", 0), (1, "repair", 1), (1, "review", 0),
                       (2, "review", 0), (2, "repair", 0), (2, "review", 0)]
    # the review after repair judged the linked belief (and what rests on it) afresh
    after = [p for p in chat.prompts if "## Beliefs to review" in p]
    assert any("### solo (depth" in p for p in after)
    assert tms.show(net, "solo")[0].truth.value == "IN"
    stamped = {c.id: c.review_sha256 for c in net.read(lambda tx: tx.review_candidates())}
    assert stamped["solo"] and stamped["top"]
    assert tms.verify(net) == []
