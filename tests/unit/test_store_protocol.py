"""Every member of the store protocols exists on both implementations, with the same
parameters: the in-memory FakeStore the unit tests use and the Neo4j store, so a verb added
to one side only, or renamed on one, fails here rather than in a stage at run time."""
from __future__ import annotations

import inspect

import pytest

from adapters.neo4j.propagation import Neo4jRegionReader
from adapters.neo4j.store import Neo4jStore, Neo4jTx
from engine.store import GraphTx, Store
from engine.tms.region_reader import RegionReader
from tests.fakes import FakeRegionReader, FakeStore, FakeTx


# The pack queries are Cypher files users run (cypher/queries/); the fake has no Cypher to
# run them with, so they are tested against Neo4j only (tests/integration/test_query_pack.py).
NOT_ON_THE_FAKE = {"run_pack_query"}
# The parts GraphTx gained from the stages' own protocols, which the fake implements in the
# next step (issue 35, item 4); until then the Neo4j side alone is checked for them.
NOT_ON_THE_FAKE_YET = {"AgentTx", "AskTx", "ProposalTx", "ReadingTx", "RepairTx",
                       "PremiseReviewTx", "HistoryRecords"}


def members(protocol: type) -> list[str]:
    """Every verb of `protocol` and of the protocols it is composed of (GraphTx of TmsTx,
    SearchTx, ...)."""
    parts = [k for k in protocol.__mro__ if k.__module__.startswith("engine.")]
    return sorted({n for k in parts for n, v in vars(k).items()
                   if callable(v) and not n.startswith("_")})


def test_graph_tx_is_composed_of_parts_that_share_no_verb():
    parts = [k for k in GraphTx.__mro__[1:] if k.__module__.startswith("engine.")]
    assert len(parts) >= 11
    seen: dict[str, str] = {}
    for part in parts:
        for verb in members(part):
            assert verb not in seen, f"{verb} is in {seen.get(verb)} and {part.__name__}"
            seen[verb] = part.__name__
    assert sorted(seen) == members(GraphTx)


def _later() -> set[str]:
    return {m for k in GraphTx.__mro__ if k.__name__ in NOT_ON_THE_FAKE_YET for m in members(k)}


def parameters(function: object) -> list[str]:
    return [p.name for p in inspect.signature(function).parameters.values()  # type: ignore[arg-type]
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


@pytest.mark.parametrize("protocol, implementations", [
    (GraphTx, (FakeTx, Neo4jTx)), (Store, (FakeStore, Neo4jStore)),
    (RegionReader, (FakeRegionReader, Neo4jRegionReader))])
def test_every_protocol_member_is_on_both_stores_with_its_parameters(protocol, implementations):
    assert members(protocol)
    for implementation in implementations:
        missing = [m for m in members(protocol) if not callable(getattr(implementation, m, None))
                   and not (implementation is FakeTx and m in NOT_ON_THE_FAKE | _later())]
        assert missing == [], f"{implementation.__name__} lacks {missing}"
        differ = [m for m in members(protocol) if hasattr(implementation, m)
                  and parameters(getattr(implementation, m)) != parameters(getattr(protocol, m))]
        assert differ == [], f"{implementation.__name__}: other parameters in {differ}"
