"""Impact: how many beliefs rest on a belief, directly or through others (its transitive
dependents through antecedents), counted in Cypher. `show` prints it, `list --sort impact`
orders by it, `compact` ranks premises by it."""
from __future__ import annotations

from collections.abc import Iterable

from engine.reading.records import ReadingTx
from engine.store import Store

BATCH = 500  # ids per statement


def impacts(store: Store[ReadingTx], ids: Iterable[str]) -> dict[str, int]:
    """Impact of each id that exists, in one read transaction."""
    return store.read(lambda tx: impacts_in(tx, ids))


def impacts_in(tx: ReadingTx, ids: Iterable[str]) -> dict[str, int]:
    """impacts inside a read the caller holds."""
    wanted = sorted(set(ids))
    found: dict[str, int] = {}
    for start in range(0, len(wanted), BATCH):
        found.update(tx.impacts(wanted[start:start + BATCH]))
    return found
