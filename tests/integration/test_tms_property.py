"""Property, on Neo4j: after any sequence of edits of any memory (tests/tms_edits.py: the
kernel's verbs and the daily ones, from an empty graph, an imported file or a layered
network), the labels, depths and access tags in Neo4j equal the well-founded model computed
from scratch, each edit reports exactly the beliefs whose label crossed IN/OUT, and verify
finds nothing. The same test runs with more examples on the fake store
(tests/unit/test_propagate.py); here the RegionReader is the Neo4j one, its named queries
against the real graph. TMS_PROPERTY_EXAMPLES sets how many examples (40 by default: the
fake store's run draws 300 from the same edits, and each example here checks every verb's
structure and the nogoods too)."""
from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import tms
from tests.tms_edits import run_edits

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]


def verify_finds_nothing(store) -> None:
    assert tms.verify(store) == []


@settings(max_examples=int(os.environ.get("TMS_PROPERTY_EXAMPLES", "40")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_any_edits_keep_the_well_founded_model(store, data):
    tms.reset(store)
    run_edits(store, data, also=verify_finds_nothing)
