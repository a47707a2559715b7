"""Impact: how many beliefs rest on a belief, directly or through others (its transitive
dependents through antecedents), counted in Cypher. `show` prints it, `list --sort impact`
orders by it, `compact` ranks premises by it."""
from __future__ import annotations

from collections.abc import Iterable

from engine.reading.records import ReadingTx
from engine.store import Store

BATCH = 500  # ids per statement


def impacts(store: Store, ids: Iterable[str]) -> dict[str, int]:
    """Impact of each id that exists, in one read transaction."""
    wanted = sorted(set(ids))

    def work(tx: ReadingTx) -> dict[str, int]:
        found: dict[str, int] = {}
        for start in range(0, len(wanted), BATCH):
            found.update(tx.impacts(wanted[start:start + BATCH]))
        return found

    return store.read(work)
