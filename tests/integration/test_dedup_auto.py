"""`python -m engine.dedup --auto` without a model on the real Neo4j with the packaged
embedding model (issue 46, point 6): the what-if lists the merges above the threshold and
writes nothing; --yes merges them in one logged transaction (the kept belief the one rested
on, what rested on the merged one still IN), a pair under the threshold is left, and
`undo` restores the merged belief; bad flag combinations are one usage line."""
from __future__ import annotations

import io
import json

import pytest

from engine import tms
from engine.cli.main import Streams
from engine.cli.stage_cli import stage_main
from engine.model import Truth
from engine.service.context import Context
from engine.wiring.parts import StageParts
from tests.derive_fakes import derived, load, premise

pytestmark = pytest.mark.neo4j

NETWORK = [
    premise("orders-index", "The orders table has a B-tree index on customer id."),
    premise("orders-index-2", "The orders table has a B-tree index on the customer id."),
    premise("session-hour", "The cache holds user sessions for one hour."),  # cosine 0.89
    premise("session-60", "User sessions stay in the cache for sixty minutes."),
    premise("bread", "Bread dough rises for two hours."),
    derived("lookups-fast", ("orders-index",), text="Lookups of a customer's orders are fast."),
]


def run(store, *args: str) -> tuple[int, str, str]:
    from engine.cli.dedup import COMMAND, PROG

    out, err = io.StringIO(), io.StringIO()
    code = stage_main(COMMAND, list(args), PROG, context=Context(store), parts=StageParts(),
                      streams=Streams(out, err, io.StringIO()))
    return code, out.getvalue(), err.getvalue()


def labels(store):
    return {b.id: (b.truth, b.retracted) for b in tms.list_beliefs(store)}


def logged(store) -> list[str]:
    """The change log's operations, oldest first, but for the embeddings the candidate search
    stores (as `--candidates` does)."""
    from engine.change_records import LogQuery

    entries = store.read(lambda tx: tx.change_entries(LogQuery(oldest_first=True)))
    return [e.op for e in entries if e.op != "embeddings"]


@pytest.mark.slow
def test_what_if_then_yes_merges_above_the_threshold_and_undo_restores(store):
    load(store, NETWORK)
    before, log_before = labels(store), logged(store)

    code, out, err = run(store, "--auto", "--json")
    assert code == 0, err
    what_if = json.loads(out)
    assert what_if["threshold"] == 0.95 and what_if["written"] is False
    assert [(m["merged"], m["kept"]) for m in what_if["merges"]] == [
        ("orders-index-2", "orders-index")]  # the one something rests on is kept
    assert what_if["went_out"] == ["orders-index-2"]
    assert labels(store) == before and logged(store) == log_before

    code, out, err = run(store, "--auto", "--yes")
    assert code == 0, err
    assert out.startswith("merged 1 beliefs at 0.95 and above (cosine), no model:")
    after = labels(store)
    assert after["orders-index-2"] == (Truth.OUT, True)
    assert after["lookups-fast"][0] == Truth.IN
    assert after["session-hour"] == after["session-60"] == (Truth.IN, False)
    assert logged(store)[len(log_before):] == ["dedup-auto"]
    shown = tms.show(store, "orders-index-2")[0]
    assert shown.retract_reason == "duplicate of orders-index"

    # a lower threshold reaches the session pair (the what-if: nothing written)
    code, out, _ = run(store, "--auto", "--threshold", "0.85", "--json")
    merged = json.loads(out)["merges"]
    assert code == 0 and {(m["merged"], m["kept"]) for m in merged} == {
        ("session-hour", "session-60")}  # ties: the older, then the smaller id, is kept

    code, _, err = run(store, "undo", "orders-index-2")
    assert code == 0, err
    assert labels(store) == before


@pytest.mark.parametrize("args, message", [
    (["--yes"], "--yes goes with --auto and no --model"),
    (["--auto", "--yes", "--exhaust"], "no --exhaust or -o"),
    (["--model", "x", "--auto", "--yes"], "--yes goes with --auto and no --model"),
])
def test_bad_combinations_are_one_usage_line(store, args, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        run(store, *args)
    assert exit_.value.code == 2 and message in capsys.readouterr().err
