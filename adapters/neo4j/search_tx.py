"""Neo4jTx part (SearchTx): full-text search over beliefs, and derive's premise pool.

Queries in cypher/search.cypher and cypher/derive/embeddings.cypher; the belief_text full-text
index is in cypher/schema.cypher.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from adapters.neo4j.base import TxBase
from adapters.neo4j.embedding_tx import as_floats, score_to_cosine
from engine.model import Truth
from engine.reading.records import BeliefHit
from engine.reading.records import SearchTx


FETCH_FACTOR = 4
MIN_FETCH = 40
MEANING_OVERFETCH = 2  # nearest vectors asked for per hit wanted when OUT ones drop out
_LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')


def lucene_query(words: Sequence[str]) -> str:
    """Each word as a term and as a prefix, special characters escaped; lower case, so a
    word like AND or NOT is a term, never an operator. Terms are OR-ed (Lucene's default)."""
    terms = []
    for word in words:
        escaped = _LUCENE_SPECIAL.sub(r"\\\1", word.strip().lower())
        if escaped:
            terms += [escaped, escaped + "*"]
    return " ".join(terms)


def hit_from_row(row: Sequence[Any]) -> BeliefHit:
    bid, text, truth, depth, dependents = row
    return BeliefHit(bid, text or "", Truth(truth), depth, int(dependents))


class SearchTxPart(TxBase):
    def search_text(self, words: Sequence[str], limit: int, include_out: bool) -> list[BeliefHit]:
        query = lucene_query(words)
        if not query:
            return []
        # Lucene is asked for a few times `limit` best matches, not all of them (a common word
        # matches most of a big network); only when OUT ones leave too few is it asked again.
        fetch = max(int(limit) * FETCH_FACTOR, MIN_FETCH)
        while True:
            record = self._one("search_text", query=query, limit=int(limit), fetch=fetch,
                               include_out=bool(include_out))
            hits = [hit_from_row(r) for r in record["hits"]]
            if len(hits) >= limit or record["fetched"] < fetch:
                return hits
            fetch *= FETCH_FACTOR * 4

    def search_meaning(self, vector: Sequence[float], limit: int, include_out: bool
                       ) -> list[tuple[BeliefHit, float]]:
        fetch = int(limit) if include_out else int(limit) * MEANING_OVERFETCH
        record = self._single("search_meaning", vector=as_floats(vector), fetch=fetch,
                              limit=int(limit), include_out=bool(include_out))
        return [(hit_from_row(r[:5]), score_to_cosine(r[5])) for r in record["hits"]] \
            if record else []

    def belief_hits(self, ids: Iterable[str]) -> dict[str, BeliefHit]:
        record = self._single("search_belief_hits", ids=sorted(set(ids)))
        hits = [hit_from_row(r) for r in record["hits"]] if record else []
        return {h.id: h for h in hits}

    def justification_links(self, ids: Iterable[str]) -> dict[str, frozenset[str]]:
        record = self._single("search_links", ids=sorted(set(ids)))
        return {bid: frozenset(named) for bid, named in record["rows"]} if record else {}

    def neighbours(self, ids: Sequence[str], depth: int) -> dict[str, int]:
        found: dict[str, int] = {}
        seen = set(ids)
        frontier = sorted(seen)
        for distance in range(1, int(depth) + 1):
            if not frontier:
                break
            record = self._single("search_neighbour_step", ids=frontier)
            frontier = sorted(set(record["ids"] if record else ()) - seen)
            seen.update(frontier)
            found.update((i, distance) for i in frontier)
        return found

    def premise_pool(self, topic_words: Sequence[str] = ()) -> list[tuple[str, str]]:
        words = sorted({w.lower() for w in topic_words if w.strip()})
        record = self._single("premise_pool", words=words)
        return [(i, t) for i, t in record["pool"]] if record else []


# The protocol this part implements, checked by mypy.
_IMPLEMENTS: type[SearchTx] = SearchTxPart
