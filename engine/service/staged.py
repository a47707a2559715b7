"""A stage's proposals file decided item by item, as a person does at the review desk: the
validation's verdict on each item now, what accepting some would change, accept (some
items, perhaps edited), reject (with a reason), and which items were decided already, here
or by `<stage> accept FILE`.

The file itself is read by the face (a `StagedSource`: its stage, the run that proposed it,
its items, and the file's text without some of them); these verbs do the writes. Accepting
is the write `<stage> accept FILE` makes (engine/stages/accept.py): one transaction, a run
of one round, strategy `accept`, logged under the stage's name, but by the context's actor
and over the chosen items only (the run's params and the entry name them). Rejecting is a
logged write of its own (op `proposal-reject`, as for an agent's proposal). After either,
the decided items are taken out of the file, as a person editing it would, so a later
`accept FILE` applies only what is left.
"""
from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from engine.change_records import ChangeEntry, LogEntry, LogQuery
from engine.errors import InvalidInput
from engine.model import Change
from engine.service.context import Context
from engine.stages.provenance import RoundRecord, RunRecord
from engine.stages.rounds import apply_round, round_entry
from engine.stages.run import iso_utc, new_run_id, utc_now
from engine.stages.stage import Applied, LoopStage
from engine.graph import GraphTx

REJECT_OP = "proposal-reject"  # the op an agent's proposal's reject logs too
DECISIONS_LOOKED_AT = 500  # the newest entries of each op read for a file's decisions


class StagedSource(Protocol):
    """A stage's proposals file as the face read it."""

    @property
    def path(self) -> Path:
        """Where the file is (absolute)."""

    @property
    def stage(self) -> LoopStage[GraphTx]:
        """The stage whose parser read it and whose check and apply decide its items."""

    @property
    def run(self) -> RunRecord:
        """The run that proposed the file's items (from the note it starts with)."""

    @property
    def items(self) -> Sequence[object]:
        """The items it holds, as the stage's parser read them."""

    def text_without(self, keys: Sequence[str]) -> str | None:
        """The file's text as it is now with the items of `keys` left out (None: the file is
        gone or holds another run's proposals now)."""


def _keys(source: StagedSource) -> list[str]:
    return [source.stage.item_key(i) for i in source.items]


def _chosen(source: StagedSource, keys: Sequence[str], edited: Mapping[str, object] | None
            ) -> list[tuple[str, object]]:
    """(key in the file, item) for the items of `keys`, in the file's order, each item
    replaced by its edit when given (an edit may change the item's own key)."""
    if not keys:
        raise InvalidInput("choose at least one item", field="items")
    by_key = dict(zip(_keys(source), source.items))
    unknown = [k for k in keys if k not in by_key]
    if unknown:
        raise InvalidInput(f"{source.path.name} holds no item {', '.join(map(repr, unknown))} "
                           "(decided meanwhile, or the file changed)", field="items",
                           value=unknown[0])
    edits = dict(edited or {})
    return [(k, edits.get(k, item)) for k, item in by_key.items() if k in set(keys)]


def _decided(stage: LoopStage[GraphTx], chosen: Sequence[tuple[str, object]],
             valid: Sequence[object]
             ) -> list[str]:
    """The keys in the file of the chosen items the stage found valid."""
    valid_keys = {stage.item_key(v) for v in valid}
    return [k for k, item in chosen if stage.item_key(item) in valid_keys]


def _run_and_round(ctx: Context, source: StagedSource, keys: Sequence[str], items: Sequence[object],
                   edited: Sequence[str]) -> tuple[RunRecord, RoundRecord]:
    started = utc_now()
    text = source.stage.render_file(items, source.run, "")
    run = RunRecord(id=new_run_id(started), model=source.run.model,
                    started_at=iso_utc(started), stage=source.stage.name,
                    params={"accept": str(source.path), "proposed_by_run": source.run.id,
                            "items": list(keys), **({"edited": list(edited)} if edited else {}),
                            "decided_by": ctx.actor})
    record = RoundRecord(run_id=run.id, round=1, strategy="accept", stage=source.stage.name,
                         prompt_sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
                         at=run.started_at)
    return run, record


# --- reading -------------------------------------------------------------------------------
@dataclass(frozen=True)
class StagedChecks:
    """The stage's validation of each item against the memory as it is now: the keys of
    the valid ones, and why each other one would be skipped."""

    valid: frozenset[str]
    skipped: Mapping[str, str]

    def as_dict(self) -> dict[str, object]:
        return {"valid": sorted(self.valid), "skipped": dict(sorted(self.skipped.items()))}


def check(ctx: Context, source: StagedSource) -> StagedChecks:
    """The stage's own check of every item (a read)."""
    stage = source.stage
    checked = ctx.store.read(lambda tx: stage.check(tx, list(source.items), None))
    skipped: dict[str, str] = {}
    for s in checked.skipped:
        skipped[s.id] = f"{skipped[s.id]}; {s.reason}" if s.id in skipped else s.reason
    return StagedChecks(frozenset(stage.item_key(v) for v in checked.valid), skipped)


@dataclass(frozen=True)
class StagedWouldChange:
    """What accepting the items would change (nothing was written): what each would write
    (the stage's report entries: a belief added and its label, a verdict kept...), the
    labels that would change, and the items the stage's check would skip, with why."""

    keys: tuple[str, ...]
    change: Change
    skipped: Mapping[str, str]
    entries: tuple[Mapping[str, object], ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {"items": list(self.keys), **self.change.as_dict(),
                "skipped": dict(self.skipped), "entries": [dict(e) for e in self.entries]}


def what_if(ctx: Context, source: StagedSource, keys: Sequence[str],
            edited: Mapping[str, object] | None = None) -> StagedWouldChange:
    """Accepting `keys` run in a transaction that is rolled back."""
    items = [item for _, item in _chosen(source, keys, edited)]
    run, record = _run_and_round(ctx, source, keys, items, list(edited or ()))
    applied: Applied = ctx.store.dry_run(
        lambda tx: apply_round(tx, source.stage, items, None, run, record))
    return StagedWouldChange(tuple(keys), applied.change,
                             {s.id: s.reason for s in applied.checked.skipped},
                             tuple(e.as_dict() for e in applied.entries))


# --- deciding ------------------------------------------------------------------------------
@dataclass(frozen=True)
class StagedAccepted:
    """What an accept wrote: the run recorded, its change-log entry, the items applied and
    those the stage's check skipped (with why, left in the file), the labels that changed,
    and whether the file was rewritten without the applied items."""

    run_id: str
    seq: int
    applied: tuple[str, ...]
    skipped: Mapping[str, str]
    change: Change
    file_rewritten: bool

    def as_dict(self) -> dict[str, object]:
        return {"run": self.run_id, "change_seq": self.seq, "applied": list(self.applied),
                "skipped": dict(self.skipped), "file_rewritten": self.file_rewritten,
                **self.change.as_dict()}


def accept(ctx: Context, source: StagedSource, keys: Sequence[str],
           edited: Mapping[str, object] | None = None) -> StagedAccepted:
    """Apply the items of `keys` (an edited item in place of the file's) in ONE write
    transaction with the stage's check run again inside it; refused, nothing written, when
    the check leaves none to apply."""
    chosen = _chosen(source, keys, edited)
    items = [item for _, item in chosen]
    stage = source.stage
    run, record = _run_and_round(ctx, source, keys, items, list(edited or ()))

    def work(tx: GraphTx) -> tuple[Applied, int]:
        applied = apply_round(tx, stage, items, None, run, record)
        if not applied.checked.valid:
            why = "; ".join(f"{s.id}: {s.reason}" for s in applied.checked.skipped)
            raise InvalidInput(f"nothing to accept: {why or 'no item is valid now'}",
                               field="items")
        return applied, tx.this_change_seq()

    entry = round_entry(stage, run, record, accept=str(source.path),
                        proposed_by_run=source.run.id, items=list(keys))
    applied, seq = ctx.store.write(work, dataclasses.replace(entry, actor=ctx.actor or run.id))
    done = _decided(stage, chosen, applied.checked.valid)
    return StagedAccepted(run.id, seq, tuple(done),
                          {s.id: s.reason for s in applied.checked.skipped}, applied.change,
                          _rewrite(ctx, source, done))


@dataclass(frozen=True)
class StagedRejected:
    seq: int
    rejected: tuple[str, ...]
    reason: str
    file_rewritten: bool

    def as_dict(self) -> dict[str, object]:
        return {"change_seq": self.seq, "rejected": list(self.rejected), "reason": self.reason,
                "file_rewritten": self.file_rewritten}


def reject(ctx: Context, source: StagedSource, keys: Sequence[str], reason: str
           ) -> StagedRejected:
    """Record that the items of `keys` are not to be applied, and why (a logged write that
    changes no belief), then take them out of the file."""
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidInput("reject needs a reason: why", field="reason")
    _chosen(source, keys, None)
    entry = ChangeEntry(REJECT_OP, {"stage": source.stage.name, "file": str(source.path),
                                    "proposed_by_run": source.run.id, "items": list(keys)},
                        reason.strip())
    seq = ctx.store.write(lambda tx: tx.this_change_seq(), entry)
    return StagedRejected(seq, tuple(keys), reason.strip(), _rewrite(ctx, source, keys))


def _rewrite(ctx: Context, source: StagedSource, decided: Sequence[str]) -> bool:
    from engine.files import write_text_atomically

    if not decided:
        return False
    text = source.text_without(decided)
    if text is None:
        return False
    write_text_atomically(source.path, text, umask=ctx.umask)
    return True


# --- what was decided ---------------------------------------------------------------------
@dataclass(frozen=True)
class StagedDecision:
    """An item decided already: accepted or rejected, by whom, in which change-log entry,
    and why (a rejection's reason)."""

    key: str
    status: str  # accepted | rejected
    by: str
    seq: int
    at: str
    reason: str = ""
    whole_file: bool = False  # by `<stage> accept FILE`, of every item the file held

    def as_dict(self) -> dict[str, object]:
        return dataclasses.asdict(self)


def decisions(ctx: Context, source: StagedSource) -> dict[str, StagedDecision]:
    """The items of the file decided already, by key: by an accept of this run's proposals
    (here, of the items it names; `<stage> accept FILE`, of every item the file holds) or a
    rejection, among the newest entries of the log."""
    stage_name = source.stage.name
    proposed_by = source.run.id
    keys = _keys(source)

    def read(tx: GraphTx) -> tuple[list[LogEntry], list[LogEntry], dict[str, RunRecord]]:
        accepts = tx.change_entries(LogQuery(op=stage_name, limit=DECISIONS_LOOKED_AT))
        rejects = tx.change_entries(LogQuery(op=REJECT_OP, limit=DECISIONS_LOOKED_AT))
        runs = {r.id: r for r in tx.recent_stage_runs(DECISIONS_LOOKED_AT)}
        return accepts, rejects, runs

    accepts, rejects, runs = ctx.store.read(read)
    found: dict[str, StagedDecision] = {}
    for e in sorted(accepts, key=lambda e: e.seq):
        run = runs.get(str(e.args.get("run", "")))
        if run is None or run.params.get("proposed_by_run") != proposed_by:
            continue
        named = run.params.get("items")
        whole = not isinstance(named, list)
        for k in (keys if not isinstance(named, list) else named):
            found.setdefault(str(k), StagedDecision(str(k), "accepted", e.actor, e.seq, e.at,
                                                    whole_file=whole))
    for e in sorted(rejects, key=lambda e: e.seq):
        if e.args.get("proposed_by_run") != proposed_by or e.args.get("stage") != stage_name:
            continue
        for k in e.args.get("items") or ():
            found.setdefault(str(k), StagedDecision(str(k), "rejected", e.actor, e.seq, e.at,
                                                    e.reason))
    return found
