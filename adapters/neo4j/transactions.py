"""Ending the transactions of one command of the resident engine (its caller pressed Ctrl-C).

Every transaction of a resident command carries `{eem_command: <id>}` in its metadata
(engine/wiring/store.BorrowedDriver); terminating them rolls each back and releases its locks,
so a command waiting for the write lock, or in the middle of its work, stops at once and
writes nothing.
"""
from __future__ import annotations

import neo4j
from neo4j import exceptions as neo4j_errors

from adapters.cypher_files import cypher


def terminate_command_transactions(driver: neo4j.Driver, database: str, command: str) -> int:
    """Terminate the running transactions of `command`; how many there were (0 when the
    server could not be asked: the command then ends at its next transaction)."""
    try:
        # write access: on a cluster, the session reaches the leader a writer is on
        with driver.session(database=database,
                            default_access_mode=neo4j.WRITE_ACCESS) as session:
            ids = [r["transactionId"] for r in session.run(cypher("transactions_of_command"),
                                                           command=command)]
            if ids:
                session.run(cypher("terminate_transactions"), ids=ids).consume()
            return len(ids)
    except (neo4j_errors.Neo4jError, neo4j_errors.DriverError):
        return 0
