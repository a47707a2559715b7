"""The network's own verbs: init, reset, add, add-justification, retract, assert, nogood,
what-if (retract, assert), verify and repair, status. Each is one call, whatever face
makes it, and returns a record whose `as_dict()` is what every face shows as JSON."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine import tms
from engine.errors import InvalidInput
from engine.model import Change, Justification, Kind, Status
from engine.service.context import Context
from engine.tms import fragility
from engine.tms.access import TAGS_KEY, parse_tags
from engine.tms.fragility import Fragile, Restorations
from engine.tms.verify import Mismatch

if TYPE_CHECKING:
    from engine.service.sources import RootSet


def justifications(antecedents: Sequence[str] = (), *, unless: Sequence[str] = (),
                   kind: str = "SL", any_mode: bool = False, label: str = ""
                   ) -> tuple[Justification, ...]:
    """The justification(s) of a belief from its antecedents and outlist: ALL (one over
    every antecedent) or ANY (one per antecedent); none for a premise."""
    try:
        kind_value = Kind(kind.upper())
    except ValueError:
        raise InvalidInput(f"kind takes 'SL' or 'CP', not {kind!r}", field="kind",
                           value=kind) from None
    return tms.make_justifications(list(antecedents), unless=list(unless), kind=kind_value,
                                   any_mode=any_mode, label=label)


# --- init, reset -----------------------------------------------------------------------
@dataclass(frozen=True)
class Initialized:
    """The schema made (idempotent); the upgrades of what older versions wrote, by name
    (how many nodes each changed); the root when one was set."""

    upgraded: Mapping[str, int]
    root: RootSet | None = None  # when init was given a root

    def as_dict(self) -> dict[str, object]:
        return {"schema": True, "upgraded": {k: v for k, v in self.upgraded.items() if v},
                **({"root": self.root.as_dict()} if self.root is not None else {})}


def init(ctx: Context, root: str | None = None) -> Initialized:
    """Constraints and indexes, the upgrades of older versions, and `root` recorded as the
    folder source paths are relative to (checked before anything is written)."""
    from engine.service import sources

    if root is not None:
        sources.root_folder(ctx, root)
    upgraded = tms.init(ctx.store)
    return Initialized(upgraded, sources.set_root(ctx, root) if root is not None else None)


@dataclass(frozen=True)
class Emptied:
    """What `reset` did: the pending proposals it rejected (what they named is gone)."""

    rejected: tuple[str, ...]

    def as_dict(self) -> dict[str, object]:
        return {"emptied": True, "proposals_rejected": list(self.rejected)}


def reset(ctx: Context, *, yes: bool) -> Emptied:
    """Delete every belief, justification and nogood (the change log stays); `yes` confirms."""
    if not yes:
        raise InvalidInput("reset deletes every belief; confirm with --yes", field="yes")
    from engine.proposals import lifecycle

    return Emptied(tuple(lifecycle.reset(ctx.store)))


# --- writes ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Changed:
    """What a write did to the labels."""

    change: Change

    def as_dict(self) -> dict[str, object]:
        return {**self.change.as_dict()}


@dataclass(frozen=True)
class Added:
    """What `add` or `add-justification` did: the belief's id (NAME:ID in a namespace), what
    went IN and OUT, the justifications that hang on three or more antecedents, and the ids
    they name that are not added yet (forward references)."""

    id: str
    change: Change
    fragile: tuple[Fragile, ...] = ()
    not_added: tuple[str, ...] = ()

    @property
    def is_in(self) -> bool:
        return self.id in self.change.went_in

    def as_dict(self) -> dict[str, object]:
        return {**self.change.as_dict(),
                **({"fragile": [f.as_dict() for f in self.fragile]} if self.fragile else {}),
                **({"not_added": list(self.not_added)} if self.not_added else {})}


@dataclass(frozen=True)
class NewBelief:
    """`add`'s options: a premise without justifications; `source` (PATH[:A-B], relative to
    the memory's root) pins it to the lines of a file, `quote` to words of them;
    `namespace` puts it in an imported agent's namespace."""

    id: str
    text: str
    justifications: tuple[Justification, ...] = ()
    source: str = ""
    quote: str | None = None
    root: str | None = None
    source_url: str = ""
    access_tags: Sequence[str] | str = ()
    namespace: str | None = None


def _not_added(ctx: Context, belief_id: str, change: Change,
               given: Sequence[Justification]) -> tuple[str, ...]:
    if belief_id in change.went_in:
        return ()
    named = sorted({ref for j in given for ref in j.mentions()})
    return tuple(sorted(set(named) - set(tms.show_many(ctx.store, named))))


def add(ctx: Context, new: NewBelief) -> Added:
    """Add a belief; a premise unless it has justifications."""
    from engine.sources.pinning import add_sourced

    if new.quote is not None and not new.source:
        raise InvalidInput("--quote goes with --source PATH[:A-B]", field="quote")
    if new.root is not None and not new.source:
        raise InvalidInput("--root goes with --source PATH[:A-B]", field="root")
    tags = parse_tags(new.access_tags) if new.access_tags else ()
    metadata = {TAGS_KEY: list(tags)} if tags else None
    ident = new.id
    if new.namespace:
        if new.source:
            raise InvalidInput("--namespace and --source do not go together", field="namespace")
        from engine.agents.adding import add_in_namespace

        ident, change = add_in_namespace(ctx.store, new.namespace, new.id, new.text,
                                         new.justifications, source_url=new.source_url,
                                         metadata=metadata)
    elif new.source:
        from engine.service import sources

        claim, root = sources.pin(ctx, new.source, new.quote or "", new.root)
        change = add_sourced(ctx.store, ident, new.text, new.justifications, claim,
                             source_url=new.source_url, metadata=metadata, root=root)
    else:
        change = tms.add(ctx.store, ident, new.text, new.justifications,
                         source_url=new.source_url, metadata=metadata)
    return Added(ident, change, tuple(fragility.fragile(new.justifications)),
                 _not_added(ctx, ident, change, new.justifications))


def add_justification(ctx: Context, belief_id: str,
                      given: Sequence[Justification]) -> Added:
    """Give an existing belief another justification (a premise becomes derived)."""
    change = tms.add_justification(ctx.store, belief_id, given)
    return Added(belief_id, change, tuple(fragility.fragile(given)))


@dataclass(frozen=True)
class Retracted:
    """What `retract` did, and for each derived belief it took OUT what each of its
    justifications lacks now (the first ones of a large cascade; `restorations.unexamined`
    says how many more)."""

    change: Change
    restorations: Restorations

    def as_dict(self) -> dict[str, object]:
        unexamined = self.restorations.unexamined
        return {**self.change.as_dict(),
                "restore": [r.as_dict() for r in self.restorations.found],
                **({"restore_unexamined": unexamined} if unexamined else {})}


def retract(ctx: Context, belief_id: str, reason: str = "") -> Retracted:
    """Pin a belief OUT until it is asserted; what rests on it follows."""
    return Retracted(*tms.retract_with_restorations(ctx.store, belief_id, reason))


def assert_belief(ctx: Context, belief_id: str) -> Changed:
    """Undo a retraction; a derived belief with no valid support holds as a fact."""
    return Changed(tms.assert_belief(ctx.store, belief_id))


@dataclass(frozen=True)
class NogoodAdded:
    id: str
    members: tuple[str, ...]
    change: Change

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, **self.change.as_dict()}


def nogood(ctx: Context, members: Sequence[str], name: str | None = None) -> NogoodAdded:
    """Record that these beliefs must not all be IN; the least entrenched assumption they
    rest on is retracted while they are."""
    ident, change = tms.add_nogood_with_id(ctx.store, members, name or None)
    return NogoodAdded(ident, tuple(dict.fromkeys(members)), change)


# --- what-if, verify, status ------------------------------------------------------------------
WHAT_IF_OPERATIONS = ("retract", "assert")


@dataclass(frozen=True)
class WouldChange:
    """What an operation would change; nothing was written."""

    operation: str
    id: str
    change: Change

    def as_dict(self) -> dict[str, object]:
        return {**self.change.as_dict()}


def what_if(ctx: Context, operation: str, belief_id: str) -> WouldChange:
    """What retracting or asserting a belief would change (a transaction rolled back)."""
    return WouldChange(operation, belief_id, tms.what_if(ctx.store, operation, belief_id))


@dataclass(frozen=True)
class Verified:
    """Every label and depth recomputed from scratch: what differs, and what is
    undetermined (loops through outlists)."""

    problems: tuple[Mismatch, ...]
    beliefs: int
    undetermined: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems

    def as_dict(self) -> dict[str, object]:
        return {"ok": self.ok, "mismatches": [p.__dict__ for p in self.problems],
                "undetermined": list(self.undetermined)}


def verify(ctx: Context) -> Verified:
    problems = tms.verify(ctx.store)
    s = tms.status(ctx.store)
    return Verified(tuple(problems), s.beliefs, tuple(s.undetermined_ids))


@dataclass(frozen=True)
class Repaired:
    """What `verify --repair` wrote: each belief's stored value and the from-scratch one."""

    repaired: tuple[Mismatch, ...]
    change: Change

    def as_dict(self) -> dict[str, object]:
        return {"repaired": [p.__dict__ for p in self.repaired], **self.change.as_dict(),
                "retracted_by_nogood": self.change.retracted_by_nogood}


def repair(ctx: Context) -> Repaired:
    """Write the from-scratch labels and depths where the graph differs (one transaction)."""
    done = tms.repair(ctx.store)
    return Repaired(tuple(done.repaired), done.change)


@dataclass(frozen=True)
class Counted:
    """The network's counts."""

    status: Status

    def as_dict(self) -> dict[str, object]:
        return {**self.status.as_dict(), "undetermined_ids": list(self.status.undetermined_ids)}


def status(ctx: Context, as_of: str | None = None) -> Counted:
    """Counts of beliefs by label and kind, nogoods, max depth (as of a point when given)."""
    return Counted(tms.status(ctx.seen_as_of(as_of)))
