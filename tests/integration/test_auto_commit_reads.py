"""A store's reads run their statements as auto-commit queries (adapters/neo4j/base.py's
AutoCommitReads: one round trip a statement) and keep what a read transaction gave: the
command's metadata, by which the resident engine finds and ends a cancelled command's work;
the retries after a transient failure; the errors as the engine's."""
from __future__ import annotations

import threading
import time

import neo4j
import pytest
from neo4j import exceptions as neo4j_errors

from adapters.neo4j.store import Neo4jStore
from adapters.neo4j.transactions import terminate_command_transactions
from engine import tms
from engine.errors import StoreError

pytestmark = pytest.mark.neo4j

SLOW = "UNWIND range(1, 400000000) AS i WITH i WHERE i % 7 = 99 RETURN count(i) AS n"


def test_a_read_runs_without_a_transaction_and_answers(store):
    tms.add(store, "p", "A premise.")
    runners = []

    def work(tx):
        runners.append(type(tx._tx).__name__)
        return tx.shown_belief("p")

    belief, dependents = store.read(work)
    assert belief.id == "p" and dependents == set() and runners == ["AutoCommitReads"]


def test_a_cancelled_commands_read_is_ended_by_its_metadata(store, driver, neo4j_settings):
    command = Neo4jStore(driver, neo4j_settings.database, neo4j_settings.uri,
                         tx_metadata={"eem_command": "c-47"})
    outcome: list[BaseException | int] = []

    def reading() -> None:
        try:
            outcome.append(command.read(lambda tx: tx._tx.run(SLOW).single()["n"]))
        except BaseException as e:  # noqa: BLE001 - handed to the test's thread
            outcome.append(e)

    reader = threading.Thread(target=reading)
    started = time.monotonic()
    reader.start()
    ended = 0
    while not ended and time.monotonic() - started < 30:
        ended = terminate_command_transactions(driver, neo4j_settings.database, "c-47")
        time.sleep(0.05)
    reader.join(timeout=30)
    assert ended == 1 and not reader.is_alive()
    assert isinstance(outcome[0], StoreError) and "Terminated" in str(outcome[0]), outcome
    assert time.monotonic() - started < 20  # ended, not run to its end


def test_a_transient_failure_reads_again_in_a_transaction_the_driver_retries(store):
    tms.add(store, "p", "A premise.")
    runners = []

    def work(tx):
        runners.append(type(tx._tx))
        shown = tx.shown_belief("p")
        if len(runners) == 1:  # what a dropped connection or a leader change raises
            raise neo4j_errors.SessionExpired("the connection to the reader was lost")
        return shown

    belief, _ = store.read(work)
    assert belief.id == "p"
    assert [t.__name__ for t in runners] == ["AutoCommitReads", "ManagedTransaction"]
    assert issubclass(runners[1], neo4j.ManagedTransaction)


def test_a_failed_read_is_the_engines_error(store):
    with pytest.raises(StoreError, match="Neo4j query failed"):
        store.read(lambda tx: tx._tx.run("RETURN 1 / 0 AS n").single())


def test_show_reads_its_impact_and_links_with_the_belief(store, monkeypatch):
    from adapters.neo4j import base
    from engine.memory.supersede import supersede
    from engine.reading.impact import impacts
    from engine.service import reading
    from engine.service.context import Context

    tms.add(store, "p", "A premise.")
    tms.add(store, "a", "From p.", tms.make_justifications(["p"]))
    tms.add(store, "b", "From a.", tms.make_justifications(["a"]))
    tms.add(store, "c", "From p, unless q.", tms.make_justifications(["p"], unless=["q"]))
    supersede(store, "c", text="From p, unless q, reworded.", new_id="c2")
    ctx = Context(store, "test")
    statements: list[str] = []
    run = base.AutoCommitReads.run
    monkeypatch.setattr(base.AutoCommitReads, "run",
                        lambda self, query, parameters=None: statements.append(query)
                        or run(self, query, parameters))

    for belief_id, expected in (("p", 3), ("b", 1), ("c", 1)):
        statements.clear()
        shown = reading.show(ctx, belief_id)
        # the belief with its first wave and links in one statement, then one a later wave
        # (p: a, c, c2, then b, then none); a belief nothing rests on reads no cone
        assert len(statements) == expected, (belief_id, statements)
        belief, dependents = tms.show(store, belief_id)  # each on its own, as before
        assert (shown.belief, list(shown.dependents)) == (belief, dependents)
        assert shown.impact == impacts(store, [belief_id]).get(belief_id, 0)
        assert (list(shown.superseded_by), list(shown.supersedes)) == tms.supersede_links(
            store, belief_id)
    assert reading.show(ctx, "p").impact == 4  # a, b, c, c2
    assert reading.show(ctx, "c").superseded_by == ("c2",)
    assert reading.show(ctx, "c2").supersedes == ("c",)
