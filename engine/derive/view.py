"""What one derive round shows the model, read from the store.

The pool is the IN premises (optionally filtered by `--topic`), sorted by id (the store's
`premise_pool`); the sampler picks the round's sample from it; the derived section is then
filtered to match the sample: a derived belief is shown only when, for one of its
justifications, every antecedent is in the sample or is itself a shown derived belief (a
fixpoint, found in waves through `GraphTx.derived_citing`, so its cost follows the sample, not
the network). A justification with no antecedents never qualifies, or outlist-only beliefs
would be shown whatever the sample.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.model import Belief, Status
from engine.store import GraphTx, Store

if TYPE_CHECKING:
    from engine.derive.sampling import Sample, Sampler

PoolItem = tuple[str, str]  # (id, text) of an IN premise, as engine.derive.sampling has it


@dataclass(frozen=True)
class RoundView:
    index: int  # 0-based round index given to the sampler
    sample: "Sample"
    sample_ids: tuple[str, ...]  # the sample's ids that are in the pool, at most `budget`
    texts: Mapping[str, str]  # id -> text, for the sampled ids
    group_totals: Mapping[str, int]  # id prefix -> IN premises in the pool
    pool_size: int
    derived: tuple[Belief, ...]  # shown derived beliefs, deepest first, at most `budget`
    derived_related: int  # derived beliefs that qualified, before the cap
    status: Status


def id_prefix(belief_id: str) -> str:
    """The group of an id: the text before its first `-` (the whole id when it has none)."""
    return belief_id.split("-", 1)[0]


def topic_words(topic: str | None) -> tuple[str, ...]:
    return tuple(w for w in (topic or "").lower().split() if w)


def premise_pool(tx: GraphTx, topic: str | None = None) -> list[PoolItem]:
    """The IN premises, sorted by id, filtered to `--topic` when given: those whose id or
    text contains one of its words, in any case."""
    return tx.premise_pool(topic_words(topic))


def shown_derived(tx: GraphTx, sample_ids: Iterable[str]) -> list[Belief]:
    """The derived beliefs the prompt shows for this sample (the fixpoint; unordered)."""
    known = set(sample_ids)
    shown: dict[str, Belief] = {}
    frontier = sorted(known)
    while frontier:
        added = []
        for b in tx.derived_citing(frontier):
            if b.id in known:
                continue
            if any(j.antecedents and all(a in known for a in j.antecedents)
                   for j in b.justifications):
                shown[b.id] = b
                known.add(b.id)
                added.append(b.id)
        frontier = sorted(added)
    return list(shown.values())


def deepest_first(beliefs: Iterable[Belief]) -> list[Belief]:
    return sorted(beliefs, key=lambda b: (-(b.depth if b.depth is not None else -1), b.id))


def read_view(
    store: Store, sampler: "Sampler", index: int, *, budget: int, topic: str | None = None
) -> RoundView:
    """Read the pool, sample it, and read the derived beliefs that match the sample."""
    status, pool = store.read(lambda tx: (tx.status(), premise_pool(tx, topic)))
    sample = sampler.sample(index, pool)
    texts_all = dict(pool)
    sample_ids = tuple(dict.fromkeys(i for i in sample.ids if i in texts_all))[:budget]
    related = store.read(lambda tx: shown_derived(tx, sample_ids)) if sample_ids else []
    derived = tuple(deepest_first(related)[:budget])
    return RoundView(
        index=index,
        sample=sample,
        sample_ids=sample_ids,
        texts={i: texts_all[i] for i in sample_ids},
        group_totals=Counter(id_prefix(i) for i, _ in pool),
        pool_size=len(pool),
        derived=derived,
        derived_related=len(related),
        status=status,
    )
