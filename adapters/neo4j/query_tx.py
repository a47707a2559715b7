"""Neo4jTx part: running a query of the pack (cypher/queries/) and turning its values into
plain Python: graph nodes and relationships become engine.reading.records.GraphNode / GraphEdge
(without the `embedding` vector), temporal and spatial values their ISO text."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import neo4j.graph

from adapters.cypher_files import cypher
from adapters.neo4j.base import TxBase
from adapters.query_pack import is_pack_query
from engine.errors import NotFound
from engine.reading.records import GraphEdge, GraphNode, PackTx, QueryResult

HIDDEN_PROPERTIES = frozenset({"embedding", "embedding_text"})


def _properties(entity: neo4j.graph.Entity) -> dict[str, Any]:
    return {k: plain(v) for k, v in entity.items() if k not in HIDDEN_PROPERTIES}


def plain(value: Any) -> Any:
    """A driver value as plain Python (a path becomes its nodes and edges, in order)."""
    if isinstance(value, neo4j.graph.Node):
        return GraphNode(value.element_id, tuple(sorted(value.labels)), _properties(value))
    if isinstance(value, neo4j.graph.Relationship):
        start, end = value.start_node, value.end_node
        assert start is not None and end is not None  # the driver gives a returned edge both
        return GraphEdge(value.element_id, value.type, start.element_id, end.element_id,
                         _properties(value))
    if isinstance(value, neo4j.graph.Path):
        items: list[Any] = [plain(value.start_node)]
        for rel in value.relationships:
            items += [plain(rel), plain(rel.end_node)]
        return items
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    iso = getattr(value, "iso_format", None)
    return iso() if callable(iso) else str(value)


class QueryTxPart(TxBase):
    def run_pack_query(self, name: str, params: Mapping[str, Any]) -> QueryResult:
        if not is_pack_query(name):
            raise NotFound("query", name)
        result = self._tx.run(cypher(name), dict(params))
        columns = tuple(result.keys())
        rows = tuple(tuple(plain(record[c]) for c in columns) for record in result)
        return QueryResult(columns, rows)


# The protocol this part implements, checked by mypy.
_IMPLEMENTS: type[PackTx] = QueryTxPart
