"""`summarize ID TEXT --over a,b,c`: a belief that stands for a group of beliefs.

It is derived, one ALL justification over the group, so it goes OUT as soon as one of them
does; it carries metadata `summarizes` (the group, as ftl-reasons writes it) and the label
:Summary, by which `compact` and `ask` show it in place of the beliefs it covers while it
is IN. One write transaction: the belief, its propagation, nogoods, the label.
"""
from __future__ import annotations

from collections.abc import Sequence
from types import MappingProxyType
from typing import Protocol

from engine.change_records import ChangeEntry
from engine.errors import InvalidInput, NotFound
from engine.model import Belief, Change, Justification, check_id, check_text
from engine.reading.records import ReadingTx
from engine.store import Store
from engine.tms import add_beliefs_in, now
from engine.tms.records import ResolutionTx

SUMMARY_LABEL = "summary"


class SummaryTx(ResolutionTx, ReadingTx, Protocol):
    """What a summary writes: the belief with its propagation (ResolutionTx) and its
    :Summary mark (ReadingTx)."""


def summarize(store: Store[SummaryTx], summary_id: str, text: str, over: Sequence[str]) -> Change:
    check_id(summary_id)
    check_text(text, ident=summary_id)
    members = tuple(dict.fromkeys(m.strip() for m in over if m.strip()))
    if len(members) < 2:
        raise InvalidInput("a summary stands for at least two beliefs: --over a,b",
                           field="over")
    for m in members:
        check_id(m, what="summarized id")
    if summary_id in members:
        raise InvalidInput(f"summary '{summary_id}' cannot summarize itself", field="over",
                           value=summary_id)
    stamp = now()
    belief = Belief(
        id=summary_id, text=text,
        justifications=(Justification(members, (), label=SUMMARY_LABEL),),
        metadata=MappingProxyType({"summarizes": list(members), "source_type": "summary"}),
        created_at=stamp, updated_at=stamp)

    def work(tx: SummaryTx) -> Change:
        found = tx.existing_ids(members)
        for m in members:
            if m not in found:
                raise NotFound("belief", m)
        change = add_beliefs_in(tx, [belief])
        tx.mark_summary(summary_id)
        return change

    return store.write(work, ChangeEntry("summarize", {"id": summary_id,
                                                     "over": list(members)}))
