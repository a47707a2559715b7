"""What one write transaction did, gathered as it goes, for its change-log entry.

The parts of Neo4jTx report here (created, redefined, pinned, relabelled, removed); the
store turns it into the one (:Change) node it appends before the commit
(adapters/neo4j/change_tx.py). A redefinition first remembers the belief's definition sha as
it was, so `diff` can tell a change undone from one that stands.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import neo4j

from engine.change_records import BY_NOGOOD, CREATED, DEFINED, PINNED, WENT_IN, WENT_OUT
from engine.memory.changelog import definition_sha
from engine.model import Change



@dataclass
class ChangeTracker:
    actor: str = ""
    change: Change = field(default_factory=Change)
    # what was done to each belief: one shared frozenset per combination of roles, so an
    # import marking two million beliefs created holds no set per belief
    did: dict[str, frozenset[str]] = field(default_factory=dict)
    was: dict[str, str] = field(default_factory=dict)
    removed: list[str] = field(default_factory=list)
    by_nogood: list[str] = field(default_factory=list)
    seq: int = 0  # this write's entry, numbered by the write lock (0 in a dry run)
    accepted_proposals: list[str] = field(default_factory=list)  # linked to the entry
    # before-images, kept by adapters/neo4j/before_images.py: kind -> key -> image (None:
    # absent before this write); `everything`: the write redefined the whole network
    images: dict[str, dict[str, Any]] = field(default_factory=dict)
    everything: bool = False

    def mark(self, ids: Iterable[str], role: str) -> None:
        did, only = self.did, _roles(frozenset((role,)))
        for i in ids:
            have = did.get(i)
            did[i] = only if have is None or have == only else _roles(have | only)

    def relabelled(self, change: Change) -> None:
        self.change = self.change.merge(change)

    def forget(self, ids: Iterable[str]) -> None:
        """Beliefs deleted by this write: no edge can reach them, their ids are kept."""
        for i in ids:
            self.did.pop(i, None)
            self.removed.append(i)

    def touched_ids(self) -> set[str]:
        """Every belief this write touched: what it did to it, or it went IN or OUT."""
        ids = {i for moved in (self.change.went_in, self.change.went_out, self.by_nogood)
               for i in moved}
        ids.difference_update(self.removed)
        ids.update(self.did)
        return ids

    def touches(self, limit: int) -> list[dict[str, Any]] | None:
        """One row per touched belief (id, what this write did to it, its definition sha
        before), sorted by id; None when more than `limit` beliefs were touched (the entry
        then keeps only its id lists, and no row is built)."""
        if len(self.touched_ids()) > limit:
            return None
        removed = set(self.removed)
        roles = {i: set(r) for i, r in self.did.items()}
        for ids, role in ((self.change.went_in, WENT_IN), (self.change.went_out, WENT_OUT),
                          (self.by_nogood, BY_NOGOOD)):
            for i in ids:
                if i not in removed:
                    roles.setdefault(i, set()).add(role)
        return [{"id": i, "did": sorted(r), "was": self.was.get(i)}
                for i, r in sorted(roles.items())]

    def absorb(self, part: "ChangeTracker") -> None:
        """Take in what a later transaction of the same import in parts did, as if both had
        been one write: roles and lists added, each unit's first before-image and first
        definition sha kept (the later transaction's read of a unit an earlier part made is
        not what the unit was before the import)."""
        did = self.did
        for i, roles in part.did.items():
            have = did.get(i)
            did[i] = roles if have is None or have == roles else _roles(have | roles)
        for kind, units in part.images.items():
            known = self.images.setdefault(kind, {})
            if not known:
                known.update(units)
                continue
            for key, image in units.items():
                known.setdefault(key, image)
        for i, sha in part.was.items():
            self.was.setdefault(i, sha)
        mine, theirs = self.change, part.change
        if not mine.went_out and not theirs.went_out and not (
                mine.retracted_by_nogood or theirs.retracted_by_nogood):
            mine.went_in.extend(theirs.went_in)  # parts only add: no merge of sets
        else:
            self.change = mine.merge(theirs)
        self.removed.extend(part.removed)
        self.by_nogood.extend(i for i in part.by_nogood if i not in self.by_nogood)
        self.accepted_proposals.extend(part.accepted_proposals)
        self.everything = self.everything or part.everything

    def copy(self) -> "ChangeTracker":
        """A tracker to carry on from (one attempt of a transaction the driver may retry)."""
        return ChangeTracker(
            actor=self.actor, change=Change(list(self.change.went_in),
                                            list(self.change.went_out),
                                            list(self.change.retracted_by_nogood)),
            did=dict(self.did), was=dict(self.was), removed=list(self.removed),
            by_nogood=list(self.by_nogood), seq=self.seq,
            accepted_proposals=list(self.accepted_proposals),
            images={k: dict(v) for k, v in self.images.items()}, everything=self.everything)

    def ids_with(self, role: str) -> list[str]:
        return sorted(i for i, r in self.did.items() if role in r)

    def summary(self) -> dict[str, list[str]]:
        return {"went_in": sorted(self.change.went_in), "went_out": sorted(self.change.went_out),
                "retracted_by_nogood": list(self.by_nogood),
                "created": self.ids_with(CREATED),
                "defined": self.ids_with(DEFINED), "removed": list(self.removed)}


class TrackedTx(Protocol):
    """What the notes here and the before-images (before_images.py) need of a transaction
    part (adapters/neo4j/base.TxBase): its tracker, and running a named query."""

    change_log: ChangeTracker

    def run_query(self, name: str, **params: Any) -> list[neo4j.Record]: ...

    def read_plain(self, name: str, params: Mapping[str, Any]) -> neo4j.Record | None: ...


def note_redefined(tx: TrackedTx, ids: Sequence[str]) -> None:
    """Before a part changes these beliefs' justifications: remember each one's definition
    sha as it is now (once per write; a belief created by this write has none)."""
    log = tx.change_log
    fresh = sorted({i for i in ids if i not in log.was
                    and CREATED not in log.did.get(i, ())})
    if fresh:
        from adapters.neo4j.records import belief_from_map

        for r in tx.run_query("beliefs_by_id", ids=fresh):
            b = belief_from_map(r["belief"])
            log.was[b.id] = definition_sha(b)
    log.mark(ids, DEFINED)


def note_pinned(tx: TrackedTx, ids: Iterable[str]) -> None:
    tx.change_log.mark(ids, PINNED)


def note_created(tx: TrackedTx, ids: Iterable[str]) -> None:
    tx.change_log.mark(ids, CREATED)


_ROLE_SETS: dict[frozenset[str], frozenset[str]] = {}


def _roles(roles: frozenset[str]) -> frozenset[str]:
    """The one shared instance of this combination of roles."""
    return _ROLE_SETS.setdefault(roles, roles)
