"""Moved to engine/pairs/candidates.py (contradictions shares it); the names, kept here."""
from engine.pairs.candidates import (  # noqa: F401
    Cluster,
    Pair,
    complete_link,
    current_verdicts,
    embedding_pairs,
    ensure_current_embeddings,
    id_token_pairs,
    id_tokens,
    jaccard,
    pair,
    unjudged,
)
