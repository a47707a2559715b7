"""Neo4jTx part: the change log (engine.change_records.ChangeLog) and the append the store makes.

Entries are written from the transaction's ChangeTracker: one (:Change) node, numbered by the
write lock's count, with (:Change)-[:TOUCHED {did, was}]->(:Belief) edges. Each entry's
to-parameters (`append`) and from-record (`entry_from_map`) code sit side by side here.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from adapters.neo4j.base import TxBase
from adapters.neo4j.before_images import images_json
from engine.change_records import ChangeEntry, ChangeLog, LogEntry, LogQuery, Touch
from engine.model import Truth

LINK_BATCH = 10000
# A write touching more beliefs than this (a large import) keeps their ids in the entry's
# lists only: as many TOUCHED edges would not fit in the transaction's memory beside it.
TOUCH_LIMIT = 20000
NO_LIMIT = 1_000_000_000


def entry_to_params(seq: int, at: str, actor: str, entry: ChangeEntry,
                    summary: Mapping[str, list[str]]) -> dict[str, Any]:
    return {"seq": seq, "at": at, "actor": actor, "op": entry.op,
            "args": json.dumps(dict(entry.args), sort_keys=True, ensure_ascii=False,
                               default=str),
            "reason": entry.reason, "went_in": summary["went_in"],
            "went_out": summary["went_out"], "by_nogood": summary["retracted_by_nogood"],
            "created": summary["created"], "defined": summary["defined"],
            "removed": summary["removed"]}


def entry_from_map(m: Mapping[str, Any]) -> LogEntry:
    args = json.loads(m.get("args") or "{}")
    return LogEntry(
        seq=int(m["seq"]), at=m.get("at") or "", actor=m.get("actor") or "",
        op=m.get("op") or "", args=args if isinstance(args, dict) else {},
        reason=m.get("reason") or "",
        went_in=tuple(m.get("went_in") or ()), went_out=tuple(m.get("went_out") or ()),
        retracted_by_nogood=tuple(m.get("retracted_by_nogood") or ()),
        created=tuple(m.get("created") or ()), defined=tuple(m.get("defined") or ()),
        removed=tuple(m.get("removed") or ()))


class ChangeTxPart(TxBase):
    # --- the append, made by Neo4jStore.write after the work ----------------------------
    def append_change(self, seq: int, at: str, entry: ChangeEntry) -> None:
        log = self.change_log
        rows = log.touches(TOUCH_LIMIT)
        edges = rows is not None
        touches = rows or []
        params = entry_to_params(seq, at, entry.actor or log.actor, entry, log.summary())
        before = None if log.everything else images_json(log.images)
        self._run("append_change", touches=touches[:LINK_BATCH], edges=edges, before=before,
                  **params)
        for start in range(LINK_BATCH, len(touches), LINK_BATCH):
            self._run("link_change", seq=seq, touches=touches[start:start + LINK_BATCH])
        for proposal_id in log.accepted_proposals:
            self._run("link_proposal_change", id=proposal_id, seq=seq)

    # --- engine.change_records.ChangeLog -----------------------------------------------
    def actor(self) -> str:
        return self.change_log.actor

    def note_retracted_by_nogood(self, ids: Sequence[str]) -> None:
        self.change_log.by_nogood.extend(i for i in ids if i not in self.change_log.by_nogood)

    def change_entries(self, query: LogQuery) -> list[LogEntry]:
        name = "change_entries_oldest" if query.oldest_first else "change_entries_newest"
        after = query.after
        if query.since is not None:  # as a seq, so the seq index orders and the limit stops it
            first = self._single("first_seq_since", at=query.since)
            start = int(first["seq"]) - 1 if first and first["seq"] is not None else None
            if start is None:
                return []
            after = start if after is None else max(after, start)
        record = self._single(name, after=after, since=None, op=query.op,
                              actor=query.actor, belief=query.belief_id,
                              limit=query.limit or NO_LIMIT)
        return [entry_from_map(m) for m in record["entries"]] if record else []

    def belief_history(self, belief_id: str) -> list[tuple[LogEntry, Touch]]:
        return [(entry_from_map(r["change"]),
                 Touch(int(r["change"]["seq"]), tuple(r["did"] or ()), r["was"] or ""))
                for r in self._run("belief_history", id=belief_id)]

    def seq_before(self, at: str | None) -> int:
        if at is None:
            return 0
        record = self._single("seq_before", at=at)
        return int(record["seq"]) if record else 0

    def touches_after(self, seq: int) -> tuple[dict[str, list[Touch]], dict[str, bool]]:
        record = self._single("touches_after", after=int(seq))
        touches: dict[str, list[Touch]] = {}
        created: set[str] = set()
        removed: set[str] = set()
        for change_seq, touched, made, gone, edges, went_in, went_out in (
                record["rows"] if record else []):
            created.update(made or ())
            removed.update(gone or ())
            if edges is False:  # a bulk write: its touches are its lists
                touched = [[i, ["created"], None] for i in made or ()] + [
                    [i, ["went_in"], None] for i in went_in or () if i not in set(made or ())] + [
                    [i, ["went_out"], None] for i in went_out or ()]
            for bid, did, was in touched:
                if bid is not None:
                    touches.setdefault(bid, []).append(
                        Touch(int(change_seq), tuple(did or ()), was or ""))
        return touches, {i: i in created for i in removed}

    def truths(self, ids: Iterable[str]) -> dict[str, Truth]:
        wanted = sorted(set(ids))
        out: dict[str, Truth] = {}
        for start in range(0, len(wanted), LINK_BATCH):
            record = self._single("truths_of", ids=wanted[start:start + LINK_BATCH])
            out.update({i: Truth(t) for i, t in (record["pairs"] if record else [])})
        return out

    def prune_changes(self, before: str) -> int:
        record = self._single("prune_changes", before=before)
        return int(record["pruned"]) if record else 0


# The protocol this part implements, checked by mypy.
_IMPLEMENTS: type[ChangeLog] = ChangeTxPart
