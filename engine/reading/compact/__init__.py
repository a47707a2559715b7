"""`python -m engine compact`: a token-budgeted summary of the network for an agent."""
from __future__ import annotations

from engine.reading.compact.build import Compact, CompactOptions, compact_in
from engine.store import Store
from engine.tokens import ESTIMATE, TokenCounter

__all__ = ["Compact", "CompactOptions", "compact", "compact_in"]


def compact(store: Store, options: CompactOptions | None = None,
            counter: TokenCounter = ESTIMATE) -> Compact:
    """The summary, read in one transaction (so it is one consistent state)."""
    chosen = options or CompactOptions()
    return store.read(lambda tx: compact_in(tx, chosen, counter))
