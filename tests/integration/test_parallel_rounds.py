"""`--parallel` on the real Neo4j: review with several model calls in flight ends with the
labels and report totals of a sequential run (each round still applied in its own write
transaction, what rests on a round's beliefs waiting for it), and a rate-limited call is
waited on, tried again and counted."""
from __future__ import annotations

import pytest

from engine import tms
from engine.model import Truth
from engine.review.stage import ReviewSettings, ReviewStage
from engine.stages.calls import CallPolicy
from engine.stages.contract import unconstrained
from engine.stages.report import Outcome, RunStatus, StopReason
from engine.stages.run import RunOptions, RunResult, run_stage
from engine.stages.stage import Action
from tests.conftest import empty_graph
from tests.derive_fakes import load
from tests.fakes import FakeStore
from tests.parallel_fakes import KeyedCritic, layered_network

pytestmark = pytest.mark.neo4j

INVALID = frozenset({"d1-0", "d2-3"})
NO_SLEEP = CallPolicy(sleep=lambda s: None, jitter=lambda: 0.5)


def review_run(store, critic: KeyedCritic, parallel: int, budget: int = 1,
               calls: CallPolicy = NO_SLEEP) -> RunResult:
    options = RunOptions(model="keyed", exhaust=True, max_rounds=100, calls=calls,
                         parallel=parallel, params={"parallel": parallel})
    return run_stage(store, ReviewStage(ReviewSettings(budget=budget)), unconstrained(critic),
                     options)


def labels(store) -> dict[str, str]:
    return {b.id: b.truth.value for b in tms.list_beliefs(store)}


def comparable(result: RunResult) -> dict:
    totals = result.report.totals.to_json()
    totals.pop("seconds")
    return {"totals": totals, "status": result.status.value, "stopped": result.stopped,
            "defeated": sum(r.count(Action.DEFEATED) for r in result.rounds),
            "reviewed": sorted(i for r in result.rounds for i in r.shown)}


@pytest.mark.slow
def test_parallel_review_ends_as_the_sequential_run(store, driver, neo4j_settings):
    load(store, layered_network(width=5, layers=3))
    sequential = review_run(store, KeyedCritic(invalid=INVALID), parallel=1)
    seq_labels = labels(store)
    assert tms.verify(store) == []

    empty_graph(driver, neo4j_settings.database)
    load(store, layered_network(width=5, layers=3))
    critic = KeyedCritic(invalid=INVALID, seconds=0.2)
    parallel = review_run(store, critic, parallel=4)

    assert labels(store) == seq_labels
    assert tms.verify(store) == []
    assert comparable(parallel) == comparable(sequential)
    assert critic.most_in_flight > 1  # the calls did overlap
    assert parallel.report.parallel == 4 and parallel.report.to_json()["parallel"] == 4
    assert [r.n for r in parallel.rounds] == list(range(1, len(parallel.rounds) + 1))
    # the invalid ones were defeated, and what rested on them went OUT before it was shown
    assert seq_labels["d1-0"] == Truth.OUT.value and seq_labels["d2-0"] == Truth.OUT.value
    assert "d2-0" not in comparable(parallel)["reviewed"]
    assert parallel.stopped == "1 consecutive dry round(s)"
    assert parallel.rounds[-1].outcome is Outcome.EMPTY


@pytest.mark.slow
def test_parallel_rounds_show_disjoint_beliefs(store):
    load(store, layered_network(width=8, layers=1))
    result = review_run(store, KeyedCritic(seconds=0.2), parallel=3, budget=2)
    shown = [i for r in result.rounds for i in r.shown]
    assert len(shown) == len(set(shown)) == 8
    assert result.report.totals.applied == 8 and result.status is RunStatus.COMPLETE


@pytest.mark.parametrize("kind", ["status", "class"])
def test_a_rate_limited_call_is_retried_after_a_backoff_and_counted(store, kind):
    load(store, layered_network(width=3, layers=1))
    waits: list[float] = []
    calls = CallPolicy(sleep=waits.append, jitter=lambda: 1.0, rate_limit_backoff=0.25)
    critic = KeyedCritic(rate_limit_on="d1-1", rate_limit_kind=kind)
    result = review_run(store, critic, parallel=2, calls=calls)
    assert result.status is RunStatus.COMPLETE
    assert waits == [0.25]  # one jittered wait, before the second try
    assert result.report.totals.rate_limited == 1
    assert result.report.to_json()["totals"]["rate_limited"] == 1
    throttled = [r for r in result.rounds if r.rate_limited]
    assert len(throttled) == 1 and throttled[0].calls == 2
    assert "429" in throttled[0].call_errors[0] or "RateLimitError" in throttled[0].call_errors[0]
    assert result.report.totals.applied == 3  # nothing lost to the 429


def test_a_stop_discards_the_rounds_still_in_flight_without_applying_them():
    # FakeStore: a toy check that the stop after round 1's error leaves later rounds unapplied
    store = FakeStore()
    load(store, layered_network(width=4, layers=1))
    critic = KeyedCritic(rate_limit_on="d1-0", seconds=0.1)
    calls = CallPolicy(sleep=lambda s: None, rate_limit_tries=1)  # the first 429 is fatal
    result = review_run(store, critic, parallel=3, calls=calls)
    assert result.status is RunStatus.ERROR and result.report.stop_reason is StopReason.ERROR
    assert len(result.rounds) == 1 and "rate-limited 1 times" in (result.error or "")
    assert result.report.discarded is not None and result.report.discarded.rounds == 2
    assert result.report.to_json()["discarded"]["calls"] == 2
    assert all(not c.review_sha256 for c in store.read(lambda tx: tx.review_candidates()))
