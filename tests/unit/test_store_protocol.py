"""Every member of the store protocols exists on both implementations, with the same
parameters: the in-memory FakeStore the unit tests use and the Neo4j store, so a verb added
to one side only, or renamed on one, fails here rather than in a stage at run time."""
from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path
from typing import Protocol

import pytest

from adapters.neo4j.propagation import Neo4jRegionReader
from adapters.neo4j.store import Neo4jStore, Neo4jTx
from engine.graph import GraphTx
from engine.store import Store
from engine.tms.region_reader import RegionReader
from tests.fakes import FakeGraphTx, FakeRegionReader, FakeStore, FakeTx


# The parts the in-memory store does not have (tests/fakes.FakeGraphTx says why).
NOT_ON_THE_FAKE = {"PackTx", "HistoryRecords"}


def members(protocol: type) -> list[str]:
    """Every verb of `protocol` and of the protocols it is composed of (GraphTx of TmsTx,
    SearchTx, ...)."""
    parts = [k for k in protocol.__mro__ if k.__module__.startswith("engine.")]
    return sorted({n for k in parts for n, v in vars(k).items()
                   if callable(v) and not n.startswith("_")})


def own_verbs(part: type) -> list[str]:
    """The verbs `part` declares itself (a part may build on another: Editing on the
    kernel's SupersedeRecords)."""
    return sorted(n for n, v in vars(part).items() if callable(v) and not n.startswith("_"))


def test_graph_tx_is_composed_of_parts_that_share_no_verb():
    parts = [k for k in GraphTx.__mro__[1:] if k.__module__.startswith("engine.")]
    assert len(parts) >= 11
    seen: dict[str, str] = {}
    for part in parts:
        for verb in own_verbs(part):
            assert verb not in seen, f"{verb} is in {seen.get(verb)} and {part.__name__}"
            seen[verb] = part.__name__
    assert sorted(seen) == members(GraphTx)


ENGINE = Path(__file__).resolve().parents[2] / "engine"
# where a room declares its store part beside its records
RECORDS_MODULES = sorted({*ENGINE.glob("**/records.py"), ENGINE / "change_records.py",
                          ENGINE / "stages" / "provenance.py"})
NOT_PARTS = {"TmsStore"}  # the store as the kernel's verbs see it, not a transaction's part


def declared_parts() -> dict[str, type]:
    """Every protocol a records module declares of its own (not an intersection of others)."""
    found = {}
    for path in RECORDS_MODULES:
        module = importlib.import_module(
            ".".join(path.relative_to(ENGINE.parent).with_suffix("").parts))
        for name, value in vars(module).items():
            if (isinstance(value, type) and value.__module__ == module.__name__
                    and value.__bases__ == (Protocol,) and name not in NOT_PARTS):
                found[name] = value
    return found


def test_every_part_a_room_declares_is_in_the_transaction_the_store_hands_out():
    parts = declared_parts()
    assert {"TmsTx", "ReviewRecords", "RepairTx", "ChangeLog"} <= parts.keys()
    left_out = sorted(name for name, part in parts.items() if part not in GraphTx.__mro__)
    assert left_out == [], f"not composed into engine.graph.GraphTx: {left_out}"


def test_no_cast_reaches_a_store_part():
    """A part is reached by typing `tx` with it, or with a named intersection, never by
    cast; and engine/ keeps at most three casts of any kind."""
    casts = [(path, m.group(1)) for path in ENGINE.rglob("*.py")
             for m in re.finditer(r"\bcast\(\s*([\w.\[\]]+)", path.read_text(encoding="utf-8"))]
    to_parts = [f"{path.relative_to(ENGINE.parent)}: cast({name}, ...)" for path, name in casts
                if name.split(".")[-1].endswith(("Tx", "Records", "ChangeLog", "Editing"))]
    assert to_parts == []
    assert len(casts) <= 3, casts


def parts_of(protocol: type) -> set[str]:
    return {k.__name__ for k in protocol.__mro__[1:] if k.__module__.startswith("engine.")}


def test_the_fake_has_every_part_but_those_named():
    assert parts_of(FakeGraphTx) == parts_of(GraphTx) - NOT_ON_THE_FAKE


def parameters(function: object) -> list[str]:
    return [p.name for p in inspect.signature(function).parameters.values()  # type: ignore[arg-type]
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


@pytest.mark.parametrize("protocol, implementations", [
    (GraphTx, (Neo4jTx,)), (FakeGraphTx, (FakeTx,)), (Store, (FakeStore, Neo4jStore)),
    (RegionReader, (FakeRegionReader, Neo4jRegionReader))])
def test_every_protocol_member_is_on_both_stores_with_its_parameters(protocol, implementations):
    assert members(protocol)
    for implementation in implementations:
        missing = [m for m in members(protocol) if not callable(getattr(implementation, m, None))]
        assert missing == [], f"{implementation.__name__} lacks {missing}"
        differ = [m for m in members(protocol) if hasattr(implementation, m)
                  and parameters(getattr(implementation, m)) != parameters(getattr(protocol, m))]
        assert differ == [], f"{implementation.__name__}: other parameters in {differ}"
