"""Defeat: a typed defeater of one justification, as ftl-reasons 0.57 has them, on our own
mechanism (a defeater is a belief in that justification's outlist, as review's are).

- `defeat ID --justification N --type TYPE --reason TEXT [--id D]`: the premise
  `defeat:ID:jN` (or D; its text the reason, metadata `source_type: defeat`, the type, the
  belief and position) joins justification N's outlist, so ID goes OUT unless another
  justification holds. `defend D` answers it (engine/memory/dialectic.py): D goes OUT and the
  justification holds again.
- with scope beliefs (`--scope ANTECEDENT=TEXT`, one per antecedent of justification N): each
  becomes a premise `scope:ID:jN:ANTECEDENT` saying what that antecedent does and does not
  establish, and the defeater is derived from them (one SL justification over all), so
  challenging (or retracting) any scope belief takes the defeater OUT and restores the
  justification.
- `migrate-retractions`: a belief that came in retracted with only a reason string while a
  justification of it holds gets a defeater of type `migrated-retraction` (its text the
  reason) on each justification that holds, and its retraction is lifted: it stays OUT, now
  because of beliefs in the graph that can be challenged, defended and explained.

Each verb is one write transaction with its propagation and nogoods; `--dry-run` of
migrate-retractions runs the same work in a transaction that is rolled back.
"""
from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from types import MappingProxyType
from engine import defaults
from engine.change_records import ChangeEntry
from engine.errors import InvalidInput, NotFound
from engine.memory.dialectic import (
    DialecticTx,
    chosen_id,
    create_marked_premise,
    free_id,
    reason_text,
)
from engine.model import ID_RE, Belief, Change, Justification, Truth, check_id, check_text
from engine.store import Store
from engine.tms import add_beliefs_in, enforce_nogoods, now
from engine.tms.records import KEPT_REASON, BeliefFilter
from engine.tms.semantics import is_valid

DEFEATER_TYPES = defaults.DEFEATER_TYPES
REASON_TYPES = defaults.DEFEAT_REASON_TYPES
REASON_TYPE_KEY = "defeat_reason_type"  # the defeater's metadata, as ftl-reasons keeps it
MIGRATED = "migrated-retraction"  # the type migrate-retractions gives its defeaters
SOURCE_TYPE = "defeat"  # metadata source_type of a defeater (DEFENSIBLE in dialectic.py)
SCOPE_TYPE = "scope"  # metadata source_type of a scope belief
# The reasons a peer file keeps in metadata when a belief is OUT (ftl-reasons' exporter).
PEER_REASON_KEYS = ("retract_reason", "stale_reason")


@dataclasses.dataclass(frozen=True)
class Scope:
    """What one antecedent of the defeated justification establishes (and does not): the
    text of a scope belief."""

    antecedent: str
    text: str


@dataclasses.dataclass(frozen=True)
class Defeated:
    id: str  # the defeater
    target: str
    justification: int
    type: str
    scopes: tuple[str, ...]  # the scope beliefs the defeater is derived from
    change: Change
    reason_type: str = ""  # what logically fails in the justification ("" not said)

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, "target": self.target, "justification": self.justification,
                "type": self.type, "reason_type": self.reason_type, "scopes": list(self.scopes),
                **self.change.as_dict()}


def scopes_from_findings(data: object, target: str) -> tuple[list[Scope], str]:
    """The scope beliefs and the defeater's default text from a scope file as ftl-reasons'
    defeat-with-scope reads it: {"scope_findings": [{"antecedent", "establishes",
    "does_not_establish"}], "missing_property"}."""
    findings = data.get("scope_findings") if isinstance(data, dict) else None
    if not isinstance(findings, list) or not findings:
        raise InvalidInput("a scope file is a JSON object with a non-empty list "
                           "scope_findings", field="scope_file")
    scopes = []
    for f in findings:
        if not isinstance(f, dict) or not isinstance(f.get("antecedent"), str) or not str(
                f.get("establishes") or "").strip():
            raise InvalidInput("each scope finding needs an antecedent and what it "
                               "establishes", field="scope_file")
        text = f"What {f['antecedent']} establishes: {str(f['establishes']).strip()}."
        if str(f.get("does_not_establish") or "").strip():
            text += f" What it does not: {str(f['does_not_establish']).strip()}."
        scopes.append(Scope(f["antecedent"], text))
    missing = data.get("missing_property") if isinstance(data, dict) else None
    reason = (f"{target} claims {missing.strip()}, which none of its antecedents establishes"
              if isinstance(missing, str) and missing.strip() else "")
    return scopes, reason


def reason_type_of(data: object) -> str:
    """The reason type a scope file names (`defeat_reason_type`), "" when none."""
    value = data.get(REASON_TYPE_KEY) if isinstance(data, dict) else None
    return value.strip() if isinstance(value, str) else ""


def check_reason_type(reason_type: str) -> str:
    if reason_type and reason_type not in REASON_TYPES:
        raise InvalidInput(f"--reason-type takes {', '.join(REASON_TYPES)}, not "
                           f"{reason_type!r}", field="reason_type", value=reason_type)
    return reason_type


def check_type(defeater_type: str) -> str:
    if defeater_type not in DEFEATER_TYPES:
        raise InvalidInput(f"--type takes {', '.join(DEFEATER_TYPES)}, not {defeater_type!r}",
                           field="type", value=defeater_type)
    return defeater_type


def check_defeat(target: str, justification: int, defeater_type: str, reason: str,
                 defeater_id: str | None, scopes: Sequence[Scope], reason_type: str = "") -> str:
    """What defeat checks before it writes; returns the defeater's text."""
    check_id(target)
    if not isinstance(justification, int) or justification < 1:
        raise InvalidInput("--justification counts from 1", field="justification",
                           value=justification)
    check_type(defeater_type)
    check_reason_type(reason_type)
    if defeater_id is not None:
        check_id(defeater_id, what="defeater id")
    seen: set[str] = set()
    for s in scopes:
        check_id(s.antecedent, what="scope antecedent id")
        check_text(s.text, ident=f"scope of {s.antecedent}")
        if s.antecedent in seen:
            raise InvalidInput(f"antecedent '{s.antecedent}' has two scopes", field="scope",
                               value=s.antecedent)
        seen.add(s.antecedent)
    return reason_text(reason)


def defeat(store: Store[DialecticTx], target: str, justification: int, defeater_type: str,
           reason: str,
           defeater_id: str | None = None, scopes: Sequence[Scope] = (),
           reason_type: str = "") -> Defeated:
    """`reason_type`: what logically fails in the justification (REASON_TYPES), kept in
    the defeater's metadata as `defeat_reason_type`."""
    text = check_defeat(target, justification, defeater_type, reason, defeater_id, scopes,
                        reason_type)
    return store.write(
        lambda tx: defeat_in(tx, target, justification, defeater_type, text, defeater_id,
                             scopes, reason_type),
        ChangeEntry("defeat", {"id": target, "justification": justification,
                               "type": defeater_type,
                               **({"reason_type": reason_type} if reason_type else {}),
                               **({"defeater": defeater_id} if defeater_id else {}),
                               **({"scopes": [s.antecedent for s in scopes]} if scopes
                                  else {})}, text))


def defeat_in(tx: DialecticTx, target: str, justification: int, defeater_type: str,
              text: str, defeater_id: str | None = None, scopes: Sequence[Scope] = (),
              reason_type: str = "") -> Defeated:
    b = _defeatable(tx, target, justification)
    named = b.justifications[justification - 1].antecedents
    for s in scopes:
        if s.antecedent not in named:
            raise InvalidInput(f"'{s.antecedent}' is not an antecedent of justification "
                               f"{justification} of '{target}' ({', '.join(named)})",
                               field="scope", value=s.antecedent)
    did = chosen_id(tx, defeater_id) if defeater_id else _free(tx, target, justification)
    stamp = now()
    meta = _defeater_metadata(tx, defeater_type, target, justification, stamp)
    if reason_type:
        meta[REASON_TYPE_KEY] = reason_type
    if scopes:
        change, scope_ids = _create_scoped(tx, did, text, meta, target, justification, scopes,
                                           stamp)
    else:
        change, scope_ids = create_marked_premise(tx, did, text, meta, ["Defeater"]), ()
    tx.gate_belief(target, did, [justification])
    change = enforce_nogoods(tx, change.merge(tx.relabel([target])))
    return Defeated(did, target, justification, defeater_type, scope_ids, change, reason_type)


def _defeatable(tx: DialecticTx, target: str, justification: int) -> Belief:
    found = tx.get_beliefs([target])
    if target not in found:
        raise NotFound("belief", target)
    b = found[target]
    if b.is_premise:
        raise InvalidInput(f"'{target}' is a premise: it has no justification to defeat "
                           "(challenge it instead)", field="justification",
                           value=justification)
    if justification > len(b.justifications):
        raise InvalidInput(f"'{target}' has {len(b.justifications)} justification(s), not "
                           f"{justification}", field="justification", value=justification)
    return b


def _free(tx: DialecticTx, target: str, justification: int) -> str:
    base = f"defeat:{target}:j{justification}"
    if not ID_RE.fullmatch(base + ":99"):  # a long target: a digest keeps the id an id
        base = "defeat:" + hashlib.sha256(f"{target}\n{justification}".encode()).hexdigest()[:24]
    return free_id(tx, base)


def _defeater_metadata(tx: DialecticTx, defeater_type: str, target: str, justification: int,
                       at: str) -> dict[str, object]:
    return {"source_type": SOURCE_TYPE, "defeater_type": defeater_type, "defeats": target,
            "justification": justification, "by": tx.actor(), "at": at}


def _create_scoped(tx: DialecticTx, did: str, text: str, meta: dict[str, object], target: str,
                   justification: int, scopes: Sequence[Scope], at: str
                   ) -> tuple[Change, tuple[str, ...]]:
    """The scope premises and the defeater derived from them, in one add."""
    ids = tuple(_scope_id(tx, target, justification, s.antecedent) for s in scopes)
    premises = [Belief(id=i, text=s.text, metadata=MappingProxyType({
        "source_type": SCOPE_TYPE, "scope_of": s.antecedent, "for_defeater": did,
        "by": tx.actor(), "at": at}), created_at=at, updated_at=at)
        for i, s in zip(ids, scopes)]
    defeater = Belief(id=did, text=text, justifications=(Justification(
        ids, label=f"scope of justification {justification} of {target}"),),
        metadata=MappingProxyType({**meta, "scopes": list(ids)}), created_at=at,
        updated_at=at)
    change = add_beliefs_in(tx, [*premises, defeater])
    tx.mark_labels(did, ["Defeater"])
    return change, ids


def _scope_id(tx: DialecticTx, target: str, justification: int, antecedent: str) -> str:
    base = f"scope:{target}:j{justification}:{antecedent}"
    if not ID_RE.fullmatch(base + ":99"):
        digest = hashlib.sha256(f"{target}\n{justification}\n{antecedent}".encode())
        base = "scope:" + digest.hexdigest()[:24]
    return free_id(tx, base)


# --- migrate-retractions -------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Migrated:
    id: str
    reason: str
    defeaters: tuple[tuple[int, str], ...]  # (justification, defeater id)

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, "reason": self.reason,
                "defeaters": [{"justification": n, "id": d} for n, d in self.defeaters]}


@dataclasses.dataclass(frozen=True)
class Migration:
    dry_run: bool
    migrated: tuple[Migrated, ...]
    skipped: tuple[tuple[str, str], ...]  # (belief, why not)
    change: Change

    def as_dict(self) -> dict[str, object]:
        return {"dry_run": self.dry_run, "migrated": [m.as_dict() for m in self.migrated],
                "skipped": [{"id": i, "why": why} for i, why in self.skipped],
                **self.change.as_dict()}


def retraction_reason(b: Belief) -> str:
    """The reason a retraction carries: its own, else the one a peer file kept in metadata."""
    if b.retract_reason and b.retract_reason != KEPT_REASON:
        return b.retract_reason
    for key in PEER_REASON_KEYS:
        value = b.metadata.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return b.retract_reason


def _not_migrated(b: Belief) -> str:
    """Why a retracted belief is not turned into defeats ("" when it is a candidate)."""
    if b.is_premise:
        return "a premise: no justification to defeat"
    if b.metadata.get("namespace"):
        return "another agent's belief: sync-agent keeps its pins"
    if b.retract_reason.startswith("nogood "):
        return "retracted by nogood resolution"
    if b.metadata.get("duplicate_of"):
        return "a duplicate (mark-duplicate or dedup)"
    if not retraction_reason(b):
        return "retracted without a reason"
    return ""


def migrate_retractions(store: Store[DialecticTx], ids: Sequence[str] = (), *, dry_run: bool = False
                        ) -> Migration:
    """Turn retractions kept only as a reason into defeated justifications (see the module
    docstring); `ids`: only these beliefs (default: every retracted one)."""
    for i in ids:
        check_id(i)
    wanted = tuple(dict.fromkeys(ids))

    def work(tx: DialecticTx) -> Migration:
        return migrate_in(tx, wanted, dry_run)

    if dry_run:
        return store.dry_run(work)
    return store.write(work, ChangeEntry("migrate-retractions", {"ids": list(wanted)}
                                         if wanted else {}))


def migrate_in(tx: DialecticTx, ids: Sequence[str], dry_run: bool) -> Migration:
    if ids:
        found = tx.get_beliefs(ids)
        missing = [i for i in ids if i not in found]
        if missing:
            raise NotFound("belief", missing[0])
    else:
        out = [b.id for b in tx.list_beliefs(BeliefFilter(truth=Truth.OUT))]
        found = tx.get_beliefs(out)
    retracted = [found[i] for i in (ids or sorted(found)) if found[i].retracted]
    skipped = [(i, "not retracted") for i in ids if not found[i].retracted]
    named = sorted({r for b in retracted for j in b.justifications for r in j.mentions()})
    truth = {i: b.truth for i, b in tx.get_beliefs(named).items()}
    stamp = now()
    migrated: list[Migrated] = []
    change = Change()
    for b in retracted:
        why = _not_migrated(b)
        holding = [] if why else [k for k, j in enumerate(b.justifications, start=1)
                                  if not j.gate and is_valid(j, truth)]
        if not why and not holding:
            why = "no justification of it holds"
        if why:
            skipped.append((b.id, why))
            continue
        reason = retraction_reason(b)
        defeaters = []
        for k in holding:
            did = _free(tx, b.id, k)
            meta = {**_defeater_metadata(tx, MIGRATED, b.id, k, stamp),
                    "retracted_at": b.retracted_at}
            change = change.merge(create_marked_premise(tx, did, reason, meta, ["Defeater"]))
            tx.gate_belief(b.id, did, [k])
            defeaters.append((k, did))
        migrated.append(Migrated(b.id, reason, tuple(defeaters)))
    if migrated:
        moved = [m.id for m in migrated]
        tx.set_pins(moved, retracted=False, asserted=False, reason="", at=stamp)
        change = enforce_nogoods(tx, change.merge(tx.relabel(moved)))
    return Migration(dry_run, tuple(migrated), tuple(skipped), change)
