"""Neo4jTx part: truth maintenance: beliefs, pins, propagation, nogoods."""
from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from adapters.neo4j.base import TxBase
from adapters.neo4j.change_tracker import note_created, note_pinned, note_redefined
from adapters.neo4j.edit_tx import supersede_from_props
from adapters.neo4j.forge_tx import source_from_map
from adapters.neo4j.propagation import Neo4jRegionReader
from adapters.neo4j.records import (
    belief_from_map,
    belief_to_row,
    json_map,
    justification_rows,
    labelled_belief_row,
    nogood_from_record,
)
from engine.bulk import cyclic_gc_paused, in_batches
from engine.model import Belief, Change, Justification, Kind, Label, Nogood, Status, Truth
from engine.tms.access import own_tags
from engine.tms.propagate import propagate, retag
from engine.tms.records import BeliefFilter, JustificationNow, Network, Pinned, TmsTx
from engine.tms.stored_labels import StoredLabels

BATCH = 5000  # rows per UNWIND statement for bulk writes
LABELLED_BATCH = 10_000  # beliefs per statement of an import's stream


def _batches(rows: Sequence[Any], size: int = BATCH):
    for start in range(0, len(rows), size):
        yield rows[start:start + size]


def _first(row: Sequence[Any]) -> Any:
    return row[0]


def _in_order(pairs: list[list[Any]]) -> tuple[str, ...]:
    """The ids of [position, id] pairs, in written order."""
    if not pairs:
        return ()
    if len(pairs) == 1:
        return (pairs[0][1],)
    pairs.sort(key=_first)
    return tuple([i for _, i in pairs])


def _named_now(rows: list[list[Any]]) -> tuple[tuple[str, bool], ...]:
    """The (id, IN now) of [position, id, IN now] rows, in written order."""
    if len(rows) > 1:
        rows.sort(key=_first)
    return tuple([(i, is_in) for _, i, is_in in rows])


READ_BATCH = 10_000  # beliefs per page of belief_rows_page
LABELLING_PAGE = 50_000  # beliefs per statement of verify's read
_KINDS = {k.value: k for k in Kind}
_TRUTHS = {t.value: t for t in Truth}
_NO_MAP: Mapping[str, Any] = MappingProxyType({})  # shared by the many beliefs with "{}"


def _kind(value: str | None) -> Kind:
    """A stored justification kind (absent or empty: SL)."""
    return _KINDS[value or "SL"]


def _map(text: str | None) -> Mapping[str, Any]:
    """A stored JSON object (metadata, extra) read-only; "{}" and absent share one."""
    return MappingProxyType(json_map(text)) if text and text != "{}" else _NO_MAP


def _belief_from_row(row: list[Any]) -> Belief:
    (bid, text, source, source_url, source_hash, date, metadata, extra, created_at, updated_at,
     retracted, asserted, retracted_at, retract_reason, depth, effective_tags, truth, js) = row
    if len(js) > 1:
        js.sort(key=_first)
    return Belief(
        id=bid, text=text or "",
        justifications=tuple(
            Justification(_in_order(antecedents), _in_order(outlist), _kind(kind),
                          label=label or "", gate=bool(gate))
            for _, kind, label, gate, antecedents, outlist in js),
        source=source or "", source_url=source_url or "", source_hash=source_hash or "",
        date=date or "", metadata=_map(metadata), extra=_map(extra),
        created_at=created_at or "", updated_at=updated_at or "", retracted=bool(retracted),
        asserted=bool(asserted), retracted_at=retracted_at or "",
        retract_reason=retract_reason or "", truth=_TRUTHS[truth], depth=depth,
        effective_tags=tuple(effective_tags) if effective_tags else ())


class TmsTxPart(TxBase):
    # --- reads ------------------------------------------------------------------------
    def get_beliefs(self, ids: Iterable[str]) -> dict[str, Belief]:
        out: dict[str, Belief] = {}
        for chunk in _batches(sorted(set(ids))):
            for r in self._run("beliefs_by_id", ids=chunk):
                b = belief_from_map(r["belief"])
                out[b.id] = b
        return out

    def justifications_now(self, ids: Iterable[str]) -> dict[str, tuple[JustificationNow, ...]]:
        out: dict[str, tuple[JustificationNow, ...]] = {}
        for chunk in _batches(sorted(set(ids)), READ_BATCH):
            [record] = self._run("justifications_now", ids=chunk)
            for bid, js in record["rows"]:
                if len(js) > 1:
                    js.sort(key=_first)
                out[bid] = tuple(
                    JustificationNow(gate, _named_now(antecedents), _named_now(outlist))
                    for _, gate, antecedents, outlist in js)
        return out

    def existing_ids(self, ids: Iterable[str]) -> set[str]:
        found: set[str] = set()
        ids = set(ids)
        if len(ids) > BATCH and not self._count("beliefs"):
            return found  # a bulk check against an empty graph (an import): no lookups
        for chunk in _batches(sorted(ids)):
            found.update(r["id"] for r in self._run("existing_belief_ids", ids=chunk))
        return found

    def _count(self, what: str) -> int:
        record = self._single("node_counts")
        return record[what] if record else 0

    def status(self) -> Status:
        r = self._one("status_counts")
        return Status(
            beliefs=r["beliefs"],
            in_=r["in_count"],
            out=r["beliefs"] - r["in_count"],
            undetermined=r["undetermined"],
            premises=r["beliefs"] - r["derived"],
            derived=r["derived"],
            nogoods=r["nogoods"],
            max_depth=r["max_depth"],
            undetermined_ids=tuple(sorted(r["undetermined_ids"])),
            challenged=r["challenged"],
        )

    def list_beliefs(self, which: BeliefFilter) -> list[Belief]:
        records = self._run(
            "list_beliefs",
            truth=which.truth.value if which.truth else None,
            premises=which.premises, challenged=which.challenged, superseded=which.superseded,
            min_depth=which.min_depth, max_depth=which.max_depth,
            has_dependents=which.has_dependents, sort=which.sort, label=which.label,
        )
        return [belief_from_map(r["belief"]) for r in records]

    def out_belief_ids(self) -> list[str]:
        return [r["id"] for r in self._run("out_belief_ids")]

    def upstream(self, ids: Iterable[str]) -> dict[str, Belief]:
        seen = self.existing_ids(ids)
        frontier = sorted(seen)
        while frontier:
            named = {a for r in self._run("antecedent_step", ids=frontier) for a in r["named"]}
            frontier = sorted(named - seen)
            seen.update(frontier)
        return self.get_beliefs(seen)

    def direct_dependents(self, belief_id: str) -> set[str]:
        record = self._single("direct_dependents", id=belief_id)
        return set(record["dependents"]) if record else set()

    def shown_belief(self, belief_id: str) -> tuple[Belief, set[str]] | None:
        record = self._single("belief_with_dependents", id=belief_id)
        if record is None:
            return None
        if self._reading:  # what show reads next, kept: no statement of their own
            element = str(record["element"])
            self._element_of[belief_id] = element
            self._first_wave[element] = [str(e) for e in record["wave"]]
            self._links_of[belief_id] = (sorted(record["superseded_by"]),
                                        sorted(record["supersedes"]))
        return belief_from_map(record["belief"]), set(record["dependents"])

    def forward_reference(self, ref: str) -> tuple[list[str], list[str]] | None:
        record = self._single("forward_reference", id=ref)
        if record is None or not (record["named_by"] or record["nogoods"]):
            return None
        return sorted(record["named_by"]), sorted(record["nogoods"])

    def dependent_counts(self, ids: Iterable[str]) -> dict[str, int]:
        return {r["id"]: r["dependents"] for r in
                self._run("direct_dependent_counts", ids=sorted(set(ids)))}

    def read_network(self) -> Network:
        rest = self.network_rest()
        with cyclic_gc_paused():
            for page in self.belief_pages():
                for b in page:
                    rest.beliefs[b.id] = b
        return rest

    def network_rest(self) -> Network:
        info = self._single("network_info")
        meta = json.loads(info["meta"]) if info and info["meta"] else {}
        repos = json.loads(info["repos"]) if info and info["repos"] else {}
        supersessions = [supersede_from_props(r["old"], r["new"], r["props"])
                         for r in self._run("all_supersessions")]
        record = self._single("forge_sources")
        sources = [source_from_map(m) for m in record["sources"]] if record else []
        return Network({}, self.nogoods(), repos, meta, supersessions, sources)

    def belief_count(self) -> int:
        return self._one("belief_count")["beliefs"]

    def belief_pages(self) -> Iterator[list[Belief]]:
        """READ_BATCH beliefs a statement, by id: the server collects, and the driver decodes,
        one page at a time."""
        after = ""
        while True:
            record = self._single("belief_rows_page", after=after, limit=READ_BATCH)
            rows = record["rows"] if record else []
            if not rows:
                return
            yield [_belief_from_row(row) for row in rows]
            if len(rows) < READ_BATCH:
                return
            after = rows[-1][0]

    def read_labelling(self) -> StoredLabels:
        """Page by page, in id order: the server never collects, nor the driver decodes, more
        than LABELLING_PAGE beliefs at once, and no Belief object is built."""
        stored = StoredLabels()
        after = ""
        while True:
            record = self._single("labelling_page", after=after, limit=LABELLING_PAGE)
            if not record or not record["ids"]:
                return stored
            ids = record["ids"]
            stored.add_page(ids, record["flags"], record["depths"], record["justifications"])
            stored.odd.update(record["odd"])
            for bid, own, effective in record["tagged"]:
                stored.tags[bid] = (tuple(own or ()), tuple(effective or ()))
            if len(ids) < LABELLING_PAGE:
                return stored
            after = ids[-1]

    def nogoods(self) -> list[Nogood]:
        return [nogood_from_record(r) for r in self._run("all_nogoods")]

    def nogoods_holding(self, member_ids: Iterable[str]) -> list[Nogood]:
        """Nogoods with a member among `member_ids` whose members are all IN now."""
        ids = sorted(set(member_ids))
        if not ids or self._nogoods_exist is False:
            return []
        return [Nogood(r["id"], tuple(r["members"])) for r in
                self._run("nogoods_holding_with", ids=ids)]

    def unresolved_nogoods_holding(self) -> list[Nogood]:
        if self._nogoods_exist is False:
            return []
        return [nogood_from_record(r) for r in self._run("unresolved_nogoods_holding")]

    # --- writes -----------------------------------------------------------------------
    def create_beliefs(self, beliefs: Sequence[Belief]) -> None:
        ids = [b.id for b in beliefs]
        note_created(self, ids)
        for chunk in _batches(ids):
            self._run("promote_placeholders", ids=chunk)
        for chunk in _batches([belief_to_row(b) for b in beliefs]):
            self._run("create_belief_nodes", rows=chunk)
        named = sorted({ref for b in beliefs for j in b.justifications for ref in j.mentions()})
        for chunk in _batches(named):
            self._run("ensure_placeholders", ids=chunk)
        rows = [row for b in beliefs for row in justification_rows(b.id, b.justifications)]
        for chunk in _batches(rows, 2000):
            self._run("create_justifications", rows=chunk)

    def placeholder_ids(self, ids: Iterable[str]) -> set[str]:
        found: set[str] = set()
        ids = set(ids)
        if len(ids) > BATCH and not self._count("placeholders"):
            return found
        for chunk in _batches(sorted(ids)):
            found.update(r["id"] for r in self._run("placeholder_ids", ids=chunk))
        return found

    def create_labelled_beliefs(self, labelled: Iterable[tuple[Belief, Label]]) -> None:
        """In batches of LABELLED_BATCH as `labelled` comes: the nodes, then the
        justifications whose named nodes exist by then; those naming a belief still to come
        wait (by id) until the stream ends, when ids that never came get placeholders."""
        element: dict[str, str] = {}
        waiting: list[dict[str, Any]] = []  # justification rows by id, naming one not yet made
        went_in: list[str] = []
        tagged = False
        ready: list[dict[str, Any]] = []

        def by_element(row: dict[str, Any]) -> dict[str, Any]:
            return {**row, "belief": element[row["belief"]],
                    "antecedents": [element[a] for a in row["antecedents"]],
                    "outlist": [element[o] for o in row["outlist"]]}

        for batch in in_batches(labelled, LABELLED_BATCH):
            note_created(self, (b.id for b, _ in batch))
            went_in.extend(b.id for b, label in batch if label.truth == Truth.IN)
            rows = [labelled_belief_row(b, label.truth, label.depth) for b, label in batch]
            element.update(self._one("create_labelled_beliefs", rows=rows)["pairs"])
            ready.clear()
            for b, _ in batch:
                if not tagged and own_tags(b.metadata):
                    tagged = True
                for row in justification_rows(b.id, b.justifications):
                    if all(ref in element for ref in row["antecedents"]) and all(
                            ref in element for ref in row["outlist"]):
                        ready.append(by_element(row))
                    else:
                        waiting.append(row)
            for chunk in _batches(ready, LABELLED_BATCH):
                self._run("create_justifications_by_element", rows=chunk)
        missing = sorted({ref for row in waiting for ref in (*row["antecedents"], *row["outlist"])}
                         - element.keys())
        for chunk in _batches(missing, LABELLED_BATCH):
            element.update(self._one("create_placeholders", ids=chunk)["pairs"])
        for chunk in _batches(waiting, LABELLED_BATCH):
            self._run("create_justifications_by_element", rows=[by_element(r) for r in chunk])
        self.change_log.relabelled(Change(went_in=went_in))
        if tagged:
            self.retag_everything()

    def add_justifications(self, belief_id: str, justifications: Sequence[Justification]) -> None:
        note_redefined(self, [belief_id])
        seq = self._one("next_justification_seq", ids=[belief_id])["seq"]
        named = sorted({ref for j in justifications for ref in j.mentions()})
        self._run("ensure_placeholders", ids=named)
        self._run("create_justifications",
                  rows=justification_rows(belief_id, justifications, first_seq=seq))

    def remove_justification(self, belief_id: str, position: int) -> None:
        note_redefined(self, [belief_id])
        self._run("remove_justification", id=belief_id, position=int(position))

    def supersede_links(self, belief_id: str) -> tuple[list[str], list[str]]:
        known = self._links_of.get(belief_id)
        if known is not None:
            return known
        r = self._single("supersede_links", id=belief_id)
        return (sorted(r["by"]), sorted(r["supersedes"])) if r else ([], [])

    def set_pins(self, ids: Sequence[str], *, retracted: bool, asserted: bool, reason: str,
                 at: str) -> dict[str, Pinned]:
        records = self._run(
            "set_pins",
            ids=list(ids),
            retracted=retracted,
            asserted=asserted,
            retracted_at=at if retracted else "",
            reason=reason if retracted else "",
            at=at,
        )
        note_pinned(self, (r["id"] for r in records))
        pinned = {}
        for r in records:
            self._element_of[r["id"]] = r["element"]
            self._nogoods_exist = r["nogoods"] > 0
            pinned[r["id"]] = Pinned(was_in=r["was_in"], premise=r["premise"])
        return pinned

    def relabel(self, seeds: Iterable[str]) -> Change:
        change = propagate(Neo4jRegionReader(self), seeds)
        self.change_log.relabelled(change)  # the change log's one hook into propagation
        return change

    def retag_everything(self) -> None:
        """After a write of labels computed elsewhere (import, repair): every belief's
        effective tags from its labels, as propagation would have left them."""
        retag(Neo4jRegionReader(self), self._one("all_belief_elements")["elements"])

    def write_labels(self, labels: Mapping[str, Label]) -> None:
        rows = [{"id": bid, "truth": label.truth.value, "depth": label.depth}
                for bid, label in sorted(labels.items())]
        moved = Change()
        for chunk in _batches(rows):
            for bid, _was_in, now_in in self._one("write_belief_labels", rows=chunk)["moved"]:
                (moved.went_in if now_in else moved.went_out).append(bid)
        self.change_log.relabelled(moved)
        self.retag_everything()

    def create_nogood(self, nogood: Nogood) -> None:
        named = list(nogood.members)
        self._nogoods_exist = True
        self._run("ensure_placeholders", ids=named)
        self._run("create_nogood", id=nogood.id, discovered=nogood.discovered,
                  resolution=nogood.resolution, members=named)

    def set_nogood_resolution(self, nogood_id: str, resolution: str) -> None:
        self._run("set_nogood_resolution", id=nogood_id, resolution=resolution)

    def save_network_info(self, meta: dict, repos: dict) -> None:
        self._run("save_network_info", meta=json.dumps(meta, ensure_ascii=False),
                  repos=json.dumps(repos, ensure_ascii=False))

    def reset(self) -> None:
        self._run("delete_everything")


# The protocol this part implements, checked by mypy.
_IMPLEMENTS: type[TmsTx] = TmsTxPart
