"""A derive round applying while another client retracts an antecedent of its proposal: the
round validates and applies inside the write lock, so the proposal is applied with the label
the retraction leaves it (or skipped with its reason), never with a stale one."""
from __future__ import annotations

import threading
from typing import Any

import pytest

from adapters.neo4j.store import Neo4jStore
from engine import tms
from engine.stages.calls import CallPolicy
from engine.derive.run import DeriveOptions, derive
from engine.model import Truth
from tests.derive_fakes import (
    RecordingModelForRound,
    ScriptedChatModel,
    alphabetical,
    block,
    load,
    premise,
    reply,
)

pytestmark = pytest.mark.neo4j

PREMISES = [premise("cache-ttl-short", "Cache entries live 5 seconds."),
            premise("db-reads-heavy", "The database serves most reads.")]
PROPOSAL = reply(block("origin-load-high", ["cache-ttl-short", "db-reads-heavy"],
                       text="The origin carries a high load."))
OVERLAP_TRIALS = 12


class ChatThatWaits(ScriptedChatModel):
    """Runs `meanwhile` (another client's write) before answering: the model 'thinking'."""

    meanwhile: Any = None

    def _generate(self, *args, **kwargs):
        if self.meanwhile is not None:
            self.meanwhile()
        return super()._generate(*args, **kwargs)


def other_client(driver, neo4j_settings) -> Neo4jStore:
    return Neo4jStore(driver, neo4j_settings.database, neo4j_settings.uri)


def one_round(store, chat) -> Any:
    return derive(store, RecordingModelForRound(chat), alphabetical(),
                  DeriveOptions(model="scripted", auto=True,
                                calls=CallPolicy(sleep=lambda s: None)))


def test_antecedent_retracted_while_the_model_thinks(store, driver, neo4j_settings):
    load(store, PREMISES)
    other = other_client(driver, neo4j_settings)
    chat = ChatThatWaits(script=[PROPOSAL],
                         meanwhile=lambda: tms.retract(other, "db-reads-heavy"))
    result = one_round(store, chat)
    (done,) = result.rounds
    assert done.applied == [{"id": "origin-load-high", "truth_value": "OUT"}]
    assert tms.show(store, "origin-load-high")[0].truth == Truth.OUT
    assert tms.verify(store) == []


class StoreAtBarrier:
    """The store, but each write first waits at a barrier another client also waits at."""

    def __init__(self, store, barrier: threading.Barrier):
        self._store = store
        self._barrier = barrier

    def read(self, work):
        return self._store.read(work)

    def write(self, work, entry=None):
        self._barrier.wait(timeout=30)
        return self._store.write(work, entry)

    def dry_run(self, work):
        return self._store.dry_run(work)

    def init_schema(self) -> None:
        self._store.init_schema()

    def close(self) -> None:
        pass


def test_round_apply_and_retraction_at_the_same_moment(store, driver, neo4j_settings):
    other = other_client(driver, neo4j_settings)
    for trial in range(OVERLAP_TRIALS):
        tms.reset(store)
        load(store, PREMISES)
        barrier = threading.Barrier(2)
        failures: list[BaseException] = []

        def retract() -> None:
            try:
                barrier.wait(timeout=30)
                tms.retract(other, "cache-ttl-short")
            except BaseException as e:
                failures.append(e)

        thread = threading.Thread(target=retract)
        thread.start()
        result = one_round(StoreAtBarrier(store, barrier), ScriptedChatModel(script=[PROPOSAL]))
        thread.join(timeout=60)
        assert not failures, failures
        (done,) = result.rounds
        assert done.outcome == "proposed", (trial, done.error)
        assert tms.show(store, "cache-ttl-short")[0].truth == Truth.OUT
        # applied IN then taken OUT by the retraction's cascade, or applied OUT after it:
        # whichever committed first, the new belief ends OUT, its antecedent retracted
        assert tms.show(store, "origin-load-high")[0].truth == Truth.OUT, trial
        assert tms.verify(store) == [], trial
