"""Review on a real network (../shared/data/networks, CC BY-SA, read in place) with a scripted
model that judges each derived belief it is shown by a fixed rule and passes over a fixed
quarter of them, as a real model skips what it will not judge (issue 40's replay, with a
rule in place of recorded verdicts): at --budget 10 every belief not passed over is judged,
the run ends, and the verdicts applied and the labels left are those of a --budget 200 run."""
from __future__ import annotations

import hashlib
import math

import pytest

from adapters.formats import read_network_file
from engine import interchange, tms
from engine.review.stage import ReviewSettings, ReviewStage
from engine.stages.calls import CallPolicy
from engine.stages.contract import unconstrained
from engine.stages.report import StopReason
from engine.stages.run import RunOptions, RunResult, run_stage
from engine.stages.turns import SHOWINGS, Turns
from tests.conftest import empty_graph
from tests.parallel_fakes import KeyedCritic

pytestmark = [pytest.mark.neo4j, pytest.mark.network_data, pytest.mark.slow]

NETWORKS = ["system-design-eem.json", "data-intensive-applications-eem.json"]


def bucket(belief: str) -> int:
    return hashlib.sha256(belief.encode("utf-8")).digest()[0]


def critic_for(candidates: list[str]) -> KeyedCritic:
    """Passes over a quarter of the candidates, finds a seventh of the rest unsound."""
    return KeyedCritic(skip=frozenset(b for b in candidates if bucket(b) % 4 == 0),
                       invalid=frozenset(b for b in candidates if bucket(b) % 7 == 1))


class DueSince(Turns):
    """The run's turns, noting the read (the round, one round at a time) at which each
    belief was first due."""

    def clear(self) -> None:
        super().clear()
        self.reads = 0
        self.first_due: dict[str, int] = {}

    def order(self, due, key, *, once=()):
        self.reads += 1
        for item in due:
            self.first_due.setdefault(key(item), self.reads)
        return super().order(due, key, once=once)


def review(store, path, budget: int) -> tuple[RunResult, KeyedCritic, list[str], ReviewStage]:
    network, stored = read_network_file(path)
    interchange.import_network(store, network, stored)
    candidates = sorted(c.id for c in store.read(lambda tx: tx.review_candidates()))
    critic = critic_for(candidates)
    stage = ReviewStage(ReviewSettings(budget=budget))
    stage.turns = DueSince()
    result = run_stage(store, stage, unconstrained(critic),
                       RunOptions(model="replay", exhaust=True, max_rounds=400,
                                  calls=CallPolicy(sleep=lambda s: None)))
    return result, critic, candidates, stage


def lag_and_bound(result: RunResult, stage: ReviewStage, budget: int) -> list[tuple[int, int]]:
    """Per belief shown: the rounds from its first being due to its first showing, and the
    bound ceil(due / budget), `due` counted at the round it came due."""
    due_at = {r.n: r.details["due"] for r in result.rounds}
    out, seen = [], set()
    for r in result.rounds:
        for b in r.shown:
            if b not in seen:
                seen.add(b)
                assert isinstance(stage.turns, DueSince)
                since = stage.turns.first_due.get(b)
                assert since is not None
                out.append((r.n - since + 1, math.ceil(due_at[since] / budget)))
    return out


def applied(result: RunResult) -> set[tuple[str, bool]]:
    return {(e["id"], e["valid"]) for r in result.rounds for e in r.applied}


@pytest.mark.parametrize("name", NETWORKS)
def test_budget_10_applies_what_budget_200_applies(store, driver, neo4j_settings,
                                                   shared_networks, name):
    small, critic, candidates, stage = review(store, shared_networks / name, 10)
    small_labels = {b.id: b.truth for b in tms.list_beliefs(store)}
    assert tms.verify(store) == []

    empty_graph(driver, neo4j_settings.database)
    big, _, _, _ = review(store, shared_networks / name, 200)
    assert {b.id: b.truth for b in tms.list_beliefs(store)} == small_labels
    assert applied(small) == applied(big)

    judged = {e["belief"] for r in small.rounds for e in r.applied}
    shown = [b for r in small.rounds for b in r.shown]
    assert not judged & critic.skip
    assert all(shown.count(b) <= SHOWINGS for b in critic.skip)
    # every candidate not passed over was judged, unless a defeat took it OUT first
    never = set(candidates) - judged - critic.skip
    assert all(small_labels[b].value == "OUT" for b in never)
    # each belief is shown within ceil(due / budget) rounds of coming due
    lags = lag_and_bound(small, stage, 10)
    assert all(lag <= bound for lag, bound in lags)
    assert small.report.stop_reason in (StopReason.DRY_ROUNDS, StopReason.NOTHING_LEFT)
    assert len(small.rounds) < 400
    print(f"\n{name}: {len(candidates)} candidates, {len(critic.skip)} passed over, "
          f"{len(applied(small))} verdicts at budget 10 in {len(small.rounds)} rounds "
          f"(stopped: {small.stopped}), {len(applied(big))} at budget 200 in "
          f"{len(big.rounds)} rounds (stopped: {big.stopped}); {len(lags)} beliefs shown, "
          f"each within {max(lag for lag, _ in lags)} round(s) of coming due (bound: "
          f"ceil(due / 10), at most {max(bound for _, bound in lags)})")
