"""Truth-maintenance operations: the library API behind `python -m engine ...`.

Every mutating operation runs inside one `store.write` transaction: the change, the
propagation it causes, and the nogood retractions that follow commit together or not at all.
Input is checked before anything is written; a problem raises InvalidInput / NotFound.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from engine import access
from engine import nogoods as nogood_rules
from engine.clock import now_iso
from engine.change_records import ChangeEntry
from engine.errors import InvalidInput, NotFound
from engine.model import (
    Belief,
    Change,
    Justification,
    Kind,
    Label,
    Nogood,
    Status,
    Truth,
    check_id,
    check_text,
)
from engine.bulk import cyclic_gc_paused
from engine.labelling import labels_from_scratch
from engine.semantics import compute_labels
from engine.store import BeliefFilter, GraphTx, Store

if TYPE_CHECKING:
    from engine.pinning import SourcedClaim


now = now_iso  # the engine's clock (engine/clock.py), under the name the stages import


# --- building justifications ---------------------------------------------------------
def make_justifications(
    antecedents: Sequence[str] = (),
    *,
    unless: Sequence[str] = (),
    kind: Kind = Kind.SL,
    any_mode: bool = False,
    label: str = "",
) -> tuple[Justification, ...]:
    """ALL: one justification over every antecedent. ANY: one per antecedent, each with
    the whole outlist. No antecedents and no outlist: none (a premise)."""
    antecedents = tuple(dict.fromkeys(antecedents))
    unless = tuple(dict.fromkeys(unless))
    for ref in antecedents + unless:
        check_id(ref, what="antecedent id" if ref in antecedents else "outlist id")
    if any_mode and antecedents:
        return tuple(Justification((a,), unless, kind, label) for a in antecedents)
    if not antecedents and not unless:
        return ()
    return (Justification(antecedents, unless, kind, label),)


def _check_justifications(belief_id: str, justifications: Iterable[Justification]) -> None:
    """Every id a justification names is well-formed, and none is the belief itself."""
    for j in justifications:
        for ref in j.antecedents:
            check_id(ref, what="antecedent id")
        for ref in j.outlist:
            check_id(ref, what="outlist id")
        if belief_id in j.mentions():
            raise InvalidInput(
                f"belief '{belief_id}' cannot name itself in its own justification",
                field="justification",
                value=belief_id,
            )


# --- mutations -----------------------------------------------------------------------
def add(
    store: Store,
    belief_id: str,
    text: str,
    justifications: Sequence[Justification] = (),
    *,
    source: str = "",
    source_url: str = "",
    metadata: dict[str, Any] | None = None,
    claim: SourcedClaim | None = None,
) -> Change:
    """Add a belief (a premise when it has no justifications). With `claim` (a source file
    read and grounded by engine/pinning.py) the belief is pinned to it, FROM edge included,
    in the same transaction."""
    from engine.pinning import pin_in

    check_id(belief_id)
    check_text(text, ident=belief_id)
    _check_justifications(belief_id, justifications)
    stamp = now()
    fields = dict(metadata or {})
    if claim is not None:
        fields.update(claim.metadata())
    belief = Belief(
        id=belief_id,
        text=text,
        justifications=tuple(justifications),
        source=claim.path if claim else source,
        source_url=source_url,
        source_hash=claim.sha256 if claim else "",
        metadata=MappingProxyType(fields),
        created_at=stamp,
        updated_at=stamp,
    )

    def work(tx: GraphTx) -> Change:
        if claim is not None:  # refused before anything is created
            pin_in(tx, belief_id, claim, fields, stamp, check_only=True)
        change = add_beliefs_in(tx, [belief])
        if claim is not None:
            pin_in(tx, belief_id, claim, fields, stamp)
        return change

    args: dict[str, Any] = {"id": belief_id}
    if claim is not None:
        args["source"] = claim.spec()
    return store.write(work, ChangeEntry("add", args))


def add_beliefs_in(tx: nogood_rules.ResolutionTx, beliefs: Sequence[Belief]) -> Change:
    """Inside a write transaction: create new beliefs, propagate, enforce nogoods.

    Used by `add` and by derive's apply, so both follow the same rules."""
    seen: set[str] = set()
    for b in beliefs:
        check_id(b.id)
        check_text(b.text, ident=b.id)
        _check_justifications(b.id, b.justifications)
        if b.id in seen:
            raise InvalidInput(f"belief '{b.id}' is given twice", field="id", value=b.id)
        seen.add(b.id)
    taken = tx.existing_ids(seen)
    if taken:
        first = sorted(taken)[0]
        raise InvalidInput(f"belief '{first}' already exists", field="id", value=first)
    tx.create_beliefs(list(beliefs))
    change = tx.relabel(seen)
    return enforce_nogoods(tx, change)


def add_justification(store: Store, belief_id: str,
                      justifications: Sequence[Justification]) -> Change:
    """Give an existing belief more justifications (a premise becomes derived)."""
    check_id(belief_id)
    check_new_justifications(belief_id, justifications)
    return store.write(lambda tx: add_justification_in(tx, belief_id, justifications),
                       ChangeEntry("add-justification", {
                           "id": belief_id,
                           "justifications": [_justification_args(j) for j in justifications]}))


def check_new_justifications(belief_id: str, justifications: Sequence[Justification]) -> None:
    """What add-justification checks before it writes: some justification, well-formed ids."""
    if not justifications:
        raise InvalidInput("add-justification needs --sl, --cp or --unless ids",
                           field="justification")
    _check_justifications(belief_id, justifications)


def add_justification_in(tx: GraphTx, belief_id: str,
                         justifications: Sequence[Justification]) -> Change:
    """Inside a write transaction: add-justification with its propagation and nogoods."""
    _require(tx, [belief_id])
    add_justifications_in(tx, belief_id, justifications)
    return enforce_nogoods(tx, tx.relabel([belief_id]))


def add_justifications_in(tx: GraphTx, belief_id: str,
                          justifications: Sequence[Justification]) -> None:
    """Add justifications, gated as the belief is gated whole (its supersessor, its
    challenges of every justification): a gated premise becomes derived and stays gated,
    its gate justification going."""
    belief = tx.get_beliefs([belief_id])[belief_id]
    extra = standing_gates(tx, belief)
    justifications = [dataclasses.replace(
        j, outlist=j.outlist + tuple(o for o in extra if o not in j.outlist))
        for j in justifications]
    for position in sorted((k for k, j in enumerate(belief.justifications, start=1)
                            if j.gate), reverse=True):
        tx.remove_justification(belief_id, position)
    tx.add_justifications(belief_id, list(justifications))


def standing_gates(tx: GraphTx, b: Belief) -> list[str]:
    """The outlist members that gate a belief whole: what supersedes it, the challenges of
    all its justifications, and whatever its gate justification holds."""
    named = sorted({o for j in b.justifications for o in j.outlist})
    if not named:
        return []
    info = tx.get_beliefs(named)
    by, _ = tx.supersede_links(b.id)
    held = {o for j in b.justifications if j.gate for o in j.outlist}
    return [o for o in named if o in by or o in held or (
        o in info and info[o].metadata.get("challenge_target") == b.id
        and "justification" not in info[o].metadata)]


def _justification_args(j: Justification) -> dict[str, Any]:
    return {"kind": j.kind.value, "antecedents": list(j.antecedents), "outlist": list(j.outlist),
            **({"label": j.label} if j.label else {})}


def retract(store: Store, belief_id: str, reason: str = "") -> Change:
    """Pin a belief OUT (premise or derived) until it is asserted again."""
    check_id(belief_id)
    return store.write(lambda tx: retract_in(tx, belief_id, reason),
                       ChangeEntry("retract", {"id": belief_id}, reason))


def retract_in(tx: GraphTx, belief_id: str, reason: str = "") -> Change:
    if belief_id not in tx.set_pins([belief_id], retracted=True, asserted=False, reason=reason,
                                    at=now()):
        raise NotFound("belief", belief_id)
    return enforce_nogoods(tx, tx.relabel([belief_id]))


def assert_belief(store: Store, belief_id: str) -> Change:
    """Un-pin a retracted belief; a derived belief that still has no valid support then
    holds as a user-asserted fact until it is retracted."""
    check_id(belief_id)
    return store.write(lambda tx: assert_in(tx, belief_id),
                       ChangeEntry("assert", {"id": belief_id}))


def assert_in(tx: GraphTx, belief_id: str) -> Change:
    stamp = now()
    pinned = tx.set_pins([belief_id], retracted=False, asserted=False, reason="", at=stamp)
    if belief_id not in pinned:
        raise NotFound("belief", belief_id)
    change = tx.relabel([belief_id])
    now_in = belief_id in change.went_in or (
        pinned[belief_id].was_in and belief_id not in change.went_out)
    if not now_in and not pinned[belief_id].premise:
        tx.set_pins([belief_id], retracted=False, asserted=True, reason="", at=stamp)
        change = change.merge(tx.relabel([belief_id]))
    return enforce_nogoods(tx, change)


def add_nogood(store: Store, member_ids: Sequence[str], nogood_id: str | None = None) -> Change:
    """Record that these beliefs must not all be IN; enforce it now and on later changes."""
    members = tuple(dict.fromkeys(member_ids))
    if len(members) < 2:
        raise InvalidInput("a nogood needs at least two distinct belief ids", field="members")
    for m in members:
        check_id(m)
    ident = nogood_id or "nogood-" + "-".join(members)[:180]
    check_id(ident, what="nogood id")

    def work(tx: GraphTx) -> Change:
        _require(tx, members)
        if any(n.id == ident for n in tx.nogoods()):
            raise InvalidInput(f"nogood '{ident}' already exists", field="id", value=ident)
        tx.create_nogood(Nogood(ident, members, discovered=now()))
        return nogood_rules.resolve(tx, [Nogood(ident, members)], Change(), at=now())

    return store.write(work, ChangeEntry("nogood", {"id": ident, "members": list(members)}))


def enforce_nogoods(tx: nogood_rules.ResolutionTx, change: Change) -> Change:
    """Resolve every nogood that `change` made hold (all members IN)."""
    if not change.went_in:
        return change
    holding = tx.nogoods_holding(change.went_in)
    if not holding:
        return change
    return nogood_rules.resolve(tx, holding, change, at=now())


def init(store: Store) -> dict[str, int]:
    """Constraints and indexes, and the upgrades of what older versions wrote: how many
    nodes each upgrade changed."""
    return store.init_schema()


def reset(store: Store) -> None:
    store.write(lambda tx: tx.reset(), ChangeEntry("reset"))


# --- reads ---------------------------------------------------------------------------
def status(store: Store) -> Status:
    return store.read(lambda tx: tx.status())


def list_beliefs(store: Store, which: BeliefFilter = BeliefFilter()) -> list[Belief]:
    return store.read(lambda tx: tx.list_beliefs(which))


def show(store: Store, belief_id: str) -> tuple[Belief, list[str]]:
    """A belief with its justifications, and the ids of its direct dependents."""
    check_id(belief_id)

    def work(tx: GraphTx):
        shown = tx.shown_belief(belief_id)
        if shown is None:
            raise NotFound("belief", belief_id)
        belief, dependents = shown
        return belief, sorted(dependents)

    return store.read(work)


def supersede_links(store: Store, belief_id: str) -> tuple[list[str], list[str]]:
    """(what supersedes the belief, what it supersedes)."""
    return store.read(lambda tx: tx.supersede_links(belief_id))


def show_many(store: Store, ids: Sequence[str]) -> dict[str, Belief]:
    """The named beliefs that exist, keyed by id."""
    return store.read(lambda tx: tx.get_beliefs(ids))


def what_if(store: Store, operation: str, belief_id: str) -> Change:
    """What `retract` or `assert` would change; nothing is written."""
    check_id(belief_id)
    if operation == "retract":
        return store.dry_run(lambda tx: retract_in(tx, belief_id, "what-if"))
    if operation == "assert":
        return store.dry_run(lambda tx: assert_in(tx, belief_id))
    raise InvalidInput(f"what-if takes 'retract' or 'assert', not {operation!r}",
                       field="operation", value=operation)


@dataclasses.dataclass(frozen=True)
class Mismatch:
    id: str
    stored: str
    computed: str


def verify(store: Store) -> list[Mismatch]:
    """Recompute every label from scratch and list where the graph disagrees."""

    with cyclic_gc_paused():  # 200k beliefs read and labelled: no cycles among them
        beliefs, raw_labels = store.read(lambda tx: tx.read_labelling())
        computed = labels_from_scratch(beliefs)
        return compare_labels(beliefs, raw_labels, computed) + compare_tags(beliefs, computed)


def compare_tags(beliefs: dict[str, Belief], computed: dict[str, Label]) -> list[Mismatch]:
    """Where the stored effective access tags differ from those the labels give
    (engine/access.py); nothing to do when no belief carries tags."""
    if not any(b.effective_tags or b.metadata for b in beliefs.values()):
        return []
    want = access.effective_tags(beliefs, {bid: label.truth for bid, label in computed.items()})
    return [Mismatch(bid, "tags " + ",".join(beliefs[bid].effective_tags),
                     "tags " + ",".join(sorted(want[bid])))
            for bid in sorted(beliefs) if set(beliefs[bid].effective_tags) != want[bid]]


@dataclasses.dataclass(frozen=True)
class Repair:
    repaired: list[Mismatch]  # what the graph held, and the from-scratch value now written
    change: Change  # what went IN and OUT, nogood retractions included


def repair(store: Store) -> Repair:
    """Recompute every label and depth from scratch and write the differences, in one write
    transaction (under the write lock, so no writer changes the graph meanwhile); then
    resolve the nogoods the repair made hold. For graphs edited by hand, written by another
    tool or left by an older version."""

    def work(tx: GraphTx) -> Repair:
        beliefs, raw_labels = tx.read_labelling()
        computed = labels_from_scratch(beliefs)
        problems = compare_labels(beliefs, raw_labels, computed)
        tag_problems = compare_tags(beliefs, computed)
        if not problems and not tag_problems:
            return Repair([], Change())
        # writing labels recomputes every effective tag too (the store's write_labels)
        tx.write_labels({p.id: computed[p.id] for p in problems})
        if not problems:
            return Repair(tag_problems, Change())
        was_in = {bid for bid in beliefs if "In" in raw_labels.get(bid, ())}
        fixed = [p.id for p in problems]
        change = Change(
            went_in=sorted(b for b in fixed if computed[b].truth == Truth.IN and b not in was_in),
            went_out=sorted(b for b in fixed if computed[b].truth != Truth.IN and b in was_in))
        return Repair(problems + tag_problems, enforce_nogoods(tx, change))

    return store.write(work, ChangeEntry("verify-repair"))


def compare_labels(beliefs: dict[str, Belief], raw_labels: dict[str, list[str]],
                   computed: dict[str, Label] | None = None) -> list[Mismatch]:
    computed = computed if computed is not None else compute_labels(beliefs)
    problems: list[Mismatch] = []
    for bid in sorted(beliefs):
        raw = raw_labels.get(bid, ())
        has_out = "Out" in raw
        if ("In" in raw) == has_out or ("Undetermined" in raw and not has_out):
            problems.append(Mismatch(bid, "labels " + ":".join(sorted(set(raw))),
                                     str(computed[bid].truth)))
            continue
        b = beliefs[bid]
        want = computed[bid]
        truth = b.truth or Truth.OUT
        if truth != want.truth:
            problems.append(Mismatch(bid, f"{truth}", f"{want.truth}"))
        elif b.depth != want.depth:
            problems.append(Mismatch(bid, f"depth {b.depth}", f"depth {want.depth}"))
    return problems


def _require(tx: GraphTx, ids: Iterable[str]) -> None:
    ids = list(ids)
    found = tx.existing_ids(ids)
    for i in ids:
        if i not in found:
            raise NotFound("belief", i)
