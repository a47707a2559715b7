"""What one derive round shows the model, read from the store.

The pool is the IN premises (optionally filtered by `--topic`), sorted by id (the store's
`premise_pool`); the sampler picks the round's sample from it; the derived section is then
filtered to match the sample: a derived belief is shown only when, for one of its
justifications, every antecedent is in the sample or is itself a shown derived belief (a
fixpoint, found in waves through `ProvenanceTx.derived_citing`, so its cost follows the sample, not
the network). A justification with no antecedents never qualifies, or outlist-only beliefs
would be shown whatever the sample. The beliefs the negatives stage found to state a problem
(engine/negatives/) that share an id prefix or a word with the sample are shown as known
problems, ids a GATE's Unless may name.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol, TYPE_CHECKING

from engine.model import Belief, Status
from engine.reading.records import SearchTx
from engine.stages.problems import current_negatives
from engine.stages.records import NegativeCandidate, ProblemsTx
from engine.stages.provenance import ProvenanceTx
from engine.store import Store
from engine.tms.records import TmsTx

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
    # beliefs the negatives stage found to state a problem, near the sample: (id, kind, text),
    # offered to GATE proposals as Unless ids
    problems: tuple[tuple[str, str, str], ...] = ()


def id_prefix(belief_id: str) -> str:
    """The group of an id: the text before its first `-` (the whole id when it has none)."""
    return belief_id.split("-", 1)[0]


def topic_words(topic: str | None) -> tuple[str, ...]:
    return tuple(w for w in (topic or "").lower().split() if w)


class DeriveViewTx(TmsTx, SearchTx, ProvenanceTx, ProblemsTx, Protocol):
    """What a derive round's view reads: the status, the premise pool, what earlier runs
    derived from the sample, and the negatives found."""


def premise_pool(tx: SearchTx, topic: str | None = None) -> list[PoolItem]:
    """The IN premises, sorted by id, filtered to `--topic` when given: those whose id or
    text contains one of its words, in any case."""
    return tx.premise_pool(topic_words(topic))


def shown_derived(tx: ProvenanceTx, sample_ids: Iterable[str]) -> list[Belief]:
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


PROBLEMS_SHOWN = 8  # known problems offered to a round's GATE proposals
_WORD = re.compile(r"[a-z0-9]{4,}")


def near_problems(problems: Iterable[NegativeCandidate], texts: Mapping[str, str],
                  shown: Iterable[str] = (), limit: int = PROBLEMS_SHOWN
                  ) -> tuple[tuple[str, str, str], ...]:
    """The known problems that share an id prefix or a word (4 letters or more) with the
    sample (`texts`), most words shared first, then by id; none the prompt shows already
    (the sample, or `shown`: the derived conclusions)."""
    groups = {id_prefix(i) for i in texts}
    words = {w for t in (*texts, *texts.values()) for w in _WORD.findall(t.lower())}
    skip = set(texts) | set(shown)
    scored = []
    for p in problems:
        if p.id in skip:
            continue
        shared = len(words & set(_WORD.findall(f"{p.id} {p.text}".lower())))
        if shared or id_prefix(p.id) in groups:
            scored.append((-shared, p.id, p))
    return tuple((p.id, p.kind, p.text) for _, _, p in sorted(scored)[:limit])


def read_view(
    store: Store[DeriveViewTx], sampler: "Sampler", index: int, *, budget: int,
    topic: str | None = None
) -> RoundView:
    """Read the pool, sample it, and read the derived beliefs that match the sample and the
    known problems near it."""
    status, pool = store.read(lambda tx: (tx.status(), premise_pool(tx, topic)))
    sample = sampler.sample(index, pool)
    texts_all = dict(pool)
    sample_ids = tuple(dict.fromkeys(i for i in sample.ids if i in texts_all))[:budget]
    related, negatives = store.read(
        lambda tx: (shown_derived(tx, sample_ids), current_negatives(tx))
    ) if sample_ids else ([], [])
    derived = tuple(deepest_first(related)[:budget])
    sampled = {i: texts_all[i] for i in sample_ids}
    problems = near_problems(negatives, sampled,
                             [b.id for b in derived]) if sample_ids else ()
    return RoundView(
        index=index,
        sample=sample,
        sample_ids=sample_ids,
        texts=sampled,
        group_totals=Counter(id_prefix(i) for i, _ in pool),
        pool_size=len(pool),
        derived=derived,
        derived_related=len(related),
        status=status,
        problems=problems,
    )
