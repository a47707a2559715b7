"""The write lock (adapters/neo4j/write_lock.py): writers that overlap are applied one after
another, so the labels stay the well-founded model; a writer that waits longer than its bound
gives up with one clear error and writes nothing; readers are never blocked."""
from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests.in_process import eem

from adapters.cypher_files import cypher
from adapters.neo4j.store import Neo4jStore
from engine import tms
from engine.errors import WriteLockTimeout
from engine.model import Truth

pytestmark = pytest.mark.neo4j

ROOT = Path(__file__).resolve().parents[2]
J = tms.make_justifications
RACE_TRIALS = 40


def truths(store, ids):
    return {i: b.truth for i, b in tms.show_many(store, ids).items()}


def race_network(store) -> None:
    """The issue's network: premises a and b retracted; d from a, b (ALL); e from d, a."""
    tms.add(store, "a", "premise a")
    tms.add(store, "b", "premise b")
    tms.add(store, "d", "d holds when a and b do", J(["a", "b"]))
    tms.add(store, "e", "e holds when d and a do", J(["d", "a"]))
    tms.retract(store, "a")
    tms.retract(store, "b")


def test_two_writers_asserting_one_premise_each_end_in_the_well_founded_model(store):
    """Without the lock each transaction read the other's premise OUT before the other
    committed, so neither saw both IN and d, e stayed OUT (16 of 40 trials in the issue)."""
    for trial in range(RACE_TRIALS):
        tms.reset(store)
        race_network(store)
        barrier = threading.Barrier(2)
        failures: list[BaseException] = []

        def writer(bid: str) -> None:
            try:
                barrier.wait(timeout=30)
                tms.assert_belief(store, bid)
            except BaseException as e:  # reported below with the trial number
                failures.append(e)

        threads = [threading.Thread(target=writer, args=(bid,)) for bid in ("a", "b")]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert not failures, f"trial {trial}: {failures}"
        assert truths(store, ["a", "b", "d", "e"]) == dict.fromkeys("abde", Truth.IN), trial
        assert tms.verify(store) == [], trial


class HeldLock:
    """Another client holding the write lock in an open transaction."""

    def __init__(self, driver, database: str):
        self._session = driver.session(database=database)
        self._tx = self._session.begin_transaction()
        self._tx.run(cypher("take_write_lock")).consume()

    def release(self) -> None:
        if not self._tx.closed():
            self._tx.rollback()
        self._session.close()


@pytest.fixture
def held_lock(store, driver, neo4j_settings):
    tms.add(store, "p", "a premise")
    tms.add(store, "q", "from p", J(["p"]))
    lock = HeldLock(driver, neo4j_settings.database)
    yield lock
    lock.release()


def test_a_writer_waiting_past_its_bound_gives_up_and_writes_nothing(driver, neo4j_settings,
                                                                     held_lock):
    impatient = Neo4jStore(driver, neo4j_settings.database, neo4j_settings.uri, lock_timeout=1)
    started = time.monotonic()
    with pytest.raises(WriteLockTimeout, match="EEM_LOCK_TIMEOUT") as info:
        tms.retract(impatient, "p")
    waited = time.monotonic() - started
    assert 1 <= waited < 10
    assert "\n" not in str(info.value) and info.value.exit_code == 2
    held_lock.release()
    assert truths(impatient, ["p", "q"]) == {"p": Truth.IN, "q": Truth.IN}
    assert tms.retract(impatient, "p").went_out == ["p", "q"]  # the lock is free again


def test_what_if_waits_for_the_lock_too(driver, neo4j_settings, held_lock):
    impatient = Neo4jStore(driver, neo4j_settings.database, neo4j_settings.uri, lock_timeout=1)
    with pytest.raises(WriteLockTimeout):
        tms.what_if(impatient, "retract", "p")


def test_readers_are_not_blocked_by_a_held_lock(store, held_lock):
    started = time.monotonic()
    assert tms.status(store).beliefs == 2
    assert tms.verify(store) == []
    assert tms.show(store, "q")[0].truth == Truth.IN
    assert time.monotonic() - started < 5


def test_a_waiting_writer_goes_ahead_when_the_lock_is_released(store, held_lock):
    done = threading.Event()
    result = {}

    def writer():
        result["change"] = tms.retract(store, "p")
        done.set()

    thread = threading.Thread(target=writer)
    thread.start()
    assert not done.wait(1.0)  # waiting on the lock
    held_lock.release()
    thread.join(timeout=30)
    assert result["change"].went_out == ["p", "q"]


@pytest.fixture
def cli_env(neo4j_settings) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "EEM_"))}
    e.update(NEO4J_URI=neo4j_settings.uri, NEO4J_USER=neo4j_settings.user,
             NEO4J_PASSWORD=neo4j_settings.password or "",
             NEO4J_DATABASE=neo4j_settings.database, PYTHONIOENCODING="utf-8", EEM_SERVE="0")
    return e


def _engine(args, env) -> subprocess.CompletedProcess:
    return eem(args, env)


def test_cli_writer_past_eem_lock_timeout_gets_one_line_and_exit_2(cli_env, held_lock, store):
    done = _engine(["retract", "p"], dict(cli_env, EEM_LOCK_TIMEOUT="1.5"))
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "EEM_LOCK_TIMEOUT" in lines[0]
    assert done.stdout == ""
    held_lock.release()
    assert truths(store, ["p"]) == {"p": Truth.IN}


@pytest.mark.parametrize("value", ["soon", "0", "-3", "inf", "nan"])
def test_cli_refuses_a_bad_eem_lock_timeout(cli_env, store, value):
    tms.add(store, "p", "a premise")
    done = _engine(["retract", "p"], dict(cli_env, EEM_LOCK_TIMEOUT=value))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"Error: EEM_LOCK_TIMEOUT must be a positive number of seconds, not {value!r}"]
    assert truths(store, ["p"]) == {"p": Truth.IN}


def test_the_lock_node_is_outside_the_network(store):
    tms.add(store, "p", "a premise")
    tms.reset(store)
    tms.add(store, "p", "a premise again")
    assert tms.status(store).beliefs == 1
    assert tms.verify(store) == []
