"""Propagation's reader on Neo4j: engine/tms/propagate.py decides, this runs its reads and
writes as the named queries of cypher/tms/propagate.cypher and cypher/tms/tags.cypher, one
statement a call. Keys are element ids, which the store resolves without an index lookup;
the queries return values as the kernel's ranks (engine/tms/values.py), so rows pass through
as the driver decodes them.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adapters.neo4j.base import TxBase
from engine.tms.region_reader import ClassRow, RegionReader, StructureRow, TagRow, WaveRow
from engine.tms.values import IN, OUT, UNDETERMINED

LABEL_QUERY = {IN: "label_in", OUT: "label_out", UNDETERMINED: "label_undetermined"}


class Neo4jRegionReader:
    def __init__(self, tx: TxBase):
        self._tx = tx
        self.statements = 0  # Cypher statements run, for counting per operation

    def _run(self, name: str, **params: Any):
        self.statements += 1
        return self._tx.run_query(name, **params)

    def _rows(self, name: str, **params: Any) -> Any:
        """The `rows` of a query that collects them in its one record."""
        [record] = self._run(name, **params)
        return record["rows"]

    def keys_of(self, ids: Sequence[str]) -> list[str]:
        known = self._tx.known_element_ids(ids)
        elements = set(known.values())
        unknown = [i for i in ids if i not in known]
        if unknown:
            elements.update(r["element"] for r in self._run("element_ids_of", ids=unknown))
        return sorted(elements)

    def wave(self, frontier: Sequence[str]) -> list[WaveRow]:
        return self._rows("region_wave", elements=frontier)

    def structure(self, keys: Sequence[str]) -> list[StructureRow]:
        return self._rows("region_rows", elements=keys)

    def antecedent_classes(self, keys: Sequence[str]) -> list[ClassRow]:
        return self._rows("antecedent_classes", elements=keys)

    def write_labels(self, rank: int, keys: Sequence[str]) -> list[str]:
        [record] = self._run(LABEL_QUERY[rank], elements=keys)
        return record["ids"]

    def write_depths(self, rows: Sequence[tuple[str, int | None]]) -> None:
        self._run("set_depths", rows=rows)

    def tags_exist(self) -> bool:
        return self._run("tags_exist")[0]["any"]

    def tag_rows(self, keys: Sequence[str]) -> list[TagRow]:
        return self._rows("region_tags", elements=keys)

    def write_tags(self, rows: Sequence[tuple[str, list[str] | None]]) -> None:
        self._run("set_effective_tags", rows=rows)


# The protocol this reader implements, checked by mypy.
_IMPLEMENTS: type[RegionReader] = Neo4jRegionReader
