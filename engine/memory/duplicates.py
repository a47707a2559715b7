"""`mark-duplicate DUP CANONICAL`: a person says DUP states what CANONICAL states.

DUP is retracted with the reason `duplicate of CANONICAL` and its metadata `duplicate_of`
names CANONICAL (the key ftl-reasons writes, kept by export); what rests on DUP follows it
OUT. Nothing is rewired: moving DUP's dependents onto CANONICAL is dedup's merge, the LLM
path (engine/dedup/merge.py), which also keeps a record to undo. `assert DUP` brings it back
(the metadata stays until `unset-metadata DUP duplicate_of`). One write transaction with its
propagation and nogoods.
"""
from __future__ import annotations

from engine.change_records import ChangeEntry
from engine.errors import InvalidInput, NotFound
from engine.memory.dialectic import DialecticTx
from engine.model import Change, check_id
from engine.store import Store
from engine.tms import enforce_nogoods, now

DUPLICATE_OF = "duplicate_of"


def duplicate_reason(canonical: str) -> str:
    return f"duplicate of {canonical}"


def mark_duplicate(store: Store[DialecticTx], duplicate: str, canonical: str) -> Change:
    check_id(duplicate)
    check_id(canonical)
    if duplicate == canonical:
        raise InvalidInput(f"'{duplicate}' cannot be a duplicate of itself", field="canonical",
                           value=canonical)
    return store.write(lambda tx: mark_duplicate_in(tx, duplicate, canonical),
                       ChangeEntry("mark-duplicate", {"id": duplicate, "canonical": canonical},
                                   duplicate_reason(canonical)))


def mark_duplicate_in(tx: DialecticTx, duplicate: str, canonical: str) -> Change:
    found = tx.get_beliefs([duplicate, canonical])
    for i in (duplicate, canonical):
        if i not in found:
            raise NotFound("belief", i)
    dup = found[duplicate]
    if dup.retracted and dup.metadata.get(DUPLICATE_OF) == canonical:
        raise InvalidInput(f"'{duplicate}' is marked a duplicate of '{canonical}' already",
                           field="id", value=duplicate)
    if duplicate in tx.upstream([canonical]):
        raise InvalidInput(f"'{canonical}' rests on '{duplicate}': retracting the duplicate "
                           "would take it OUT too", field="canonical", value=canonical)
    stamp = now()
    tx.set_metadata(duplicate, {**dup.metadata, DUPLICATE_OF: canonical}, stamp)
    tx.set_pins([duplicate], retracted=True, asserted=False,
                reason=duplicate_reason(canonical), at=stamp)
    return enforce_nogoods(tx, tx.relabel([duplicate]))
