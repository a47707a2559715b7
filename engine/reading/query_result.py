"""What a query of the pack returns, as plain values: rows of cells, where a graph element is
a GraphNode or GraphEdge (the store converts the driver's), so neither the query pack nor the
Store protocol depends on the driver, or on each other.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any


@dataclass(frozen=True)
class GraphNode:
    """A node in a query result: `key` is the database's element id."""

    key: str
    labels: tuple[str, ...]
    properties: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def as_dict(self) -> dict[str, Any]:
        return {"labels": list(self.labels), "properties": dict(self.properties)}


@dataclass(frozen=True)
class GraphEdge:
    key: str
    type: str
    source: str  # key of the start node
    target: str  # key of the end node
    properties: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def as_dict(self) -> dict[str, Any]:
        return {"type": self.type, "properties": dict(self.properties)}


@dataclass(frozen=True)
class QueryResult:
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]

    def records(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row)) for row in self.rows]
