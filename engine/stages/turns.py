"""Turns: the order in which the stages that judge one item at a time (review, premise
review, repair) show what is due, so that what a model passes over cannot crowd out the rest.

Each of these stages reads what is due afresh every round, in its own order (review: what a
belief rests on first, then the shallowest; premise review: the most depended-on; repair: the
most dependents). An item the model is shown and does not judge stays due, so that order
alone would put it first again every round, and once a budget's worth of such items were due
nothing else would ever be shown. Within one run, then:

- an item passed over (shown, and not judged by a valid answer) goes behind every due item
  passed over fewer times, so every other due item has its turn first; among items passed
  over as often, the one due first comes first, then the stage's own order;
- an item passed over `showings` times (k, default 2) is not shown again in the run: it is
  unanswered, and the report names it with its showings;
- an item the stage shows `once` (review: a belief held back only by unanswered beliefs, shown
  anyway) is unanswered after one showing.

So an item that is due at round r is shown for the first time by round r + ceil(d / budget) - 1,
d the number due at round r, however many the model passes over; and every showing of it
that is left comes within k more passes over what is due. `show` says how many of a round's
items it shows for the first time in the run: a dry round without any (nothing new shown,
nothing judged) is what --exhaust's dry-round count counts (engine/stages/run.py), so a
model that will judge nothing more ends the run after k such rounds, and a dry round never
cuts short the first showing of what is due. When the run ends that way it calls `end`:
everything passed over is then unanswered, and what waited only on it is shown once before
the run stops (the run goes on while there is such a thing to show).
"""
from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

T = TypeVar("T")

SHOWINGS = 2  # k: the most times one item is shown in a run without an answer
NAMED = 200  # items a round's report fields name (the run's report names every unanswered)
PASSED_OVER, UNANSWERED, RELEASED, WAITING_ON, HELD_BACK = (
    "passed_over", "unanswered", "released", "waiting_on", "held_back")


class Turns:
    """The turns of one run: how often each item was shown and passed over, and when it was
    first due. The stage orders what is due through it (`order`), says what a round shows
    (`show`) and, once the round is closed, what it judged (`closed`)."""

    def __init__(self, showings: int = SHOWINGS):
        self.showings = max(1, showings)
        self.clear()

    def clear(self) -> None:
        """A new run: nothing shown, nothing passed over."""
        self._reads = 0
        self._first_due: dict[str, int] = {}
        self._passed: dict[str, int] = {}
        self._shown: set[str] = set()
        self._once: set[str] = set()
        self._ending = False

    def end(self) -> None:
        """The run is ending: from now on one pass over is an item's last (nothing is shown
        again; what it held back is released, and shown once)."""
        self._ending = True

    def limit(self, key: str) -> int:
        return 1 if self._ending or key in self._once else self.showings

    def passes(self, key: str) -> int:
        return self._passed.get(key, 0)

    def given_up(self) -> frozenset[str]:
        """The items not to be shown again in this run: passed over as often as they may be."""
        return frozenset(k for k, n in self._passed.items() if n >= self.limit(k))

    def order(self, due: Sequence[T], key: Callable[[T], str], *,
              once: Collection[str] = ()) -> list[T]:
        """`due` (in the stage's order) as this run shows it: the items given up left out,
        the rest by how often each was passed over, then by when it was first due, then in
        the stage's order. `once`: items to be shown one time only."""
        self._reads += 1
        self._once.update(once)
        ranked = []
        for index, item in enumerate(due):
            k = key(item)
            first = self._first_due.setdefault(k, self._reads)
            if self.passes(k) < self.limit(k):
                ranked.append(((self.passes(k), first, index), item))
        ranked.sort(key=lambda pair: pair[0])
        return [item for _, item in ranked]

    def show(self, keys: Iterable[str]) -> int:
        """A round shows `keys`; how many of them for the first time in this run."""
        new = {k for k in keys if k not in self._shown}
        self._shown |= new
        return len(new)

    def closed(self, shown: Iterable[str], judged: Collection[str]) -> None:
        """A round that showed `shown` is closed: `judged` are those it answered validly."""
        for k in shown:
            if k in judged:
                self._passed.pop(k, None)
            else:
                self._passed[k] = self.passes(k) + 1

    def unanswered(self) -> dict[str, int]:
        """Items passed over and not judged since, with how many times each was shown
        without an answer (in the order they were first due)."""
        return {k: n for k, n in sorted(self._passed.items(),
                                        key=lambda kv: (self._first_due.get(kv[0], 0), kv[0]))}

    def details(self, due: Iterable[str]) -> dict[str, object]:
        """A round's report fields: the due items passed over before (waiting for their next
        turn, with their count), and the items given up so far; the first NAMED of each."""
        waiting = [k for k in due if k in self._passed][:NAMED]
        return {PASSED_OVER: {k: self._passed[k] for k in waiting},
                UNANSWERED: sorted(self.given_up())[:NAMED]}



@dataclass(frozen=True)
class Taken(Generic[T]):
    """A round's turn: what is due in the order the run shows it (`queue`), the first
    `budget` of them (`chosen`: what the round shows), and the turns' report fields."""

    queue: list[T]
    chosen: list[T]
    details: dict[str, object]


class ShownRound(Protocol):
    """What the turns read of a closed round (engine/stages/stage.RoundInput): the keys it
    showed, and what the stage kept of it."""

    @property
    def shown(self) -> tuple[str, ...]: ...

    @property
    def context(self) -> object: ...


class Keyed(Protocol):
    @property
    def key(self) -> str: ...


KeyedT = TypeVar("KeyedT", bound=Keyed)


class TakesTurnsBase(Generic[KeyedT]):
    """The turn-taking of a stage that judges one item at a time (review, premise review,
    repair, negatives): its Turns, what is due taken in turn (`take`), and a closed round
    told to the turns (`round_closed`: the round's items with a valid answer are judged,
    unless the stage's `judged` says otherwise)."""

    def __init__(self, showings: int = SHOWINGS):
        self.turns = Turns(showings)

    def take(self, due: Sequence[T], key: Callable[[T], str], budget: int, *,
             busy: Collection[str] = (), once: Collection[str] = ()) -> Taken[T]:
        """`due` (in the stage's order) as this round takes it: without what rounds in
        flight hold (`busy`), in turn; `once`: items to be shown one time only. The report
        fields name what of `due` was passed over before."""
        queue = self.turns.order([d for d in due if key(d) not in busy], key, once=once)
        return Taken(queue, queue[:budget], self.turns.details(key(d) for d in due))

    def round_closed(self, shown: ShownRound, valid: Sequence[KeyedT]) -> None:
        self.turns.closed(shown.shown, self.judged(shown, valid))

    def judged(self, shown: ShownRound, valid: Sequence[KeyedT]) -> set[str]:
        """The items of round `shown` judged by its `valid` answers."""
        return {v.key for v in valid}
