"""Neo4jTx part: history (engine.memory.records.HistoryRecords): the log's before-images read
back, releases, and the writes that set definitions back to images (rollback, revert).

Every write here goes through a query whose `// defines:` line names what it changes, so the
rollback's own entry keeps the before-images of what it set back, like any write.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from adapters.neo4j.base import TxBase
from adapters.neo4j.before_images import read_images
from adapters.neo4j.records import DEFINITION_KEYS
from engine.memory.images import NETWORK_KEY
from engine.memory.records import HistoryRecords, Image, Images, LoggedWrite, Release

BATCH = 2000


def _batches(rows: Sequence[Any], size: int = BATCH):
    for start in range(0, len(rows), size):
        yield rows[start:start + size]


def release_from_map(m: Mapping[str, Any]) -> Release:
    return Release(m["name"], int(m["seq"]), m.get("at") or "", m.get("note") or "",
                   m.get("actor") or "")


def release_to_props(r: Release) -> dict[str, Any]:
    return {"name": r.name, "seq": r.seq, "at": r.at, "note": r.note, "actor": r.actor}


def _justification_row(belief: str, j: Sequence[Any]) -> dict[str, Any]:
    seq, kind, label, gate, antecedents, outlist, marked = j
    return {"belief": belief, "seq": seq, "kind": kind, "label": label, "gate": gate,
            "antecedents": list(antecedents), "outlist": list(outlist), "marked": list(marked)}


class HistoryTxPart(TxBase):
    # --- reads ------------------------------------------------------------------------
    def last_seq(self) -> int:
        return int(self._one("history_last_seq")["seq"])

    def history_start(self) -> int:
        r = self._one("history_start")
        return max(int(r["blind"]), int(r["cut"])) if r["last"] else 0

    def seq_at_or_before(self, at: str) -> int:
        return int(self._one("history_seq_at_or_before", at=at)["seq"])

    def writes_after(self, seq: int) -> list[LoggedWrite]:
        record = self._single("history_writes_after", after=int(seq))
        return [LoggedWrite(int(s), at or "", op or "", actor or "",
                            json.loads(before) if before is not None else None,
                            tuple(went_in or ()), tuple(went_out or ()))
                for s, at, op, actor, before, went_in, went_out in
                (record["rows"] if record else [])]

    def current_images(self, kind: str, keys: Sequence[str]) -> dict[str, Image | None]:
        out: dict[str, Image | None] = {}
        for chunk in _batches(sorted(keys), 5000):
            out.update(read_images(self, kind, list(chunk)))
        return out

    # --- releases ---------------------------------------------------------------------
    def release(self, name: str) -> Release | None:
        r = self._single("history_release", release=name)
        return release_from_map(r["release"]) if r else None

    def releases(self) -> list[Release]:
        return [release_from_map(r["release"]) for r in self._run("history_releases")]

    def create_release(self, release: Release) -> None:
        self._run("history_create_release", props=release_to_props(release))

    def prune_reach(self, before: str) -> tuple[int | None, tuple[str, int] | None]:
        cut = self._one("history_prune_reach", before=before)["seq"]
        lowest = self._single("history_lowest_release")
        return (int(cut) if cut is not None else None,
                (lowest["name"], int(lowest["seq"])) if lowest else None)

    # --- the writes of rollback and revert ----------------------------------------------
    def restore_images(self, images: Images) -> list[str]:
        beliefs = images.get("belief", {})
        sources = images.get("source", {})
        present = {k: v for k, v in beliefs.items() if v is not None}
        gone = sorted(k for k, v in beliefs.items() if v is None)
        rows: list[dict[str, Any]] = [{"path": p, "props": dict(v)}
                                      for p, v in sorted(sources.items()) if v]
        for chunk in _batches(rows):
            self._run("history_put_sources", rows=chunk)
        if present:
            self._put_beliefs(present)
        rows = [{"old": k, "new": v["new"] if v else None,
                 "props": dict(v.get("props") or {}) if v else None}
                for k, v in sorted(images.get("supersession", {}).items())]
        for chunk in _batches(rows):
            self._run("history_put_supersessions", rows=chunk)
        nogoods = images.get("nogood", {})
        if nogoods:
            self._run("delete_nogoods", ids=sorted(nogoods))
            for nid, image in sorted(nogoods.items()):
                if image is not None:
                    self._run("ensure_placeholders", ids=list(image.get("members") or ()))
                    self._run("create_nogood", id=nid, discovered=image.get("discovered"),
                              resolution=image.get("resolution"),
                              members=list(image.get("members") or ()))
        if NETWORK_KEY in images.get("network", {}):
            image = images["network"][NETWORK_KEY]
            self._run("history_put_network", props=dict(image) if image else None)
        rows = [{"name": k, "props": dict(v) if v else None}
                for k, v in sorted(images.get("namespace", {}).items())]
        if rows:
            self._run("history_put_namespaces", rows=rows)
        seeds = set(present)
        if gone:
            for chunk in _batches(gone):
                seeds.update(self._one("history_dependents_of", ids=chunk)["ids"])
                self._run("history_remove_beliefs", ids=chunk)
            for bid in gone:
                self._element_of.pop(bid, None)
        removed = sorted(p for p, v in sources.items() if v is None)
        if removed:
            self._run("history_remove_sources", paths=removed)
        return sorted(seeds - set(gone))

    def _put_beliefs(self, present: Mapping[str, Image]) -> None:
        ids = sorted(present)
        now = self.current_images("belief", ids)
        for chunk in _batches(ids):
            self._run("promote_placeholders", ids=chunk)
        rows = []
        for bid in ids:
            props = dict.fromkeys(DEFINITION_KEYS)
            props.update(present[bid].get("props") or {})
            rows.append({"id": bid, "props": props, "marks": list(present[bid].get("marks") or ())})
        for chunk in _batches(rows):
            self._run("history_put_beliefs", rows=chunk)
        stale, fresh, links, named = [], [], [], set()
        for bid in ids:
            target, current = present[bid], now.get(bid) or {}
            want = {j[0]: j for j in target.get("justifications") or ()}
            have = {j[0]: j for j in current.get("justifications") or ()}
            drop = sorted(s for s, j in have.items() if want.get(s) != j)
            if drop:
                stale.append({"id": bid, "seqs": drop})
            for s, j in sorted(want.items()):
                if have.get(s) != j:
                    fresh.append(_justification_row(bid, j))
                    named.update(j[4])
                    named.update(j[5])
            if (target.get("from") != current.get("from")
                    or target.get("duplicate_of") != current.get("duplicate_of")):
                links.append({"id": bid, "from": target.get("from"),
                              "duplicate_of": target.get("duplicate_of")})
        for chunk in _batches(stale):
            self._run("history_delete_justifications", rows=chunk)
        for chunk in _batches(sorted(named)):
            self._run("ensure_placeholders", ids=chunk)
        for chunk in _batches(fresh):
            self._run("history_create_justifications", rows=chunk)
        for chunk in _batches(links):
            self._run("history_set_links", rows=chunk)


# The protocol this part implements, checked by mypy.
_IMPLEMENTS: type[HistoryRecords] = HistoryTxPart
