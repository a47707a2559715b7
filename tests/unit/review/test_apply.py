"""Applying verdicts on the in-memory store (labelled by engine.tms.semantics, the definition of
truth): defeaters on exactly the judged justification, cascades, restoring by retraction,
suggestions applied and reverted, stamps and verdict records, all or nothing."""
from __future__ import annotations

import pytest

from engine import tms
from engine.model import Truth
from engine.review.verdicts import defeater_id
from engine.stages.stage import Checked
from tests.fakes import FakeStore
from tests.review_fakes import RUN, loaded, record, reply, review_round, stage, verdict


@pytest.fixture
def store():
    return loaded(FakeStore())


def truth(store, bid):
    return store.state.beliefs[bid].truth


def first_round(store, s, *verdicts):
    return review_round(store, s, reply(*verdicts))


GOOD_REST = [verdict("mixed", 2), verdict("solo", 1), verdict("either", 1), verdict("either", 2)]


def test_one_bad_and_one_good_justification_stays_in_with_the_bad_one_defeated(store):
    s = stage()
    _, _, applied = first_round(store, s, verdict("mixed", 1, False), *GOOD_REST)
    d = defeater_id("mixed", 1)
    mixed = store.state.beliefs["mixed"]
    assert mixed.justifications[0].outlist == (d,)
    assert mixed.justifications[1].outlist == ()  # only THAT justification
    assert truth(store, "mixed") == Truth.IN
    defeater = store.state.beliefs[d]
    assert defeater.is_premise and defeater.truth == Truth.IN
    assert defeater.metadata["source_type"] == "review"
    assert "(missing-bridge)" in defeater.text and "a causal link" in defeater.text
    entry = next(e for e in applied.entries if e["id"] == "mixed#1")
    assert (entry["action"], entry["defeater"], entry["truth_value"]) == ("defeated", d, "IN")
    assert applied.change.went_out == []


def test_a_defeated_beliefs_dependents_go_out_and_are_not_shown_next_round(store):
    s = stage()
    _, _, applied = first_round(store, s, verdict("solo", 1, False),
                                verdict("mixed", 1), verdict("mixed", 2),
                                verdict("either", 1), verdict("either", 2))
    assert truth(store, "solo") == Truth.OUT and truth(store, "top") == Truth.OUT
    assert applied.change.went_out == ["solo", "top"]
    nxt = s.read_round(store, 2)
    assert nxt.shown == ("chain",)
    assert "### top" not in nxt.prompt.text


def test_retracting_a_defeater_restores_the_justification(store):
    s = stage()
    first_round(store, s, verdict("solo", 1, False), verdict("mixed", 1), verdict("mixed", 2),
                verdict("either", 1), verdict("either", 2))
    change = tms.retract(store, defeater_id("solo", 1), "I disagree with the review")
    assert sorted(change.went_in) == ["solo", "top"]
    assert "solo" not in s.read_round(store, 2).shown  # the review still stands as recorded


def test_every_judged_belief_is_stamped_and_every_verdict_recorded(store):
    s = stage()
    first_round(store, s, verdict("mixed", 1, False), *GOOD_REST)
    assert sorted(store.state.reviews) == ["either", "mixed", "solo"]
    stamp = store.state.reviews["mixed"]
    assert stamp.run_id == RUN.id and len(stamp.sha256) == 64
    recorded = {(v.belief_id, v.position): v.fields for _, _, v in store.state.verdicts}
    assert sorted(recorded) == [("either", 1), ("either", 2), ("mixed", 1), ("mixed", 2),
                                ("solo", 1)]
    assert recorded[("mixed", 1)]["valid"] is False
    assert recorded[("mixed", 1)]["reason_type"] == "missing-bridge"
    assert recorded[("mixed", 2)]["action"] == "valid"


def test_a_belief_with_a_justification_left_unjudged_is_not_stamped(store):
    s = stage()
    _, parsed, applied = first_round(store, s, verdict("mixed", 1, False), verdict("solo", 1))
    assert parsed.missing == ["either#1", "either#2", "mixed#2"]
    assert sorted(store.state.reviews) == ["solo"]
    assert truth(store, "mixed") == Truth.IN  # its unjudged justification still holds
    assert [e["stamped"] for e in applied.entries] == [False, True]
    assert s.read_round(store, 2).shown == ("either", "mixed", "top")  # due again, and top


def test_nothing_is_valid_by_default(store):
    s = stage()
    first_round(store, s, {"id": "solo", "justification": 1})
    assert store.state.reviews == {} and store.state.verdicts == []


def test_the_review_hash_stays_current_after_its_own_defeater(store):
    s = stage()
    first_round(store, s, verdict("mixed", 1, False), *GOOD_REST)
    assert s.read_round(store, 2).shown == ("chain", "top")  # mixed is not due again


def test_a_belief_changed_since_it_was_shown_is_skipped(store):
    import dataclasses
    s = stage()
    shown = s.read_round(store, 1)
    parsed = s.parse(reply(verdict("solo", 1, False)), shown)
    b = store.state.beliefs["p1"]
    store.state.beliefs["p1"] = dataclasses.replace(b, text="Edited meanwhile.")
    checked = store.read(lambda tx: s.check(tx, parsed.items, shown))
    assert checked.valid == [] and "changed since it was reviewed" in checked.skipped[0].reason


def test_apply_is_all_or_nothing(store):
    s = stage()
    shown = s.read_round(store, 1)
    parsed = s.parse(reply(verdict("solo", 1, False)), shown)
    # no Round node: recording the verdicts fails, and so does everything before it
    from engine.errors import StoreError
    with pytest.raises(StoreError):
        store.write(lambda tx: s.apply(tx, parsed.items, shown, RUN, record(9)))
    assert defeater_id("solo", 1) not in store.state.beliefs
    assert truth(store, "solo") == Truth.IN


# --- suggestions --------------------------------------------------------------------------
NARROW = verdict("solo", 1, necessary=False, unnecessary_antecedents=["p2"])
SPLIT = verdict("solo", 1, mode="ANY")


def test_suggestions_are_recorded_and_not_applied_by_default(store):
    s = stage()
    _, _, applied = first_round(store, s, NARROW)
    entry = applied.entries[0]
    assert entry["action"] == "suggestion recorded"
    assert entry["suggestion"] == "drop p2 (not load-bearing)"
    assert len(store.state.beliefs["solo"].justifications) == 1


def test_a_narrowing_applied_keeps_the_original_defeated_and_is_reverted_by_one_retraction(store):
    s = stage(apply_suggestions=True)
    _, _, applied = first_round(store, s, NARROW)
    assert applied.entries[0]["action"] == "suggestion applied"
    d = defeater_id("solo", 1)
    solo = store.state.beliefs["solo"]
    assert solo.justifications[0].outlist == (d,)
    assert solo.justifications[1].antecedents == ("p1", d)
    assert store.state.beliefs[d].text.startswith("superseded by review")
    assert store.state.beliefs[d].metadata["review_reason"] == "superseded"
    # narrowed: p2 is no longer needed
    assert tms.what_if(store, "retract", "p2").went_out == ["p2"]
    # reverted: the original holds again, the narrowed one no longer does
    tms.retract(store, d, "keep the original")
    assert truth(store, "solo") == Truth.IN
    assert "solo" in tms.what_if(store, "retract", "p2").went_out
    assert "solo" not in s.read_round(store, 2).shown  # not due again


def test_a_split_into_any_applied_and_reverted(store):
    s = stage(apply_suggestions=True)
    first_round(store, s, SPLIT)
    d = defeater_id("solo", 1)
    solo = store.state.beliefs["solo"]
    assert [j.antecedents for j in solo.justifications[1:]] == [("p1", d), ("p2", d)]
    assert "solo" not in tms.what_if(store, "retract", "p1").went_out  # either one is enough
    tms.retract(store, d)
    assert "solo" in tms.what_if(store, "retract", "p1").went_out


def test_an_invalid_verdict_is_defeated_whatever_it_suggests(store):
    s = stage(apply_suggestions=True)
    _, _, applied = first_round(store, s, verdict("solo", 1, False, mode="ANY"))
    assert applied.entries[0]["action"] == "defeated"
    assert len(store.state.beliefs["solo"].justifications) == 1


def test_a_merge_of_any_siblings_is_recorded_only(store):
    s = stage(apply_suggestions=True)
    _, _, applied = first_round(store, s, verdict("either", 1, mode="ALL"),
                                verdict("either", 2, mode="ALL"))
    assert [e["action"] for e in applied.entries] == ["suggestion recorded"] * 2
    assert len(store.state.beliefs["either"].justifications) == 2


def test_judging_again_keeps_a_defeater_a_person_retracted(store):
    s = stage()
    first_round(store, s, verdict("solo", 1, False), verdict("mixed", 1), verdict("mixed", 2),
                verdict("either", 1), verdict("either", 2))
    d = defeater_id("solo", 1)
    tms.retract(store, d, "disagree")
    again = stage(review_all=True, ids=("solo",), since="9999")
    review_round(store, again, reply(verdict("solo", 1, False)), n=2)
    assert store.state.beliefs[d].retracted and truth(store, "solo") == Truth.IN
    assert store.state.beliefs["solo"].justifications[0].outlist == (d,)


def test_check_reads_only(store):
    s = stage()
    shown = s.read_round(store, 1)
    parsed = s.parse(reply(verdict("solo", 1, False)), shown)
    checked = store.read(lambda tx: s.check(tx, parsed.items, shown))
    assert isinstance(checked, Checked) and [v.key for v in checked.valid] == ["solo#1"]
    assert defeater_id("solo", 1) not in store.state.beliefs
