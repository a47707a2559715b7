"""Challenge and defend: a person argues with a conclusion in the graph.

`challenge ID` adds the premise `challenge:ID` (`challenge:ID:2`, ... for later ones, or the
id `--id` chooses; the text is the reason, metadata who and when) to the outlist of every
justification of ID, or of justification N only; a premise ID gets its gate justification, as
supersede gives one, and stays a premise. `defend C` gates a challenge (or a review defeater,
`review:<belief>:j<n>`, or a defeat's defeater, engine/memory/defeat.py) the same way with
`defence:C`, so C goes OUT and its target comes back; retracting the defence reopens C.
Challenges and defences carry :Defeater (derive never samples them) and :Challenge /
:Defence. Each verb is one write transaction with its propagation and nogoods.
"""
from __future__ import annotations

import dataclasses
from types import MappingProxyType
from typing import Protocol

from engine.change_records import ChangeEntry
from engine.errors import InvalidInput, NotFound
from engine.memory.records import Editing
from engine.model import Belief, Change, check_id
from engine.store import Store
from engine.tms import add_beliefs_in, enforce_nogoods, now
from engine.tms.records import ResolutionTx
from engine.tms.records import TmsTx


class DialecticTx(ResolutionTx, Editing, Protocol):
    """What the daily verbs write in place (challenge, defend, defeat, mark-duplicate, the
    registry's sync): premises, gates, fields, labels, nogoods."""


# metadata source_type a defence may answer (a defeat's defeater: engine/memory/defeat.py)
DEFENSIBLE = ("challenge", "review", "defence", "defeat")
PEER_DEFEATER_KEY = "defeats_node"  # a defeater from an ftl-reasons file: defensible too


@dataclasses.dataclass(frozen=True)
class Argued:
    id: str  # the challenge or defence created
    target: str
    change: Change

    def as_dict(self) -> dict:
        return {"id": self.id, "target": self.target, **self.change.as_dict()}


def reason_text(reason: str) -> str:
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidInput("give a --reason: it becomes the text of the new premise",
                           field="reason")
    return reason.strip()


def free_id(tx: TmsTx, base: str) -> str:
    """`base`, else `base:2`, `base:3`, ...: the first that no belief or justification names."""
    candidates = [base] + [f"{base}:{n}" for n in range(2, 100)]
    for c in candidates:
        check_id(c, what="new premise id")
    taken = tx.existing_ids(candidates) | tx.placeholder_ids(candidates)
    return next(c for c in candidates if c not in taken)


def challenge(store: Store[DialecticTx], target: str, reason: str, justification: int | None = None,
              challenge_id: str | None = None) -> Argued:
    """`challenge_id`: the new premise's id, chosen by the caller (default challenge:ID)."""
    text = check_challenge(target, reason, justification, challenge_id)
    return store.write(
        lambda tx: challenge_in(tx, target, text, justification, challenge_id),
        ChangeEntry("challenge", {"id": target, **({"justification": justification}
                                                   if justification else {}),
                                  **({"challenge": challenge_id} if challenge_id else {})},
                    text))


def check_challenge(target: str, reason: str, justification: int | None,
                    challenge_id: str | None = None) -> str:
    """What challenge checks before it writes; returns the challenge's text."""
    check_id(target)
    if challenge_id is not None:
        check_id(challenge_id, what="challenge id")
        if challenge_id == target:
            raise InvalidInput(f"a challenge of '{target}' cannot have its id",
                               field="challenge_id", value=challenge_id)
    text = reason_text(reason)
    if justification is not None and justification < 1:
        raise InvalidInput("--justification counts from 1", field="justification",
                           value=justification)
    return text


def chosen_id(tx: TmsTx, ident: str) -> str:
    """A new premise's id the caller chose: neither a belief nor an id some justification
    names already (which would make the new premise that forward reference)."""
    if tx.existing_ids([ident]):
        raise InvalidInput(f"belief '{ident}' already exists", field="id", value=ident)
    if tx.placeholder_ids([ident]):
        raise InvalidInput(f"'{ident}' is named by a justification already (a forward "
                           "reference); choose another id", field="id", value=ident)
    return ident


def challenge_in(tx: DialecticTx, target: str, reason: str, justification: int | None,
                 challenge_id: str | None = None) -> Argued:
    found = tx.get_beliefs([target])
    if target not in found:
        raise NotFound("belief", target)
    b = found[target]
    if justification is not None:
        if b.is_premise:
            raise InvalidInput(f"'{target}' is a premise: challenge it whole (no "
                               "--justification)", field="justification", value=justification)
        if justification > len(b.justifications):
            raise InvalidInput(f"'{target}' has {len(b.justifications)} justification(s), not "
                               f"{justification}", field="justification", value=justification)
    cid = chosen_id(tx, challenge_id) if challenge_id else free_id(tx, f"challenge:{target}")
    meta = {"source_type": "challenge", "challenge_target": target, "by": tx.actor(),
            "at": now(), **({"justification": justification} if justification else {})}
    change = create_marked_premise(tx, cid, reason, meta, ["Defeater", "Challenge"])
    tx.gate_belief(target, cid, [justification] if justification else None)
    return Argued(cid, target, enforce_nogoods(tx, change.merge(tx.relabel([target]))))


def defend(store: Store[DialecticTx], challenged: str, reason: str) -> Argued:
    check_id(challenged)
    text = reason_text(reason)
    return store.write(lambda tx: defend_in(tx, challenged, text),
                       ChangeEntry("defend", {"id": challenged}, text))


def defend_in(tx: DialecticTx, challenged: str, reason: str) -> Argued:
    found = tx.get_beliefs([challenged])
    if challenged not in found:
        raise NotFound("belief", challenged)
    metadata = found[challenged].metadata
    if str(metadata.get("source_type", "")) not in DEFENSIBLE and not metadata.get(
            PEER_DEFEATER_KEY):
        raise InvalidInput(f"'{challenged}' is not a challenge, a defeater or a defence: "
                           "challenge a belief with `challenge`",
                           field="id", value=challenged)
    did = free_id(tx, f"defence:{challenged}")
    meta = {"source_type": "defence", "defends": challenged, "by": tx.actor(), "at": now()}
    change = create_marked_premise(tx, did, reason, meta, ["Defeater", "Defence"])
    tx.gate_belief(challenged, did, None)
    return Argued(did, challenged, enforce_nogoods(tx, change.merge(tx.relabel([challenged]))))


def create_marked_premise(tx: DialecticTx, ident: str, text: str, metadata: dict,
                          labels: list[str]) -> Change:
    stamp = now()
    change = add_beliefs_in(tx, [Belief(id=ident, text=text, metadata=MappingProxyType(metadata),
                                        created_at=stamp, updated_at=stamp)])
    tx.mark_labels(ident, labels)
    return change
