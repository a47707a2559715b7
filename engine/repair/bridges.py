"""Candidate bridges for a defeated justification: IN beliefs near what it lacks (review's
missing property, or the challenge), by the hybrid search of engine/reading/search.py (words, and
meaning when an embedder is given). The belief itself, what the justification already
names and its defeaters are left out; whether a candidate rests on the belief is checked
when the repairer names it (validate.py), not for every candidate shown.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.reading.search import HybridSearchTx, SearchHit, search_in
from engine.repair.due import Defeated

MAX_QUERY_WORDS = 40


def query_text(d: Defeated, claim: str) -> str:
    """What to search for: what is missing, per defeat; the claim when nothing is said."""
    parts = [x.missing for x in d.defeats if x.missing.strip()]
    return " ".join(parts) if parts else claim


def query_words(text: str) -> list[str]:
    return text.split()[:MAX_QUERY_WORDS]


def candidates(tx: HybridSearchTx, d: Defeated, named: Sequence[str], words: Sequence[str],
               vector: Sequence[float] | None, limit: int) -> list[SearchHit]:
    if not words or limit <= 0:
        return []
    skip = {d.belief, *named, *d.defeater_ids}
    hits = search_in(tx, words, limit=limit + len(skip), vector=vector)
    return [h for h in hits if h.belief.id not in skip][:limit]


def candidates_for(tx: HybridSearchTx, items: Sequence[Defeated],
                   named: Mapping[str, Sequence[str]], words: Mapping[str, Sequence[str]],
                   vectors: Mapping[str, Sequence[float]], limit: int
                   ) -> dict[str, list[SearchHit]]:
    """Each item's candidates (by item key), in one transaction."""
    return {d.key: candidates(tx, d, named.get(d.key, ()), words.get(d.key, ()),
                              vectors.get(d.key), limit) for d in items}
