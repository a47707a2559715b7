"""Editing a belief in place: remove one justification, make it a premise, its metadata.

Each is one write transaction with its propagation and nogoods; what was removed is kept in
the change-log entry's args. Setting `beliefs_type` changes entrenchment at once: each nogood
a retraction resolved whose members rest on the belief is resolved again (its victim
restored, the least entrenched chosen anew).
"""
from __future__ import annotations

import json
from types import MappingProxyType

from engine.change_records import ChangeEntry
from engine.errors import InvalidInput, NotFound
from engine.model import Belief, Change, check_id
from engine.memory.dialectic import DialecticTx
from engine.results import JsonValue
from engine.store import Store
from engine.tms.access import TAGS_KEY, parse_tags
from engine.tms.kernel import enforce_nogoods, justification_args, now, standing_gates
from engine.tms.records import ResolutionTx, TmsTx

KEY_MAX = 100


def _belief(tx: TmsTx, belief_id: str) -> Belief:
    found = tx.get_beliefs([belief_id])
    if belief_id not in found:
        raise NotFound("belief", belief_id)
    return found[belief_id]


def remove_justification(store: Store[DialecticTx], belief_id: str, position: int) -> Change:
    """Drop the belief's `position`-th justification (1-based); never the last one."""
    check_id(belief_id)
    if not isinstance(position, int) or position < 1:
        raise InvalidInput("the justification number counts from 1", field="position",
                           value=position)
    removed: list[dict[str, object]] = []

    def work(tx: DialecticTx) -> Change:
        b = _belief(tx, belief_id)
        own = [j for j in b.justifications if not j.gate]
        if not own:
            raise InvalidInput(f"'{belief_id}' is a premise: it has no justification to remove",
                               field="id", value=belief_id)
        if position > len(b.justifications) or b.justifications[position - 1].gate:
            raise InvalidInput(f"'{belief_id}' has {len(own)} justification(s), not {position}",
                               field="position", value=position)
        if len(own) == 1:
            raise InvalidInput(f"justification {position} is the last one of '{belief_id}': "
                               "use convert-to-premise or retract", field="position",
                               value=position)
        removed[:] = [justification_args(b.justifications[position - 1])]
        tx.remove_justification(belief_id, position)
        return enforce_nogoods(tx, tx.relabel([belief_id]))

    return store.write(work, ChangeEntry("remove-justification", {
        "id": belief_id, "position": position, "removed": removed}))  # filled in by work


def convert_to_premise(store: Store[DialecticTx], belief_id: str) -> Change:
    """Strip every justification (kept in the change log); gates on them stay, as the
    premise's gate justification."""
    check_id(belief_id)
    removed: list[dict[str, object]] = []

    def work(tx: DialecticTx) -> Change:
        b = _belief(tx, belief_id)
        if b.is_premise:
            raise InvalidInput(f"'{belief_id}' is a premise already", field="id",
                               value=belief_id)
        gates = standing_gates(tx, b)
        removed[:] = [justification_args(j) for j in b.justifications]
        for position in range(len(b.justifications), 0, -1):
            tx.remove_justification(belief_id, position)
        for g in gates:
            tx.gate_belief(belief_id, g, None)
        return enforce_nogoods(tx, tx.relabel([belief_id]))

    return store.write(work, ChangeEntry("convert-to-premise", {
        "id": belief_id, "removed": removed}))  # filled in by work


def parse_value(text: str) -> JsonValue:
    """A JSON value when the text is one (42, true, ["a"], {"k": 1}, "quoted"), else the text."""
    try:
        return json.loads(text)
    except (ValueError, TypeError):
        return text


def _key(key: str) -> str:
    if not isinstance(key, str) or not key.strip() or len(key) > KEY_MAX:
        raise InvalidInput(f"invalid metadata key {key!r}: 1-{KEY_MAX} characters",
                           field="key", value=key)
    return key.strip()


def set_metadata(store: Store[DialecticTx], belief_id: str, key: str, value: object) -> Change:
    check_id(belief_id)
    key = _key(key)
    json.dumps(value)  # a JSON value, or this raises before anything is written
    if key == TAGS_KEY:
        value = list(parse_tags(value))

    def work(tx: DialecticTx) -> Change:
        b = _belief(tx, belief_id)
        tx.set_metadata(belief_id, {**b.metadata, key: value}, now())
        return _after_metadata(tx, belief_id, key)

    return store.write(work, ChangeEntry("set-metadata", {"id": belief_id, "key": key,
                                                          "value": value}))


def unset_metadata(store: Store[DialecticTx], belief_id: str, key: str) -> Change:
    check_id(belief_id)
    key = _key(key)

    def work(tx: DialecticTx) -> Change:
        b = _belief(tx, belief_id)
        if key not in b.metadata:
            raise InvalidInput(f"'{belief_id}' has no metadata key '{key}'", field="key",
                               value=key)
        tx.set_metadata(belief_id, {k: v for k, v in b.metadata.items() if k != key}, now())
        return _after_metadata(tx, belief_id, key)

    return store.write(work, ChangeEntry("unset-metadata", {"id": belief_id, "key": key}))


def _after_metadata(tx: ResolutionTx, belief_id: str, key: str) -> Change:
    """What a metadata key changes beyond itself: entrenchment re-resolves nogoods; access
    tags are recomputed over what rests on the belief (labels cannot move: tags are not
    in the semantics)."""
    if key == "beliefs_type":
        return reresolve_in(tx, belief_id)
    if key == TAGS_KEY:
        tx.relabel([belief_id])
    return Change()


def get_metadata(store: Store[DialecticTx], belief_id: str, key: str | None = None) -> object:
    check_id(belief_id)
    meta = store.read(lambda tx: dict(_belief(tx, belief_id).metadata))
    if key is None:
        return MappingProxyType(meta)
    if key not in meta:
        raise InvalidInput(f"'{belief_id}' has no metadata key '{key}'", field="key", value=key)
    return meta[key]


def reresolve_in(tx: ResolutionTx, belief_id: str) -> Change:
    """Entrenchment of `belief_id` changed: each nogood resolved by retracting a belief, whose
    members rest on `belief_id`, gets its victim back and is resolved again."""
    change = Change()
    for nogood in tx.nogoods():
        victim = nogood.resolution.removeprefix("retracted ")
        if victim == nogood.resolution:
            continue
        found = tx.get_beliefs([victim])
        v = found.get(victim)
        if v is None or not v.retracted or v.retract_reason != f"nogood {nogood.id}":
            continue
        if belief_id != victim and belief_id not in tx.upstream(nogood.members):
            continue
        tx.set_pins([victim], retracted=False, asserted=False, reason="", at=now())
        change = change.merge(tx.relabel([victim]))
    return enforce_nogoods(tx, change)
