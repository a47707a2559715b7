"""Neo4jTx part: the reads of `compact` and `ask` and the summary mark (engine/reading/records.py's
ReadingTx), queries in cypher/reading/compact.cypher. Each query returns its rows collected
in one record."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from adapters.neo4j.base import TxBase
from engine.reading.records import (
    NetworkCounts,
    ReadingTx,
    Row,
    Section,
    SectionRows,
    SummaryCover,
    VisibleNetwork,
)

_QUERIES = {
    Section.NOGOODS: "compact_nogoods",
    Section.GATED: "compact_gated",
    Section.PREMISES: "compact_premises",
    Section.DEEPEST: "compact_deepest",
    Section.DEFEATED: "compact_defeated",
}


def cone_size(root: str, children: dict[str, list[str]],
              counted: set[str] | None = None) -> int:
    """How many beliefs are reachable from `root` through `children` (not `root` itself);
    with `counted`, only those of them that are in it."""
    seen = {root}
    stack = [root]
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in seen:
                seen.add(child)
                stack.append(child)
    seen.discard(root)
    return len(seen) if counted is None else len(seen & counted)


def row_from_list(values: Sequence[Any]) -> Row:
    bid, text, truth, depth, note = values
    return Row(str(bid), str(text or ""), str(truth), depth, str(note or ""))


def nogood_row(values: Sequence[Any]) -> Row:
    nid, members, state, found_by, resolution = values
    note = ", ".join(p for p in (f"found by {found_by}" if found_by else "", resolution) if p)
    return Row(str(nid), ", ".join(members), str(state), None, note)


class ReadingTxPart(TxBase):
    def section_rows(self, section: Section, scope: Sequence[str] | None, limit: int
                     ) -> SectionRows:
        scope_ids = list(scope) if scope is not None else None
        if section is Section.CHANGES:
            return self._recent_out(scope_ids, limit)
        record = self._single(_QUERIES[section], scope=scope_ids, limit=int(limit))
        if record is None:
            return SectionRows(0)
        convert = nogood_row if section is Section.NOGOODS else row_from_list
        return SectionRows(int(record["total"]), tuple(convert(r) for r in record["rows"]))

    def _recent_out(self, scope: list[str] | None, limit: int) -> SectionRows:
        log = self._single("compact_change_log", scope=scope, limit=int(limit))
        if log is not None and log["present"]:
            return SectionRows(int(log["total"]), tuple(row_from_list(r) for r in log["rows"]),
                               source="change log")
        record = self._single("compact_retracted", scope=scope, limit=int(limit))
        if record is None:
            return SectionRows(0, source="retractions")
        return SectionRows(int(record["total"]), tuple(row_from_list(r) for r in record["rows"]),
                           source="retractions")

    def summary_covers(self, scope: Sequence[str] | None) -> list[SummaryCover]:
        record = self._single("compact_summaries",
                              scope=list(scope) if scope is not None else None)
        if record is None:
            return []
        return [SummaryCover(str(sid), str(text or ""), depth, tuple(sorted(covered)))
                for sid, text, depth, covered in record["summaries"]]

    def impacts(self, ids: Iterable[str], visible_to: frozenset[str] | None = None
                ) -> dict[str, int]:
        # The dependents of the region above `ids` come in waves (one statement per level,
        # every source's frontier at once, so shared cones are read once; beliefs passed by
        # element id, which needs no index lookup); each source's cone is then counted in
        # Python. Cypher's shortest-path search per source was 100 times slower on a
        # layered network.
        wanted = sorted(set(ids))
        children: dict[str, list[str]] = {}
        if wanted and all(i in self._element_of and self._element_of[i] in self._first_wave
                          for i in wanted):  # shown in this read: the first wave is known
            element_of = {i: self._element_of[i] for i in wanted}
            children.update((e, self._first_wave[e]) for e in element_of.values())
            frontier = sorted({d for e in element_of.values() for d in children[e]}
                              - children.keys())
        else:
            record = self._single("reading_elements", ids=wanted)
            element_of = {str(i): str(e) for i, e in record["rows"]} if record else {}
            frontier = sorted(set(element_of.values()))
        while frontier:
            record = self._single("reading_dependents_wave", elements=frontier)
            rows = record["rows"] if record else []
            nxt: set[str] = set()
            for element, deps in rows:
                children[str(element)] = [str(d) for d in deps]
                nxt.update(str(d) for d in deps)
            frontier = sorted(nxt - children.keys())
        counted = None
        if visible_to is not None:
            record = self._single("reading_visible_elements", elements=sorted(children),
                                  visible_to=sorted(visible_to))
            counted = {str(e) for e in record["elements"]} if record else set()
        return {bid: cone_size(element, children, counted)
                for bid, element in element_of.items()}

    def around_ids(self, belief_id: str, steps: int) -> list[str] | None:
        record = self._single("reading_around_scope", id=belief_id, steps=int(steps))
        if record is None or not record["found"]:
            return None
        return sorted(str(i) for i in record["ids"])

    def network_counts(self) -> NetworkCounts:
        record = self._single("compact_counts")
        if record is None:
            return NetworkCounts(0, 0, 0, 0)
        return NetworkCounts(int(record["beliefs"]), int(record["in_count"]),
                             int(record["out_count"]), int(record["nogoods"]))

    def visible_network(self, visible_to: frozenset[str]) -> VisibleNetwork:
        record = self._single("visible_network", visible_to=sorted(visible_to))
        if record is None:
            return VisibleNetwork(frozenset(), 0, 0)
        return VisibleNetwork(frozenset(str(i) for i in record["ids"]),
                              int(record["in_count"]), int(record["nogoods"]))

    def mark_summary(self, belief_id: str) -> bool:
        record = self._single("mark_summary", id=belief_id)
        return bool(record and record["found"])


# The protocol this part implements, checked by mypy.
_IMPLEMENTS: type[ReadingTx] = ReadingTxPart
