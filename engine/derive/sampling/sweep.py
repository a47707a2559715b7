"""The sweep every strategy is made of, and the bookkeeping every strategy shares.

A `Sweep` is one ordered group of ids taken window by window: the whole pool for alphabetical
and random, one cluster for the cluster strategies. `SweepingSampler` keeps the ids it has
seen, turns pool changes into `_update` calls, keeps rounds in order and answers a repeated
round with the same sample; a strategy fills in `_start`, `_update` and `_take`.
"""
from __future__ import annotations

import bisect
import math
import random
from collections.abc import Sequence

from engine.derive.sampling.sample import PoolItem, Sample
from engine.errors import InvalidInput


class Sweep:
    """Ids in a fixed order with a cursor; `take` returns ids not yet shown in this pass,
    from the cursor on, wrapping. `keep_sorted` keeps the order sorted when ids are added
    (alphabetical, clusters); otherwise new ids are inserted at random places ahead of the
    cursor (random)."""

    def __init__(self, order: list[str], *, keep_sorted: bool):
        self.order = order
        self.keep_sorted = keep_sorted
        self.pos = 0
        self.shown: set[str] = set()
        self.passes = 1

    def __len__(self) -> int:
        return len(self.order)

    @property
    def remaining(self) -> int:
        return len(self.order) - len(self.shown)

    def take(self, n: int, *, avoid: frozenset[str] | set[str] = frozenset(),
             repeat: bool = False) -> list[str]:
        """Up to `n` ids from the cursor on: not yet shown in this pass (marked shown, cursor
        moved past them), or with `repeat` already shown ones (to fill up; nothing moves)."""
        picked: list[str] = []
        size = len(self.order)
        i, scanned = self.pos, 0
        while len(picked) < n and scanned < size:
            x = self.order[i]
            if (x in self.shown) == repeat and x not in avoid:
                picked.append(x)
            i = i + 1 if i + 1 < size else 0
            scanned += 1
        if not repeat:
            self.pos = i
            self.shown.update(picked)
        return picked

    def new_pass(self) -> None:
        self.shown.clear()
        self.passes += 1

    def update(self, departed: set[str], added: Sequence[str], rng: random.Random) -> None:
        """Drop ids that left the pool; add new ones (see the module doc)."""
        if departed:
            before = sum(1 for x in self.order[:self.pos] if x in departed)
            self.order = [x for x in self.order if x not in departed]
            self.pos -= before
            self.shown -= departed
        if added:
            if self.keep_sorted:
                anchor = self.order[self.pos - 1] if self.pos > 0 else None
                self.order = sorted(self.order + list(added))
                self.pos = bisect.bisect_right(self.order, anchor) if anchor is not None else 0
            else:
                new = sorted(added)
                rng.shuffle(new)
                head, tail = self.order[:self.pos], self.order[self.pos:]
                slots = set(rng.sample(range(len(tail) + len(new)), len(new)))
                t, k, merged = iter(tail), iter(new), []
                for j in range(len(tail) + len(new)):
                    merged.append(next(k) if j in slots else next(t))
                self.order = head + merged
        if self.pos >= len(self.order):
            self.pos = 0


# --- the base: pool bookkeeping, round order, idempotent retries ---------------------------
class SweepingSampler:
    strategy = ""
    n_clusters: int | None = None

    def __init__(self, budget: int, seed: int | None):
        self.budget = budget
        self.seed = seed
        self._rng = random.Random(seed)
        self._known: set[str] | None = None  # the ids in the sweep state
        self._next_round = 0
        self._last: tuple[int, Sample] | None = None

    def sample(self, round_index: int, pool: Sequence[PoolItem]) -> Sample:
        if not isinstance(round_index, int) or round_index < 0:
            raise InvalidInput(f"round index must be 0 or more, got {round_index!r}",
                               field="round_index", value=round_index)
        if self._last is not None and self._last[0] == round_index:
            return self._last[1]
        ids = frozenset(item[0] for item in pool)
        items = list(pool) if len(ids) == len(pool) else _dedupe(pool)
        if round_index < self._next_round:
            raise InvalidInput(
                f"round {round_index} comes before round {self._next_round - 1}, already "
                "sampled: a sampler serves one run, rounds in order",
                field="round_index", value=round_index)
        self._sync(items, ids)
        while self._next_round < round_index:  # rounds skipped: take their windows
            self._take(self._next_round, len(items))
            self._next_round += 1
        chosen, cluster, what = self._take(round_index, len(items))
        self._next_round = round_index + 1
        result = Sample(
            ids=tuple(sorted(chosen)),
            strategy=self.strategy,
            cluster=cluster,
            description=f"{what}: {len(chosen)} of {len(items)} IN premises"
            if items else f"{self.strategy}: no IN premises to show",
        )
        self._last = (round_index, result)
        return result

    def _sync(self, items: list[PoolItem], ids: frozenset[str]) -> None:
        if self._known is None:
            if items:
                self._start(items)
                self._known = set(ids)
            return
        if ids == self._known:
            return
        departed = self._known - ids
        added = [item for item in items if item[0] not in self._known]
        self._update(departed, added)
        self._known = set(ids)

    # the strategies fill these in
    def _start(self, items: list[PoolItem]) -> None: ...

    def _update(self, departed: set[str], added: list[PoolItem]) -> None: ...

    def _take(self, round_index: int, pool_size: int) -> tuple[list[str], int | None, str]:
        raise NotImplementedError


def _dedupe(pool: Sequence[PoolItem]) -> list[PoolItem]:
    seen: set[str] = set()
    out: list[PoolItem] = []
    for item in pool:
        if item[0] not in seen:
            seen.add(item[0])
            out.append((item[0], item[1]))
    return out


def window_label(sweep_shown_before: int, pool_size: int, budget: int) -> str:
    windows = max(1, math.ceil(pool_size / budget))
    return f"{min(windows, 1 + sweep_shown_before // budget)}/{windows}"
