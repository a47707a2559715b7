"""Truth-maintenance operations: the library API behind `python -m engine ...`.

Every mutating operation runs inside one `store.write` transaction: the change, the
propagation it causes, and the nogood retractions that follow commit together or not at all
(the in-transaction work is engine/tms/kernel.py). Input is checked before anything is
written; a problem raises InvalidInput / NotFound.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from engine.change_records import ChangeEntry
from engine.errors import InvalidInput, NotAddedYet, NotFound
from engine.model import Belief, Change, Justification, Nogood, Status, check_id, check_text
from engine.tms import nogoods as nogood_rules
from engine.tms.fragility import Restorations, restorations_in
from engine.tms.kernel import (
    add_beliefs_in,
    add_justification_in,
    assert_in,
    check_justifications,
    check_new_justifications,
    justification_args,
    now,
    require_ids,
    retract_in,
)
from engine.tms.records import BeliefFilter, ResolutionTx, TmsStore


def new_belief(belief_id: str, text: str, justifications: Sequence[Justification] = (), *,
               source: str = "", source_url: str = "", source_hash: str = "",
               metadata: Mapping[str, object] | None = None) -> Belief:
    """A belief as `add` creates it, checked (ids, text, no justification naming itself),
    stamped now."""
    check_id(belief_id)
    check_text(text, ident=belief_id)
    check_justifications(belief_id, justifications)
    stamp = now()
    return Belief(id=belief_id, text=text, justifications=tuple(justifications), source=source,
                  source_url=source_url, source_hash=source_hash,
                  metadata=MappingProxyType(dict(metadata or {})), created_at=stamp,
                  updated_at=stamp)


def add(
    store: TmsStore,
    belief_id: str,
    text: str,
    justifications: Sequence[Justification] = (),
    *,
    source: str = "",
    source_url: str = "",
    metadata: Mapping[str, object] | None = None,
) -> Change:
    """Add a belief (a premise when it has no justifications). A belief pinned to the lines
    of a source file is added by engine/sources/pinning.add_sourced."""
    belief = new_belief(belief_id, text, justifications, source=source, source_url=source_url,
                        metadata=metadata)
    return store.write(lambda tx: add_beliefs_in(tx, [belief]),
                       ChangeEntry("add", {"id": belief_id}))


def add_justification(store: TmsStore, belief_id: str,
                      justifications: Sequence[Justification]) -> Change:
    """Give an existing belief more justifications (a premise becomes derived)."""
    check_id(belief_id)
    check_new_justifications(belief_id, justifications)
    return store.write(lambda tx: add_justification_in(tx, belief_id, justifications),
                       ChangeEntry("add-justification", {
                           "id": belief_id,
                           "justifications": [justification_args(j) for j in justifications]}))


def retract(store: TmsStore, belief_id: str, reason: str = "") -> Change:
    """Pin a belief OUT (premise or derived) until it is asserted again."""
    check_id(belief_id)
    return store.write(lambda tx: retract_in(tx, belief_id, reason),
                       ChangeEntry("retract", {"id": belief_id}, reason))


def retract_with_restorations(store: TmsStore, belief_id: str, reason: str = ""
                              ) -> tuple[Change, Restorations]:
    """`retract`, and for each derived belief it took OUT, what each justification lacks
    now (engine/tms/fragility.py), read in the same transaction."""
    check_id(belief_id)

    def work(tx: ResolutionTx) -> tuple[Change, Restorations]:
        change = retract_in(tx, belief_id, reason)
        return change, restorations_in(tx, change.went_out, belief_id)

    return store.write(work, ChangeEntry("retract", {"id": belief_id}, reason))


def assert_belief(store: TmsStore, belief_id: str) -> Change:
    """Un-pin a retracted belief; a derived belief that still has no valid support then
    holds as a user-asserted fact until it is retracted."""
    check_id(belief_id)
    return store.write(lambda tx: assert_in(tx, belief_id),
                       ChangeEntry("assert", {"id": belief_id}))


def add_nogood(store: TmsStore, member_ids: Sequence[str], nogood_id: str | None = None) -> Change:
    """Record that these beliefs must not all be IN; enforce it now and on later changes."""
    return add_nogood_with_id(store, member_ids, nogood_id)[1]


def add_nogood_with_id(store: TmsStore, member_ids: Sequence[str], nogood_id: str | None = None
                       ) -> tuple[str, Change]:
    """add_nogood, and the id the nogood got: `nogood_id`, else `default_nogood_id`'s."""
    members = tuple(dict.fromkeys(member_ids))
    if len(members) < 2:
        raise InvalidInput("a nogood needs at least two distinct belief ids", field="members")
    for m in members:
        check_id(m)
    if nogood_id is not None:
        check_id(nogood_id, what="nogood id")
    # the default id is chosen by a read; a writer taking it meanwhile makes this one refuse
    ident = nogood_id or store.read(
        lambda tx: default_nogood_id(members, {n.id for n in tx.nogoods()}))

    def work(tx: ResolutionTx) -> Change:
        require_ids(tx, members)
        if any(n.id == ident for n in tx.nogoods()):
            raise InvalidInput(f"nogood '{ident}' already exists", field="id", value=ident)
        tx.create_nogood(Nogood(ident, members, discovered=now()))
        return nogood_rules.resolve(tx, [Nogood(ident, members)], Change(), at=now())

    return ident, store.write(work, ChangeEntry("nogood", {"id": ident,
                                                           "members": list(members)}))


NOGOOD_ID_ROOM = 190  # of the 200 an id may have, the rest left for a `-N` of a repeat


def default_nogood_id(members: Sequence[str], taken: set[str]) -> str:
    """`nogood-` and the sorted members joined by `-`, as ftl-reasons names nogoods (their
    files refer to nogoods by these ids); `-2`, `-3`, ... for a repeat. Cut to fit an id."""
    base = ("nogood-" + "-".join(sorted(members)))[:NOGOOD_ID_ROOM].rstrip("-.:")
    if base not in taken:
        return base
    return next(f"{base}-{n}" for n in range(2, len(taken) + 3) if f"{base}-{n}" not in taken)


def init(store: TmsStore) -> dict[str, int]:
    """Constraints and indexes, and the upgrades of what older versions wrote: how many
    nodes each upgrade changed."""
    return store.init_schema()


def reset(store: TmsStore) -> None:
    store.write(lambda tx: tx.reset(), ChangeEntry("reset", empties=True))


# --- reads ---------------------------------------------------------------------------
def status(store: TmsStore) -> Status:
    return store.read(lambda tx: tx.status())


def list_beliefs(store: TmsStore, which: BeliefFilter = BeliefFilter()) -> list[Belief]:
    return store.read(lambda tx: tx.list_beliefs(which))


def show(store: TmsStore, belief_id: str) -> tuple[Belief, list[str]]:
    """A belief with its justifications, and the ids of its direct dependents."""
    check_id(belief_id)
    return store.read(lambda tx: shown_in(tx, belief_id))


def shown_in(tx: ResolutionTx, belief_id: str) -> tuple[Belief, list[str]]:
    """show inside a read the caller holds."""
    shown = tx.shown_belief(belief_id)
    if shown is None:
        named = tx.forward_reference(belief_id)
        if named is not None:
            raise NotAddedYet(belief_id, *named)
        raise NotFound("belief", belief_id)
    belief, dependents = shown
    return belief, sorted(dependents)


def supersede_links(store: TmsStore, belief_id: str) -> tuple[list[str], list[str]]:
    """(what supersedes the belief, what it supersedes)."""
    return store.read(lambda tx: tx.supersede_links(belief_id))


def show_many(store: TmsStore, ids: Sequence[str]) -> dict[str, Belief]:
    """The named beliefs that exist, keyed by id."""
    return store.read(lambda tx: tx.get_beliefs(ids))


def what_if(store: TmsStore, operation: str, belief_id: str) -> Change:
    """What `retract` or `assert` would change; nothing is written."""
    check_id(belief_id)
    if operation == "retract":
        return store.dry_run(lambda tx: retract_in(tx, belief_id, "what-if"))
    if operation == "assert":
        return store.dry_run(lambda tx: assert_in(tx, belief_id))
    raise InvalidInput(f"what-if takes 'retract' or 'assert', not {operation!r}",
                       field="operation", value=operation)

