"""Review on a model that passes over a fixed set of beliefs (issue 40), through the shared
machinery on the FakeStore: with a budget smaller than that set every other due belief is
shown and judged, the set goes to the back of the queue and is shown at most k times, the run
ends on k dry rounds that show nothing new, the report names what is held back and what it
waits on, what waited only on the unanswered is shown once anyway, and the verdicts applied
at budget 10 are those applied at budget 200 (and at --parallel 3). A well-formed reply
that judges nothing is a dry round with one call; --no-wait reviews regardless of order."""
from __future__ import annotations

import math

import pytest

from engine.review.stage import ReviewSettings, ReviewStage
from engine.stages.calls import CallPolicy
from engine.stages.contract import unconstrained
from engine.stages.report import Outcome, RunStatus, StopReason, round_notes
from engine.stages.run import RunOptions, RunResult, run_stage
from engine.stages.stage import Action
from engine.stages.turns import SHOWINGS
from tests.derive_fakes import load
from tests.fakes import FakeStore
from tests.parallel_fakes import KeyedCritic, skipping_network

NO_SLEEP = CallPolicy(sleep=lambda s: None)
SKIP = frozenset(f"d1-{i:02}" for i in range(24))  # the first 24 of layer 1, in review's order
INVALID = frozenset({"d1-30", "d2-01", "d2-12"})
HELD = {f"d2-1{j}": [f"d1-2{j}"] for j in range(4)}  # at the end, each waits on a skipped one


def review(budget: int, *, parallel: int = 1, wait: bool = True, skip=SKIP) -> tuple[
        RunResult, FakeStore, KeyedCritic]:
    store = FakeStore()
    load(store, skipping_network())
    critic = KeyedCritic(invalid=INVALID, skip=skip)
    result = run_stage(store, ReviewStage(ReviewSettings(budget=budget, wait=wait)),
                       unconstrained(critic),
                       RunOptions(model="keyed", exhaust=True, max_rounds=60, calls=NO_SLEEP,
                                  parallel=parallel))
    return result, store, critic


def applied(result: RunResult) -> set[tuple[str, bool]]:
    return {(e["id"], e["valid"]) for r in result.rounds for e in r.applied}


def first_round(result: RunResult) -> dict[str, int]:
    first: dict[str, int] = {}
    for r in result.rounds:
        for b in r.shown:
            first.setdefault(b, r.n)
    return first


@pytest.fixture(scope="module")
def at_10():
    return review(10)


@pytest.fixture(scope="module")
def at_200():
    return review(200)


def test_every_other_due_belief_is_shown_and_judged(at_10):
    result, store, _ = at_10
    judged = {e["belief"] for r in result.rounds for e in r.applied}
    layer1 = {f"d1-{i:02}" for i in range(40)}
    # d2-03 rests on d1-30, which was defeated: it went OUT before it was due
    layer2 = {f"d2-0{i}" for i in range(8)} - {"d2-03"} | set(HELD)
    assert judged == (layer1 - SKIP) | layer2
    assert result.status is RunStatus.COMPLETE
    assert sorted(store.state.reviews) == sorted(judged)


def test_the_skipped_go_behind_the_rest_and_are_shown_at_most_k_times(at_10):
    result, _, critic = at_10
    showings = {b: sum(b in r.shown for r in result.rounds) for b in SKIP}
    assert set(showings.values()) <= set(range(1, SHOWINGS + 1))
    # no skipped belief is shown a second time before every other due belief had its turn:
    # second showings fill the budget behind the last first showings, never ahead of them
    first = first_round(result)
    last_first_showing = max(n for b, n in first.items() if b not in SKIP and b not in HELD)
    second = {b: [r.n for r in result.rounds if b in r.shown][1] for b, k in showings.items()
              if k == 2}
    assert second and min(second.values()) == last_first_showing
    mixed = result.rounds[last_first_showing - 1].shown
    assert [b in SKIP for b in mixed] == sorted(b in SKIP for b in mixed)
    assert result.report.unanswered == {b: showings[b] for b in sorted(SKIP)}


def test_coverage_within_ceil_due_over_budget_plus_k_rounds(at_10):
    result, _, _ = at_10
    first = first_round(result)
    due = len(first)  # every belief due at some point of the run was shown
    coverage = max(first.values())
    assert coverage <= math.ceil(due / 10) + SHOWINGS
    # layer 1, all due at round 1, was shown in ceil(40 / 10) rounds
    assert max(n for b, n in first.items() if b.startswith("d1-")) == 4


def test_a_reply_that_judges_nothing_shown_is_a_dry_round_of_one_call(at_10):
    result, _, _ = at_10
    r1 = result.rounds[0]
    assert r1.shown == tuple(f"d1-{i:02}" for i in range(10))  # all skipped ones
    assert r1.outcome is Outcome.DRY and r1.calls == 1 and r1.first_shown == 10
    assert r1.parse is not None and len(r1.parse.passed_over) == 10


def test_the_run_ends_on_k_dry_rounds_then_shows_what_waited_on_the_unanswered(at_10):
    result, _, _ = at_10
    assert result.report.stop_reason is StopReason.DRY_ROUNDS
    assert result.stopped == f"{SHOWINGS} consecutive dry round(s)"
    outcomes = [r.outcome for r in result.rounds]
    # k dry rounds of second showings, then the beliefs held back by the four skipped ones
    # never shown twice: shown once anyway, then nothing is left
    assert outcomes[-4:] == [Outcome.DRY, Outcome.DRY, Outcome.PROPOSED, Outcome.EMPTY]
    dry = result.rounds[-4:-2]
    assert all(r.first_shown == 0 and set(r.shown) <= SKIP for r in dry)
    released = result.rounds[-2]
    assert set(released.shown) == set(HELD) and released.details["released"] == sorted(HELD)
    assert released.first_shown == 4


def test_the_report_names_what_is_held_back_and_what_it_waits_on(at_10):
    result, _, _ = at_10
    first = result.rounds[0].details
    assert first["held_back"] == len(first["waiting_on"]) == 12
    assert {b: first["waiting_on"][b] for b in HELD} == {
        f"d2-1{j}": [f"d1-2{j}", f"d1-{24 + j}"] for j in range(4)}
    assert first["waiting_on"]["d2-00"] == ["d1-24", "d1-25"]
    assert result.report.to_json()["rounds"][0]["waiting_on"] == first["waiting_on"]
    notes = round_notes(result.rounds[0])
    assert notes[0] == ("round 1: passed over (no answer; shown again after the rest): "
                        "d1-00#1, d1-01#1, d1-02#1, d1-03#1, d1-04#1, d1-05#1, d1-06#1, "
                        "d1-07#1 (+2 more)")
    assert notes[1].startswith("round 1: 12 held back until what they rest on is reviewed, "
                               "waiting on d1-24: d2-00, d2-10; on d1-25: d2-00, d2-11; ")
    assert notes[1].endswith("; and on 15 more (the report lists them)")
    late = round_notes(result.rounds[-3])
    assert late[-1] == ("round 7: 4 held back until what they rest on is reviewed, waiting on "
                        "d1-20: d2-10; on d1-21: d2-11; on d1-22: d2-12; on d1-23: d2-13")
    # the held-back list shrinks as what they wait on is judged; the last four wait on the end
    assert all(r.details.get("waiting_on") == HELD for r in result.rounds[-4:-2])


def test_the_verdicts_applied_at_budget_10_equal_those_at_200(at_10, at_200):
    small, _, _ = at_10
    big, _, _ = at_200
    assert applied(small) == applied(big)
    assert len(applied(big)) == 27
    assert sum(r.count(Action.DEFEATED) for r in big.rounds) == 3
    assert big.report.stop_reason is StopReason.NOTHING_LEFT
    assert [r.outcome for r in big.rounds] == [Outcome.PROPOSED] * 3 + [Outcome.EMPTY]
    assert big.report.unanswered == {b: 2 for b in sorted(SKIP)}


def test_in_parallel_the_same_rules_give_the_same_verdicts(at_10):
    small, _, _ = at_10
    parallel, store, critic = review(10, parallel=3)
    assert applied(parallel) == applied(small)
    assert parallel.report.parallel == 3
    assert set(parallel.report.unanswered or {}) == SKIP
    shown = [b for r in parallel.rounds for b in r.shown]
    assert all(shown.count(b) <= SHOWINGS for b in SKIP)
    assert all(shown.count(b) == 1 for b in set(shown) - SKIP)


def test_without_wait_nothing_is_held_back(at_200):
    result, _, _ = review(200, wait=False)
    assert all(not r.details.get("waiting_on") for r in result.rounds)
    # layer 2 is shown in round 1, after layer 1 (shallowest first); what rests on a belief
    # defeated in the same round is still judged (it was shown while that belief was IN)
    assert result.rounds[0].shown[40:] == tuple(sorted(set(f"d2-0{i}" for i in range(8))
                                                       | set(HELD)))
    assert applied(result) >= applied(at_200[0])


def test_a_model_that_judges_nothing_ends_the_run_after_one_pass_and_k_dry_rounds():
    everything = frozenset(f"d1-{i:02}" for i in range(40))
    result, store, critic = review(10, skip=everything)
    outcomes = [r.outcome for r in result.rounds]
    # 4 rounds show layer 1 once (dry, but new); the next two show second showings: the
    # stop; the rest of layer 1, now unanswered, holds back all of layer 2, shown once
    assert outcomes[:6] == [Outcome.DRY] * 6
    assert [r.first_shown for r in result.rounds[:6]] == [10, 10, 10, 10, 0, 0]
    assert result.report.stop_reason is StopReason.DRY_ROUNDS
    assert store.state.reviews.keys() == {e["belief"] for r in result.rounds for e in r.applied}
    assert all(r.calls == 1 for r in result.rounds if r.outcome is not Outcome.EMPTY)
