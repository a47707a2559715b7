"""What a stage is: the five parts that are its own. Everything else (the model call with its
timeout, retries and the one format retry; the run loop; the report; provenance; accept) is
the shared machinery in engine/stages/ and works the same for every stage.

A round, as engine/stages/rounds.py runs it:

    shown   = stage.read_round(store, n)             what the round shows: prompt, contract
    (shown.empty: nothing to do; the model is not called; outcome `empty`)
    parsed  = stage.parse(reply, shown)              items + diagnostics (never raises)
    (parsed.needs_retry: one more call, quoting stage.retry_message(parsed, shown); then
     parsed = stage.combine(first, second))
    checked = stage.check(tx, parsed.items, shown)   validation, each skip with its reason
    applied = stage.apply(tx, checked, shown, round) one write transaction, with `check` run
                                                     again inside it, under the write lock

`check` runs in a read transaction when the round only proposes (no `--auto`): the valid
items go to a proposals file (`stage.render_file`) that `accept` reads back with
`stage.parse` and applies like a round. With `--auto`, `check` and `apply` run in ONE write
transaction, so what was validated is what is written.
"""
from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from engine.model import Change
from engine.stages.contract import RoundContract
from engine.stages.provenance import ProvenanceTx, RoundRecord, RunRecord
from engine.stages.turns import Turns
from engine.store import Store

ItemT = TypeVar("ItemT")
ItemT_co = TypeVar("ItemT_co", covariant=True)


@dataclass(frozen=True)
class Prompt:
    """What a round sends the model, and its sha256 (the Round node keeps the hash)."""

    text: str
    sha256: str

    @classmethod
    def of(cls, text: str) -> Prompt:
        """`text` with the sha256 of its UTF-8 bytes."""
        return cls(text, hashlib.sha256(text.encode("utf-8")).hexdigest())


@dataclass(frozen=True)
class RoundInput:
    """What one round shows the model, and what its reply may cite."""

    prompt: Prompt
    contract: RoundContract
    shown: tuple[str, ...] = ()  # the ids the round is about (sample, beliefs due, clusters)
    empty: bool = False  # nothing to do this round: the model is not called
    details: Mapping[str, object] = field(default_factory=dict)  # the stage's own, for the
    # report and the Round node (scalars only there): strategy, cluster, network counts...
    context: object = None  # what the stage keeps for parse, check and apply of the round
    # a stage that takes turns (TakesTurns): how many of `shown` the run shows for the first
    # time; a dry round with none counts towards --exhaust's stop (engine/stages/turns.py)
    first_shown: int | None = None


@dataclass(frozen=True)
class Diagnostic:
    """Something wrong with a reply: what, and where (1-based line) when known."""

    reason: str
    line: int = 0  # 0: about the reply as a whole

    def as_dict(self) -> dict[str, object]:
        return {"line": self.line, "reason": self.reason}


class ParsedReply(Protocol[ItemT_co]):
    """What the machinery needs of a parse: the items, whether the one retry is due, and a
    form for the report. `Parsed` below is the ready-made one."""

    @property
    def items(self) -> Sequence[ItemT_co]: ...

    @property
    def needs_retry(self) -> bool: ...

    @property
    def diagnostics(self) -> Sequence[Diagnostic]: ...  # each with .line and .reason

    def as_dict(self) -> dict[str, object]: ...


@dataclass
class Parsed(Generic[ItemT]):
    """What a stage's parser read from one reply."""

    items: list[ItemT] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    nothing_to_say: bool = False  # an explicit "nothing" (NO PROPOSALS, an empty list)
    needs_retry: bool = False  # a format failure, or parts of the answer missing

    def as_dict(self) -> dict[str, object]:
        return {"items": len(self.items), "nothing_to_say": self.nothing_to_say,
                "needs_retry": self.needs_retry,
                "diagnostics": [d.as_dict() for d in self.diagnostics]}


@dataclass(frozen=True)
class Skip:
    """An item that failed validation: its key (a belief id, `id#2`, a cluster number), why,
    and the reply line where it was, when known."""

    id: str
    reason: str
    line: int = 0  # 0: not from a reply line

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, "reason": self.reason, "line": self.line}


@dataclass
class Checked(Generic[ItemT]):
    valid: list[ItemT] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)

    @classmethod
    def by_fault(cls, items: Iterable[ItemT], fault: Callable[[ItemT], str],
                 key: Callable[[ItemT], str]) -> Checked[ItemT]:
        """Items sorted by `fault`: valid where it says nothing, else skipped (by `key`)."""
        checked: Checked[ItemT] = cls()
        for item in items:
            reason = fault(item)
            if reason:
                checked.skipped.append(Skip(key(item), reason))
            else:
                checked.valid.append(item)
        return checked


class Action(StrEnum):
    """What a round's write did with one item."""

    ADDED = "added"  # a new belief (derive, forge); reports leave this action implicit
    MERGED = "merged"  # dedup: a duplicate merged into the belief kept
    NOGOOD = "nogood"  # a contradiction recorded as a nogood
    DIFFERENT = "different"  # dedup: a cluster judged to hold no duplicates
    COMPATIBLE = "compatible"  # contradictions: a pair judged compatible
    DEFEATED = "defeated"  # review: a defeater put in the justification's outlist
    VALID = "valid"  # review: the justification holds as it is
    SUGGESTION_RECORDED = "suggestion recorded"  # review
    SUGGESTION_APPLIED = "suggestion applied"  # review
    CONFIRMED = "confirmed"  # review --premises: the source states the claim; re-pinned
    RETRACTED = "retracted"  # review --premises: a misread premise retracted
    CITED = "cited"  # ask: a belief the answer cites (nothing written to it)
    LINKED = "linked"  # repair: a new justification with the bridges named
    SOFTENED = "softened"  # repair: the belief reworded to a narrower claim
    ABANDONED = "abandoned"  # repair: left defeated, not shown again
    RESEARCH = "research recorded"  # repair: the missing premise recorded as a gap
    NEGATIVE = "negative"  # negatives: the belief states a problem (its kind)
    NOT_NEGATIVE = "not negative"  # negatives: it states none


@dataclass(frozen=True, eq=False)
class AppliedEntry(Mapping[str, object]):
    """One applied item, for the report. Read as a mapping it is the report's JSON object:
    `id`, `action` (left out for ADDED), the stage's own fields, and `truth_value` when
    the belief's label is the point."""

    id: str
    action: Action = Action.ADDED
    truth_value: str | None = None
    fields: Mapping[str, object] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"id": self.id}
        if self.action is not Action.ADDED:
            out["action"] = self.action.value
        out.update(self.fields)
        if self.truth_value is not None:
            out["truth_value"] = self.truth_value
        return out

    def __getitem__(self, key: str) -> Any:
        return self.as_dict()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.as_dict())

    def __len__(self) -> int:
        return len(self.as_dict())


@dataclass
class Applied:
    """What a round's write did: one entry per applied item for the report, and the labels
    that changed (propagation and nogoods included)."""

    checked: Checked
    entries: list[AppliedEntry] = field(default_factory=list)
    change: Change = field(default_factory=Change)


ParseT = TypeVar("ParseT", bound="ParsedReply[object]")
TxT = TypeVar("TxT")
TxT_contra = TypeVar("TxT_contra", contravariant=True)
# The transaction a run hands its stage: the stage's parts, and the run's provenance.
RunTxT = TypeVar("RunTxT", bound=ProvenanceTx)


class Stage(Protocol[ItemT, ParseT, TxT_contra]):
    """A stage's own parts. `ParseT` is its parse (a `Parsed`, or its own type with the
    members of ParsedReply), which its retry message and combine take back; `TxT_contra`
    the store parts its rounds read and its `check` and `apply` read and write (a part, or a
    Protocol intersection of parts, of engine/graph.py's GraphTx), so mypy holds the stage
    to them."""

    name: str  # "derive", "review", "dedup", "contradictions", "forge"

    def read_round(self, store: Store[TxT_contra], n: int) -> RoundInput:
        """Round `n`'s (1-based) view, read fresh from the store."""

    def parse(self, reply: str, shown: RoundInput | None) -> ParseT:
        """The items of a reply (or of a proposals file, with `shown` None); never raises."""

    def retry_message(self, parsed: ParseT, shown: RoundInput) -> str:
        """The message of the one retry: what was wrong, and the format again."""

    def combine(self, first: ParseT, second: ParseT) -> ParseT:
        """The round's parse after the retry (e.g. the second, or both merged)."""

    def check(self, tx: TxT_contra, items: Sequence[ItemT], shown: RoundInput | None
              ) -> Checked[ItemT]:
        """Validate against the graph as it is now; reads only."""

    def apply(self, tx: TxT_contra, items: Sequence[ItemT], shown: RoundInput | None,
              run: RunRecord, record: RoundRecord) -> Applied:
        """Inside the round's write transaction: check again, write the valid items and
        their provenance (the Run and Round nodes are written by the machinery)."""

    def item_dict(self, item: ItemT) -> dict[str, object]:
        """An item as the report shows it."""

    def item_key(self, item: ItemT) -> str:
        """What names an item across validation (a belief id, `id#2`, `cluster 3`): the
        report flags a proposal valid when a valid item has its key. Validation may return
        a changed copy of an item, so identity does not do."""

    def render_file(self, items: Sequence[ItemT], run: RunRecord, command: str) -> str:
        """The proposals file of a run without --auto; `stage.parse` reads it back.
        `command` is the accept command line to print in it."""


# A stage as the machinery runs it, its rounds read and written through transactions `TxT`
# (the run's store's, which have every part the stage declares).
LoopStage = Stage[Any, Any, TxT]


@runtime_checkable
class ReadsAroundInFlight(Protocol[TxT_contra]):
    """A stage whose rounds may run in parallel (`--parallel`, engine/stages/parallel.py)
    reads a round leaving out what rounds still in flight hold: `busy` is the union of their
    `shown` ids (not yet applied). What it leaves out is not marked as shown: a later round
    takes it if it is still due once those rounds are applied, as a sequential run would.

    A stage without this method (derive: each round must see the last) runs one round at a
    time whatever --parallel says."""

    def read_round_besides(self, store: Store[TxT_contra], n: int, busy: frozenset[str]
                           ) -> RoundInput:
        """Round `n`'s view, as `read_round`, without the ids in `busy`."""


@runtime_checkable
class TakesTurns(Protocol):
    """A stage that judges one item at a time (review, premise review, repair) orders what
    is due by its `turns` (engine/stages/turns.py), so that what the model passes over waits
    behind the rest. The run clears the turns when it starts and, as each round is closed
    (in round order, --parallel too), tells the stage what the round showed and which of
    its items were valid."""

    turns: Turns

    def round_closed(self, shown: RoundInput, valid: Sequence[Any]) -> None:
        """Round `shown` is closed with `valid` items: record who had a turn."""


class ReadsAround(ABC, Generic[TxT]):
    """`read_round` of a stage that reads around the rounds in flight (ReadsAroundInFlight),
    its rounds read through transactions `TxT`: the round read with none in flight."""

    def read_round(self, store: Store[TxT], n: int) -> RoundInput:
        return self.read_round_besides(store, n, frozenset())

    @abstractmethod
    def read_round_besides(self, store: Store[TxT], n: int, busy: frozenset[str]
                           ) -> RoundInput:
        """Round `n`'s view without the ids in `busy` (shown by rounds in flight)."""


class KeyedItem(Protocol):
    @property
    def key(self) -> str: ...

    def as_dict(self) -> dict[str, object]: ...


class KeyedItems:
    """`item_dict` and `item_key` for a stage whose items say them (`as_dict()`, `key`)."""

    def item_dict(self, item: KeyedItem) -> dict[str, object]:
        return item.as_dict()

    def item_key(self, item: KeyedItem) -> str:
        return item.key
