"""Rounds with up to N model calls in flight (`--parallel N`), closed one by one in order.

The coordinator (the caller's thread) does every read and every write; only the model call
and the parse of each round run on a thread of their own. So:

- each round is still validated and applied in its own write transaction under the write
  lock, in round order: round n is closed (checked again and applied) only after round n-1;
- a round is read while others are in flight, leaving out what they hold (the stage's
  `read_round_besides` with their shown ids; see stage.ReadsAroundInFlight; a stage
  without it, derive, whose every round must see the last, runs one round at a time). A read that
  finds nothing while rounds are in flight is not a round: the coordinator waits for the
  next round to be applied (which may make more due) and reads again. Only a read with
  nothing in flight is an `empty` round, as in a sequential run;
- the caller sees the closed rounds in order 1, 2, 3..., so the stop conditions (max
  rounds, k dry rounds, an error) are decided exactly as in a sequential run, and a stage
  that takes turns (stage.TakesTurns) hears of each round as it is closed, in that order:
  what a round in flight shows is busy, and what it passed over waits behind the rest only
  once it is closed. Rounds still in flight when the run stops are discarded, not applied:
  their calls are waited for and counted (`Discarded`), since they were paid for.

At N = 1 every call is made inline, one round after another: the sequential run.
"""
from __future__ import annotations

import queue
import threading
import time
from typing import Generic
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from engine.stages.contract import ModelForRound
from engine.stages.provenance import RunRecord
from engine.stages.report import Discarded, Outcome, RoundResult
from engine.stages.rounds import OpenRound, RoundSettings, ask_round, close_round, open_round
from engine.stages.stage import LoopStage, ReadsAroundInFlight, RoundInput, RunTxT, TakesTurns
from engine.store import Store


@dataclass
class InFlight:
    opened: OpenRound
    done: threading.Event = field(default_factory=threading.Event)
    failure: BaseException | None = None  # a bug or an interrupt in the call's thread


class ParallelRounds(Generic[RunTxT]):
    """Iterate to get rounds 1..max_rounds closed in order; `stop()` when the run ends
    early (waits for the calls in flight and counts them as discarded)."""

    def __init__(self, store: Store[RunTxT], stage: LoopStage[RunTxT],
                 model_for_round: ModelForRound,
                 settings: RoundSettings, *, parallel: int, max_rounds: int, run: RunRecord,
                 at: Callable[[], str], started: Callable[[int], None],
                 clock: Callable[[], float] = time.monotonic):
        self.store, self.stage, self.model_for_round = store, stage, model_for_round
        self.settings, self.run, self.at, self.started = settings, run, at, started
        # a stage that cannot read around rounds in flight runs one round at a time
        self.parallel = max(1, parallel) if isinstance(stage, ReadsAroundInFlight) else 1
        self.max_rounds = max_rounds
        self.clock = clock
        self.discarded = Discarded()
        self._next = 1
        self._in_flight: dict[int, InFlight] = {}
        self._finished: queue.SimpleQueue[int] = queue.SimpleQueue()

    # --- the order of rounds -------------------------------------------------------------
    def __iter__(self) -> Iterator[RoundResult]:
        while True:
            self._launch()
            if not self._in_flight:
                return
            head = min(self._in_flight)
            flight = self._in_flight[head]
            while not flight.done.is_set():
                self._finished.get()  # some call ended; the head's may be it
            del self._in_flight[head]
            if flight.failure is not None:
                raise flight.failure
            result = close_round(flight.opened, self.store, self.stage, self.settings,
                                 run=self.run, at=self.at, clock=self.clock)
            if isinstance(self.stage, TakesTurns) and flight.opened.shown is not None:
                self.stage.round_closed(flight.opened.shown, result.valid)
            yield result

    def stop(self) -> None:
        """The run ends before the rounds in flight are closed: wait for their calls, count
        them, apply nothing of them."""
        for n in sorted(self._in_flight):
            flight = self._in_flight.pop(n)
            flight.done.wait()
            self.discarded.add(flight.opened.result)

    # --- reading and asking ---------------------------------------------------------------
    def _busy(self) -> frozenset[str]:
        return frozenset(i for f in self._in_flight.values()
                         for i in (f.opened.shown.shown if f.opened.shown else ()))

    def _read(self, n: int, busy: frozenset[str]) -> RoundInput:
        if isinstance(self.stage, ReadsAroundInFlight):
            return self.stage.read_round_besides(self.store, n, busy)
        return self.stage.read_round(self.store, n)

    def _held(self, opened: OpenRound) -> bool:
        """A read that found nothing while rounds are in flight waits for them: once
        applied, they may make more due."""
        return bool(self._in_flight) and opened.result.outcome is Outcome.EMPTY

    def _launch(self) -> None:
        while self._next <= self.max_rounds and len(self._in_flight) < self.parallel:
            n, busy = self._next, self._busy()
            opened = open_round(self.stage, n, lambda: self._read(n, busy), clock=self.clock)
            if self._held(opened):
                return
            self._next += 1
            self.started(n)
            flight = InFlight(opened)
            self._in_flight[n] = flight
            if self.parallel == 1 or opened.settled:
                self._ask(n, flight)
            else:
                threading.Thread(target=self._ask, args=(n, flight), daemon=True,
                                 name=f"{self.stage.name}-round-{n}").start()

    def _ask(self, n: int, flight: InFlight) -> None:
        try:
            ask_round(flight.opened, self.stage, self.model_for_round, self.settings,
                      clock=self.clock)
        except BaseException as e:  # handed to the coordinator, which raises it
            flight.failure = e
        finally:
            flight.done.set()
            self._finished.put(n)
