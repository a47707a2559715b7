"""Neo4jTx part: truth maintenance: beliefs, pins, propagation, nogoods."""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from adapters.neo4j.base import TxBase
from adapters.neo4j.propagation import Propagation
from adapters.neo4j.records import (
    belief_from_map,
    belief_to_row,
    justification_rows,
    labelled_belief_row,
    nogood_from_record,
)
from engine.model import (
    Belief,
    Change,
    Justification,
    Kind,
    Label,
    Network,
    Nogood,
    Status,
    Truth,
)
from engine.store import BeliefFilter, Pinned

BATCH = 5000  # rows per UNWIND statement for bulk writes


def _batches(rows: Sequence[Any], size: int = BATCH):
    for start in range(0, len(rows), size):
        yield rows[start:start + size]


class TmsTxPart(TxBase):
    # --- reads ------------------------------------------------------------------------
    def get_beliefs(self, ids: Iterable[str]) -> dict[str, Belief]:
        out: dict[str, Belief] = {}
        for chunk in _batches(sorted(set(ids))):
            for r in self._run("beliefs_by_id", ids=chunk):
                b = belief_from_map(r["belief"])
                out[b.id] = b
        return out

    def existing_ids(self, ids: Iterable[str]) -> set[str]:
        found: set[str] = set()
        for chunk in _batches(sorted(set(ids))):
            found.update(r["id"] for r in self._run("existing_belief_ids", ids=chunk))
        return found

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
        )

    def list_beliefs(self, which: BeliefFilter) -> list[Belief]:
        records = self._run(
            "list_beliefs",
            truth=which.truth.value if which.truth else None,
            premises=which.premises,
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
        return {c for r in self._run("region_dependents", ids=[belief_id]) for c in r["dependents"]}

    def dependent_counts(self, ids: Iterable[str]) -> dict[str, int]:
        return {r["id"]: r["dependents"] for r in
                self._run("direct_dependent_counts", ids=sorted(set(ids)))}

    def read_network(self) -> Network:
        beliefs = {}
        for r in self._run("all_beliefs"):
            b = belief_from_map(r["belief"])
            beliefs[b.id] = b
        info = self._single("network_info")
        meta = json.loads(info["meta"]) if info and info["meta"] else {}
        repos = json.loads(info["repos"]) if info and info["repos"] else {}
        return Network(beliefs, self.nogoods(), repos, meta)

    def read_labelling(self) -> tuple[dict[str, Belief], dict[str, list[str]]]:
        justifications: dict[str, list[tuple[int, Justification]]] = {}
        for r in self._run("labelling_justifications"):
            justifications.setdefault(r["belief"], []).append((r["seq"], Justification(
                antecedents=tuple(i for _, i in sorted(r["antecedents"])),
                outlist=tuple(i for _, i in sorted(r["outlist"])),
                kind=Kind(r["kind"] or "SL"),
            )))
        beliefs: dict[str, Belief] = {}
        labels: dict[str, list[str]] = {}
        for r in self._run("labelling_beliefs"):
            raw = r["labels"]
            truth = (Truth.IN if "In" in raw else
                     Truth.UNDETERMINED if "Undetermined" in raw else Truth.OUT)
            beliefs[r["id"]] = Belief(
                id=r["id"], text="",
                justifications=tuple(j for _, j in sorted(justifications.get(r["id"], []),
                                                          key=lambda x: x[0])),
                retracted=r["retracted"], asserted=r["asserted"], truth=truth, depth=r["depth"])
            labels[r["id"]] = raw
        return beliefs, labels

    def nogoods(self) -> list[Nogood]:
        return [nogood_from_record(r) for r in self._run("all_nogoods")]

    def nogoods_holding(self, member_ids: Iterable[str]) -> list[Nogood]:
        """Nogoods with a member among `member_ids` whose members are all IN now."""
        ids = sorted(set(member_ids))
        if not ids or self._nogoods_exist is False:
            return []
        return [Nogood(r["id"], tuple(r["members"])) for r in
                self._run("nogoods_holding_with", ids=ids)]

    # --- writes -----------------------------------------------------------------------
    def create_beliefs(self, beliefs: Sequence[Belief]) -> None:
        ids = [b.id for b in beliefs]
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
        for chunk in _batches(sorted(set(ids))):
            found.update(r["id"] for r in self._run("placeholder_ids", ids=chunk))
        return found

    def create_labelled_beliefs(self, beliefs: Sequence[Belief], labels: dict[str, Label]) -> None:
        element: dict[str, str] = {}
        rows = [labelled_belief_row(b, labels[b.id].truth, labels[b.id].depth) for b in beliefs]
        for chunk in _batches(rows, 10000):
            element.update(self._one("create_labelled_beliefs", rows=chunk)["pairs"])
        missing = sorted({ref for b in beliefs for j in b.justifications for ref in j.mentions()}
                         - element.keys())
        for chunk in _batches(missing, 10000):
            element.update(self._one("create_placeholders", ids=chunk)["pairs"])
        rows = [
            {**row, "belief": element[row["belief"]],
             "antecedents": [element[a] for a in row["antecedents"]],
             "outlist": [element[o] for o in row["outlist"]]}
            for b in beliefs for row in justification_rows(b.id, b.justifications)
        ]
        for chunk in _batches(rows, 10000):
            self._run("create_justifications_by_element", rows=chunk)

    def add_justifications(self, belief_id: str, justifications: Sequence[Justification]) -> None:
        seq = self._one("next_justification_seq", ids=[belief_id])["seq"]
        named = sorted({ref for j in justifications for ref in j.mentions()})
        self._run("ensure_placeholders", ids=named)
        self._run("create_justifications",
                  rows=justification_rows(belief_id, justifications, first_seq=seq))

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
        pinned = {}
        for r in records:
            self._element_of[r["id"]] = r["element"]
            self._nogoods_exist = r["nogoods"] > 0
            pinned[r["id"]] = Pinned(was_in=r["was_in"], premise=r["premise"])
        return pinned

    def relabel(self, seeds: Iterable[str]) -> Change:
        return Propagation(self).relabel(seeds)

    def write_labels(self, labels: Mapping[str, Label]) -> None:
        rows = [{"id": bid, "truth": label.truth.value, "depth": label.depth}
                for bid, label in sorted(labels.items())]
        for chunk in _batches(rows):
            self._run("write_belief_labels", rows=chunk)

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
