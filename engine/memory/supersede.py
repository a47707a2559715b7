"""Supersede and reword: a newer belief replaces an older one, without changing its kind.

`supersede OLD NEW` gates OLD by NEW: NEW joins the outlist of every justification of OLD (a
premise OLD gets its one gate justification, so it stays a premise at depth 0), and a
(OLD)-[:SUPERSEDED_BY]->(NEW) link records it. While NEW is IN, OLD is OUT; retracting NEW
brings OLD back. `--text` rewords: NEW is created with OLD's justifications, source, pins and
metadata, and OLD's dependents are rewired to NEW (recorded on the link, as dedup's merge
does). Undo moves everything back exactly. Each is one write transaction.
"""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from types import MappingProxyType
from typing import Protocol

from engine.change_records import ChangeEntry
from engine.errors import InvalidInput, NotFound
from engine.memory.records import Editing, SupersedeRecord
from engine.model import Belief, Change, Justification, Truth, check_id, check_text
from engine.pairs.records import PairRecords
from engine.store import Store
from engine.tms import add_beliefs_in, enforce_nogoods, now
from engine.tms.records import ResolutionTx


class SupersedeTx(ResolutionTx, Editing, PairRecords, Protocol):
    """What supersede and its undo write: beliefs and gates, labels, nogoods, its links."""


@dataclasses.dataclass(frozen=True)
class Superseded:
    old: str
    new: str
    created: bool
    rewired: int
    change: Change
    chain: tuple[str, ...] = ()  # --transitive: the older versions gated by NEW as well
    carried: tuple[str, ...] = ()  # --transitive: the beliefs now resting on NEW, not OLD
    not_carried: tuple[str, ...] = ()  # --transitive: resting on OLD, left (NEW cannot)
    written: bool = True  # False: the what-if --transitive shows first

    def as_dict(self) -> dict:
        return {"old": self.old, "new": self.new, "created": self.created,
                "rewired": self.rewired, "chain": list(self.chain),
                "carried": list(self.carried), "not_carried": list(self.not_carried),
                "written": self.written, **self.change.as_dict()}


def next_version_id(old: str, taken: set[str]) -> str:
    """OLD-v2, or the next -vN after OLD's own, the first not taken."""
    match = re.fullmatch(r"(.*)-v(\d+)", old)
    base, n = (match.group(1), int(match.group(2)) + 1) if match else (old, 2)
    while f"{base}-v{n}" in taken:
        n += 1
    return f"{base}-v{n}"


def supersede(store: Store[SupersedeTx], old: str, new: str | None = None, *,
              text: str | None = None,
              new_id: str | None = None, justifications: Sequence[Justification] | None = None,
              rewire: bool | None = None, reason: str = "", transitive: bool = False
              ) -> Superseded:
    """`supersede OLD NEW` (NEW exists) or `supersede OLD --text T [--id NEW]` (a reword);
    `transitive`: see `carry_over_in`."""
    check_supersede(old, new, text, new_id, rewire, transitive)
    args = {"old": old, "new": new or new_id, "text": text, "rewire": rewire,
            "transitive": transitive or None}
    return store.write(
        lambda tx: supersede_in(tx, old, new, text=text, new_id=new_id,
                                justifications=justifications, rewire=rewire, reason=reason,
                                transitive=transitive),
        ChangeEntry("supersede", {k: v for k, v in args.items() if v is not None}, reason))


def what_if_supersede(store: Store[SupersedeTx], old: str, new: str | None = None, *,
                      text: str | None = None, new_id: str | None = None,
                      justifications: Sequence[Justification] | None = None,
                      rewire: bool | None = None, transitive: bool = False) -> Superseded:
    """What `supersede` would change; nothing is written."""
    check_supersede(old, new, text, new_id, rewire, transitive)
    return dataclasses.replace(store.dry_run(
        lambda tx: supersede_in(tx, old, new, text=text, new_id=new_id,
                                justifications=justifications, rewire=rewire, reason="what-if",
                                transitive=transitive)), written=False)


def check_supersede(old: str, new: str | None, text: str | None, new_id: str | None,
                    rewire: bool | None = None, transitive: bool = False) -> None:
    """What supersede checks before it writes: ids well-formed, NEW or a text, exactly one."""
    if transitive and rewire is not None:
        raise InvalidInput("--transitive moves what rests on OLD where NEW can carry it: it "
                           "takes no --rewire or --no-rewire", field="transitive")
    check_id(old)
    if (new is None) == (text is None):
        raise InvalidInput("supersede takes NEW (an existing belief) or --text, exactly one",
                           field="new")
    if new is not None:
        check_id(new)
        if new_id is not None:
            raise InvalidInput("--id goes with --text (NEW is given already)", field="id")
    else:
        check_text(text, ident=new_id or old)
        if new_id is not None:
            check_id(new_id)


def supersede_in(tx: SupersedeTx, old: str, new: str | None, *, text: str | None,
                 new_id: str | None, justifications: Sequence[Justification] | None,
                 rewire: bool | None, reason: str, transitive: bool = False) -> Superseded:
    beliefs = tx.get_beliefs([old] + ([new] if new else []))
    if old not in beliefs:
        raise NotFound("belief", old)
    standing = tx.supersede_record(old)
    if standing is not None:
        raise InvalidInput(f"'{old}' is already superseded by '{standing.new}' (undo that "
                           f"first: supersede --undo {old})", field="old", value=old)
    change = Change()
    if new is not None:
        if new not in beliefs:
            raise NotFound("belief", new)
        if new == old:
            raise InvalidInput(f"'{old}' cannot supersede itself", field="new", value=new)
        if old in tx.upstream([new]):
            raise InvalidInput(f"'{new}' rests on '{old}', so it cannot supersede it",
                               field="new", value=new)
        created = False
    else:
        new = new_id or next_version_id(old, tx.existing_ids(_versions(old)))
        if new == old:
            raise InvalidInput(f"'{old}' cannot supersede itself", field="id", value=new)
        if tx.existing_ids([new]) or tx.placeholder_ids([new]):
            raise InvalidInput(f"belief '{new}' already exists or is named already",
                               field="id", value=new)
        change = add_beliefs_in(tx, [_successor(beliefs[old], new, text or "", justifications)])
        tx.copy_source_link(old, new)
        created = True
    if transitive:
        return carry_over_in(tx, old, new, created, change, reason)
    moved = tx.rewire_mentions(old, new) if (created if rewire is None else rewire) else ()
    gated = tx.gate_belief(old, new, None)
    tx.record_supersede(SupersedeRecord(old, new, created, moved, reason, now(), gated))
    step = tx.relabel([old, new, *sorted({e.belief for e in moved})])
    return Superseded(old, new, created, len(moved), enforce_nogoods(tx, change.merge(step)))


def older_versions(tx: SupersedeTx, old: str, new: str) -> list[str]:
    """What OLD supersedes, and what those supersede, and so on (NEW left out), by id."""
    seen: set[str] = set()
    frontier = [old]
    while frontier:
        found = {v for b in frontier for v in tx.supersede_links(b)[1]} - seen - {old, new}
        seen.update(found)
        frontier = sorted(found)
    return sorted(seen)


def carry_over_in(tx: SupersedeTx, old: str, new: str, created: bool, change: Change,
                  reason: str) -> Superseded:
    """`supersede --transitive`: OLD and every older version it supersedes (transitively)
    are gated by NEW, so a later retraction of OLD's successor brings none of them back;
    and what rested on OLD is moved to NEW where NEW can carry it: each justification
    naming OLD as an antecedent names NEW instead, unless NEW is not IN (it would take
    them OUT with it) or NEW rests on that belief (a loop, which is no support).
    Outlists stay as they are, and so does what rests on the older versions (it was left
    there when they were superseded). All recorded on the link, so undo restores it."""
    chain = older_versions(tx, old, new)
    gated = tx.gate_belief(old, new, None)
    gated_chain = tuple(v for v in chain if tx.gate_belief(v, new, None) > 0)
    new_in = tx.truths([new]).get(new) == Truth.IN
    upstream = set(tx.upstream([new]))
    named = tx.get_beliefs(sorted(tx.direct_dependents(old) - {new}))
    owners = sorted(b.id for b in named.values()
                    if any(old in j.antecedents for j in b.justifications))
    able = [o for o in owners if new_in and o not in upstream]
    moved = tx.rewire_antecedents(old, new, able) if able else ()
    carried = sorted({e.belief for e in moved})
    record = SupersedeRecord(old, new, created, tuple(moved), reason, now(), gated,
                             gated_chain)
    tx.record_supersede(record)
    step = tx.relabel([old, new, *chain, *carried])
    return Superseded(old, new, created, len(moved), enforce_nogoods(tx, change.merge(step)),
                      gated_chain, tuple(carried), tuple(o for o in owners if o not in carried))


def _versions(old: str) -> list[str]:
    match = re.fullmatch(r"(.*)-v(\d+)", old)
    base = match.group(1) if match else old
    return [f"{base}-v{n}" for n in range(2, 200)]


def _successor(old: Belief, new: str, text: str,
               justifications: Sequence[Justification] | None) -> Belief:
    own = tuple(j for j in old.justifications if not j.gate)
    stamp = now()
    return Belief(
        id=new, text=text,
        justifications=tuple(justifications) if justifications is not None else own,
        source=old.source, source_url=old.source_url, source_hash=old.source_hash,
        date=old.date, metadata=MappingProxyType(dict(old.metadata)),
        created_at=stamp, updated_at=stamp)


def undo_supersede(store: Store[SupersedeTx], old: str) -> Change:
    """Restore the graph as it was before `supersede OLD ...`: the gate and the link go, the
    rewired edges move back, and a NEW the reword created is deleted (retracted instead
    when something else names it now)."""
    check_id(old)
    return store.write(lambda tx: undo_in(tx, old), ChangeEntry("supersede-undo", {"old": old}))


def undo_in(tx: SupersedeTx, old: str) -> Change:
    record = tx.supersede_record(old)
    if record is None:
        if not tx.existing_ids([old]):
            raise NotFound("belief", old)
        raise InvalidInput(f"'{old}' is not superseded", field="old", value=old)
    moved = tx.move_mentions_back(record.rewired, record.new, old)
    if moved != len(record.rewired):
        raise InvalidInput(f"cannot undo: {len(record.rewired) - moved} of the edges moved to "
                           f"'{record.new}' are no longer there", field="old", value=old)
    if record.gated != 0:  # 0: OLD named NEW of its own everywhere, and keeps it
        tx.ungate_belief(old, record.new)
    for version in record.chain:
        tx.ungate_belief(version, record.new)
    tx.delete_supersede(old)
    seeds = [old, *record.chain, *sorted({e.belief for e in record.rewired})]
    if record.created_new:
        named = tx.direct_dependents(record.new) or any(
            record.new in n.members for n in tx.nogoods()) or any(tx.supersede_links(record.new))
        if named:
            tx.set_pins([record.new], retracted=True, asserted=False,
                        reason=f"supersede of {old} undone", at=now())
            seeds.append(record.new)
        else:
            tx.delete_belief(record.new)
    change = tx.relabel(seeds)
    if record.created_new and record.new not in seeds:
        change.went_out = [b for b in change.went_out if b != record.new]
    return enforce_nogoods(tx, change)
