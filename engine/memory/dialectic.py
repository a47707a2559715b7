"""Challenge and defend: a person argues with a conclusion in the graph.

`challenge ID` adds the premise `challenge:ID` (`challenge:ID:2`, ... for later ones; the
text is the reason, metadata who and when) to the outlist of every justification of ID, or of
justification N only; a premise ID gets its gate justification, as supersede gives one, and
stays a premise. `defend C` gates a challenge (or a review defeater, `review:<belief>:j<n>`)
the same way with `defence:C`, so C goes OUT and its target comes back; retracting the
defence reopens C. Challenges and defences carry :Defeater (derive never samples them) and
:Challenge / :Defence. Each verb is one write transaction with its propagation and nogoods.
"""
from __future__ import annotations

import dataclasses
from types import MappingProxyType
from typing import Protocol

from engine.change_records import ChangeEntry
from engine.errors import InvalidInput, NotFound
from engine.model import Belief, Change, check_id
from engine.store import Editing, Store, TmsTx
from engine.tms import add_beliefs_in, enforce_nogoods, now
from engine.tms.nogoods import ResolutionTx


class DialecticTx(ResolutionTx, Editing, Protocol):
    """What challenge and defend write: a premise, gates on the target, labels, nogoods."""


DEFENSIBLE = ("challenge", "review", "defence")  # metadata source_type a defence may answer


@dataclasses.dataclass(frozen=True)
class Argued:
    id: str  # the challenge or defence created
    target: str
    change: Change

    def as_dict(self) -> dict:
        return {"id": self.id, "target": self.target, **self.change.as_dict()}


def _reason(reason: str) -> str:
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidInput("give a --reason: it becomes the text of the new premise",
                           field="reason")
    return reason.strip()


def _free_id(tx: TmsTx, base: str) -> str:
    candidates = [base] + [f"{base}:{n}" for n in range(2, 100)]
    for c in candidates:
        check_id(c, what="new premise id")
    taken = tx.existing_ids(candidates) | tx.placeholder_ids(candidates)
    return next(c for c in candidates if c not in taken)


def challenge(store: Store, target: str, reason: str, justification: int | None = None
              ) -> Argued:
    text = check_challenge(target, reason, justification)
    return store.write(
        lambda tx: challenge_in(tx, target, text, justification),
        ChangeEntry("challenge", {"id": target, **({"justification": justification}
                                                   if justification else {})}, text))


def check_challenge(target: str, reason: str, justification: int | None) -> str:
    """What challenge checks before it writes; returns the challenge's text."""
    check_id(target)
    text = _reason(reason)
    if justification is not None and justification < 1:
        raise InvalidInput("--justification counts from 1", field="justification",
                           value=justification)
    return text


def challenge_in(tx: DialecticTx, target: str, reason: str, justification: int | None) -> Argued:
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
    cid = _free_id(tx, f"challenge:{target}")
    meta = {"source_type": "challenge", "challenge_target": target, "by": tx.actor(),
            "at": now(), **({"justification": justification} if justification else {})}
    change = _create_premise(tx, cid, reason, meta, ["Defeater", "Challenge"])
    tx.gate_belief(target, cid, [justification] if justification else None)
    return Argued(cid, target, enforce_nogoods(tx, change.merge(tx.relabel([target]))))


def defend(store: Store, challenged: str, reason: str) -> Argued:
    check_id(challenged)
    text = _reason(reason)
    return store.write(lambda tx: defend_in(tx, challenged, text),
                       ChangeEntry("defend", {"id": challenged}, text))


def defend_in(tx: DialecticTx, challenged: str, reason: str) -> Argued:
    found = tx.get_beliefs([challenged])
    if challenged not in found:
        raise NotFound("belief", challenged)
    if str(found[challenged].metadata.get("source_type", "")) not in DEFENSIBLE:
        raise InvalidInput(f"'{challenged}' is not a challenge, a review defeater or a "
                           "defence: challenge a belief with `challenge`",
                           field="id", value=challenged)
    did = _free_id(tx, f"defence:{challenged}")
    meta = {"source_type": "defence", "defends": challenged, "by": tx.actor(), "at": now()}
    change = _create_premise(tx, did, reason, meta, ["Defeater", "Defence"])
    tx.gate_belief(challenged, did, None)
    return Argued(did, challenged, enforce_nogoods(tx, change.merge(tx.relabel([challenged]))))


def _create_premise(tx: DialecticTx, ident: str, text: str, metadata: dict, labels: list[str]
                    ) -> Change:
    stamp = now()
    change = add_beliefs_in(tx, [Belief(id=ident, text=text, metadata=MappingProxyType(metadata),
                                        created_at=stamp, updated_at=stamp)])
    tx.mark_labels(ident, labels)
    return change
