"""What dedup and contradictions share as stages: a round shows numbered groups of beliefs
(dedup's clusters, contradictions' pairs) not yet shown in this run and takes one verdict per
group. `GroupStage` makes of a kind's `GroupReply` (engine/pairs/prompt.py) the round's view,
its contract, the parse, the retry message and the combine, and checks and applies verdicts
round the stage's own `fault` and `write`. Each stage keeps which groups are due, why a
verdict cannot be applied, what applying one writes, and its proposals file."""
from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Iterable, Sequence
from typing import Generic, Protocol, Self, TypeVar

from engine.model import Change
from engine.pairs.prompt import GroupReply, ItemT, ShownGroup, ShownT
from engine.stages.contract import JsonReply, RoundContract
from engine.stages.echo import ECHO_REASON
from engine.stages.provenance import RoundRecord, RunRecord
from engine.stages.stage import (
    Applied,
    AppliedEntry,
    Checked,
    KeyedItems,
    Parsed,
    Prompt,
    ReadsAround,
    RoundInput,
)
from engine.store import Store
from engine.tms.records import TmsTx
from engine.tms import now


class GroupOptions(Protocol):
    """What the shared round reads of a stage's options."""

    @property
    def domain(self) -> str: ...

    @property
    def batch(self) -> int: ...  # groups per round

    def check(self) -> Self: ...  # the options themselves, once valid; else InvalidInput


OptionsT = TypeVar("OptionsT", bound=GroupOptions)
SourceT = TypeVar("SourceT")
TxT = TypeVar("TxT", bound=TmsTx)  # the store parts a stage reads and writes
G = TypeVar("G")


def member_ids(groups: Sequence[ShownGroup]) -> list[str]:
    """Every belief the groups show, sorted."""
    return sorted({i for g in groups for i in g.members})


class GroupStage(KeyedItems, ReadsAround[TxT], Generic[OptionsT, SourceT, ShownT, ItemT, TxT]):
    """The Stage protocol for a stage on groups of beliefs, given its options and its
    candidate source. A subclass names its `reply` and says in `due_groups` which groups a
    round shows (most often through `first_due`), in `fault` why a verdict cannot be applied
    to the graph as it is now, and in `write` what applying the valid ones writes, both
    through the store parts `TxT`."""

    name: str
    reply: GroupReply[ShownT, ItemT]

    def __init__(self, options: OptionsT, source: SourceT):
        self.options: OptionsT = options.check()
        self.source = source
        self._shown: set[tuple[str, ...]] = set()  # the members of each group shown this run

    # --- a stage's own ------------------------------------------------------------------
    @abstractmethod
    def due_groups(self, store: Store[TxT], busy: frozenset[str]
                   ) -> tuple[tuple[ShownT, ...], dict[str, object]]:
        """The groups the round shows, numbered from 1, and its details for the report."""

    @abstractmethod
    def fault(self, tx: TxT, item: ItemT) -> str:
        """Why `item` cannot be applied now ("" when it can)."""

    @abstractmethod
    def write(self, tx: TxT, valid: Sequence[ItemT], run: RunRecord, record: RoundRecord,
              at: str) -> tuple[list[AppliedEntry], Change]:
        """Write the valid verdicts and their provenance: the report's entries, and the
        labels that changed."""

    def first_due(self, groups: Iterable[G], members: Callable[[G], tuple[str, ...]],
                  busy: frozenset[str]) -> list[G]:
        """The first `batch` of `groups` not shown in this run and without a belief in `busy`
        (one in a group of a round in flight, which applying that round may change)."""
        return [g for g in groups
                if members(g) not in self._shown and busy.isdisjoint(members(g))
                ][:self.options.batch]

    # --- one round's view ---------------------------------------------------------------
    def read_round_besides(self, store: Store[TxT], n: int, busy: frozenset[str]) -> RoundInput:
        """`busy`: the beliefs of the groups of rounds in flight (--parallel)."""
        shown, details = self.due_groups(store, busy)
        if not shown:
            return RoundInput(prompt=Prompt.of(""), contract=self.contract(()),
                              empty=True, details=details)
        self._shown.update(g.members for g in shown)
        ids = member_ids(shown)
        beliefs, counts = store.read(lambda tx: (tx.get_beliefs(ids), tx.dependent_counts(ids)))
        text = self.reply.build_prompt(shown, beliefs, counts, domain=self.options.domain)
        return RoundInput(prompt=Prompt.of(text), contract=self.contract(shown),
                          shown=tuple(ids), details=details, context=shown)

    def contract(self, shown: Sequence[ShownT]) -> RoundContract:
        return RoundContract(tuple(member_ids(shown)),
                             JsonReply(self.reply.reply_schema(shown, bounded=True),
                                       self.reply.reply_schema(shown, bounded=False)),
                             stage=self.name)

    # --- the reply ----------------------------------------------------------------------
    def parse(self, reply: str, shown: RoundInput | None) -> Parsed[ItemT]:
        groups = shown.context if shown is not None else None
        return self.reply.parse(reply, groups if isinstance(groups, tuple) else None)

    def retry_message(self, parsed: Parsed[ItemT], shown: RoundInput) -> str:
        return self.reply.retry_text(parsed.diagnostics)

    def combine(self, first: Parsed[ItemT], second: Parsed[ItemT]) -> Parsed[ItemT]:
        return self.reply.combine(first, second)

    # --- validation and apply -----------------------------------------------------------
    def check(self, tx: TxT, items: Sequence[ItemT], shown: RoundInput | None
              ) -> Checked[ItemT]:
        """A verdict whose comment echoes the answer format is skipped, as is one `fault`
        names."""
        return Checked.by_fault(
            items, lambda item: ECHO_REASON if self.reply.echo.echoed(item.comment)
            else self.fault(tx, item), key=lambda item: item.key)

    def apply(self, tx: TxT, items: Sequence[ItemT], shown: RoundInput | None,
              run: RunRecord, record: RoundRecord) -> Applied:
        checked = self.check(tx, items, shown)
        entries, change = self.write(tx, checked.valid, run, record, now())
        return Applied(checked, entries, change)
