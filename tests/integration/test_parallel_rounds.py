"""`--parallel` on the real Neo4j: review with several model calls in flight ends with the
labels and report totals of a sequential run (each round still applied in its own write
transaction, what rests on a round's beliefs waiting for it), and a rate-limited call is
waited on, tried again and counted."""
from __future__ import annotations

import hashlib

import pytest

from adapters.sources.reader import FileSourceReader
from engine import tms
from engine.model import Belief, Justification, Truth
from engine.review.stage import ReviewSettings, ReviewStage
from engine.review_premises.stage import PremiseReviewStage, PremiseSettings
from engine.sources.records import SourcePin, SourceRecord
from engine.stages.calls import CallPolicy
from engine.stages.contract import unconstrained
from engine.stages.report import Outcome, RunStatus
from engine.stages.run import RunOptions, RunResult, run_stage
from engine.stages.stage import Action
from tests.conftest import empty_graph
from tests.derive_fakes import load
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
    assert parallel.stopped == "nothing left to show"
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


# --- premise review ------------------------------------------------------------------------
FACTS = [f"Fact {i} holds for service {i}." for i in range(12)]
SOURCE = "docs/facts.md"
MISREAD_PREMISES = frozenset({"fact-3", "fact-8"})


def load_sourced_facts(store, root) -> None:
    """Twelve premises, each pinned to its own line of one file; a belief on every pair."""
    text = "\n".join(FACTS) + "\n"
    (root / "docs").mkdir(parents=True, exist_ok=True)
    (root / SOURCE).write_text(text, encoding="utf-8")
    digest = hashlib.sha256(text.encode()).hexdigest()
    premises = [Belief(f"fact-{i}", fact) for i, fact in enumerate(FACTS)]
    derived_ = [Belief(f"pair-{i}", f"Services {i} and {i + 1} hold together.",
                       (Justification((f"fact-{i}", f"fact-{i + 1}")),))
                for i in range(0, 12, 2)]

    def work(tx):
        tms.add_beliefs_in(tx, premises + derived_)
        tx.save_sources([SourceRecord(SOURCE, digest, len(text), "2026-12-04T08:00:00+00:00")])
        tx.pin_to_sources([SourcePin(f"fact-{i}", SOURCE, digest, (i + 1, i + 1),
                                     {"quote": fact, "lines": [i + 1, i + 1]},
                                     "2026-12-04T08:00:00") for i, fact in enumerate(FACTS)])

    store.write(work)


def premise_run(store, root, critic: KeyedCritic, parallel: int) -> RunResult:
    stage = PremiseReviewStage(FileSourceReader(root), PremiseSettings(budget=2))
    options = RunOptions(model="keyed", exhaust=True, max_rounds=100, calls=NO_SLEEP,
                         parallel=parallel, params={"parallel": parallel})
    return run_stage(store, stage, unconstrained(critic), options)


@pytest.mark.slow
def test_parallel_premise_review_ends_as_the_sequential_run(store, driver, neo4j_settings,
                                                             tmp_path):
    load_sourced_facts(store, tmp_path)
    sequential = premise_run(store, tmp_path, KeyedCritic(premises=True,
                                                          invalid=MISREAD_PREMISES), 1)
    seq_labels = labels(store)

    empty_graph(driver, neo4j_settings.database)
    load_sourced_facts(store, tmp_path)
    critic = KeyedCritic(premises=True, invalid=MISREAD_PREMISES, seconds=0.2)
    parallel = premise_run(store, tmp_path, critic, 3)

    assert labels(store) == seq_labels
    assert tms.verify(store) == []
    assert comparable(parallel) == comparable(sequential)
    shown = [i for r in parallel.rounds for i in r.shown]
    assert len(shown) == len(set(shown)) == 12  # every premise judged once, by one round
    assert critic.most_in_flight > 1 and parallel.report.parallel == 3
    # a misread premise is retracted and what rested on it went OUT; the rest stay IN
    assert seq_labels["fact-3"] == seq_labels["pair-2"] == Truth.OUT.value
    assert seq_labels["fact-4"] == seq_labels["pair-4"] == Truth.IN.value
    assert sequential.report.totals.applied == parallel.report.totals.applied == 12
