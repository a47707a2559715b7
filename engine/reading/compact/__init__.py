"""`python -m engine compact`: a token-budgeted summary of the network for an agent."""
from __future__ import annotations

from engine.embedding.cache import Embedder
from engine.reading.compact.build import Compact, CompactOptions, CompactTx, compact_in
from engine.reading.ranking import meaning_of
from engine.store import Store
from engine.tokens import ESTIMATE, TokenCounter

__all__ = ["Compact", "CompactOptions", "compact", "compact_in"]


def compact(store: Store[CompactTx], options: CompactOptions | None = None,
            counter: TokenCounter = ESTIMATE, *, embedder: Embedder | None = None) -> Compact:
    """The summary, read in one transaction (so it is one consistent state); a --topic
    scope by meaning as well with `embedder` (MissingEmbeddings while some are missing)."""
    chosen = options or CompactOptions()
    meaning = meaning_of(embedder, " ".join(chosen.topic)) if chosen.topic else None
    return store.read(lambda tx: compact_in(tx, chosen, counter, meaning=meaning))
