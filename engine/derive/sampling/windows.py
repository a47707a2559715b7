"""The strategies that take the whole pool as one sweep, window by window.

- `alphabetical` (default): ids sorted; round r takes the r-th window of N ids, wrapping
  around at the end, so an exhaust run sweeps the whole network. With a stable pool this is
  exactly ids[(r*N) mod P ...] wrapping.
- `random` (`--sample`): one seeded shuffle of the pool per run (`--seed`; without one a seed
  is drawn and kept in `sampler.seed` so the report can record it), taken window by window.
"""
from __future__ import annotations

from engine.derive.sampling.sample import DEFAULT_BUDGET, PoolItem
from engine.derive.sampling.sweep import Sweep, SweepingSampler, window_label


class _OneSweepSampler(SweepingSampler):
    """alphabetical and random: the whole pool is one sweep."""

    keep_sorted = True

    def __init__(self, budget: int, seed: int | None):
        super().__init__(budget, seed)
        self._sweep: Sweep | None = None

    def _order(self, ids: list[str]) -> list[str]:
        return sorted(ids)

    def _start(self, items: list[PoolItem]) -> None:
        self._sweep = Sweep(self._order([i for i, _ in items]), keep_sorted=self.keep_sorted)

    def _update(self, departed: set[str], added: list[PoolItem]) -> None:
        assert self._sweep is not None  # _start ran first
        self._sweep.update(departed, [i for i, _ in added], self._rng)

    def _take(self, round_index: int, pool_size: int) -> tuple[list[str], int | None, str]:
        sweep = self._sweep
        if sweep is None or not len(sweep):
            return [], None, self.strategy
        shown_before, passes = len(sweep.shown), sweep.passes
        chosen = sweep.take(self.budget)
        if len(chosen) < self.budget and len(chosen) < len(sweep):
            sweep.new_pass()
            chosen += sweep.take(self.budget - len(chosen), avoid=set(chosen))
        window = window_label(shown_before, pool_size, self.budget)
        return chosen, None, f"{self.strategy} window {window} (pass {passes}{self._about()})"

    def _about(self) -> str:
        return ""


class AlphabeticalSampler(_OneSweepSampler):
    strategy = "alphabetical"

    def __init__(self, budget: int = DEFAULT_BUDGET):
        super().__init__(budget, None)


class RandomSampler(_OneSweepSampler):
    strategy = "random"
    keep_sorted = False

    def _order(self, ids: list[str]) -> list[str]:
        order = sorted(ids)
        self._rng.shuffle(order)
        return order

    def _about(self) -> str:
        return f", seed {self.seed}"
