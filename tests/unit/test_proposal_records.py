"""What a proposal depends on and how drift is named (engine/proposals/records.py), and the
actions' checks before anything is written (engine/proposals/actions.py): pure, no store."""
from __future__ import annotations

import pytest

from engine.errors import InvalidInput
from engine.proposals.actions import (
    check_action,
    justification_args,
    justification_from_args,
    named_of,
    target_of,
)
from engine.proposals.records import Snapshot, drift
from engine.tms import make_justifications


def snap(**kw) -> Snapshot:
    base = {"target": "a", "exists": True, "truth": "IN", "text_sha256": "x", "named": {}}
    return Snapshot(**{**base, **kw})


def test_an_unchanged_snapshot_has_no_drift_and_survives_its_json():
    s = snap(named={"b": True, "later": False})
    assert drift(s, Snapshot.from_dict(s.as_dict())) == []


@pytest.mark.parametrize("now, line", [
    (snap(exists=False, truth="", text_sha256="", named={"b": True}),
     "target 'a' no longer exists"),
    (snap(truth="OUT", named={"b": True}), "target 'a' was IN, is OUT now"),
    (snap(text_sha256="y", named={"b": True}), "target 'a' has a different text now"),
    (snap(named={"b": False}), "'b' no longer exists"),
])
def test_each_change_is_named(now, line):
    assert drift(snap(named={"b": True}), now) == [line]


def test_a_new_belief_at_the_target_or_a_named_id_is_drift():
    then = Snapshot("n", False, named={"later": False})
    now = Snapshot("n", True, "IN", "z", named={"later": True})
    assert drift(then, now) == ["target 'n' exists now (it did not when proposed)",
                                "'later' exists now (it did not when proposed)"]


def test_targets_and_named_ids():
    [j] = make_justifications(["p", "q"], unless=["x"], label="why")
    assert justification_from_args(justification_args(j)) == j
    add = {"id": "n", "text": "N.", "justifications": [justification_args(j)]}
    assert (target_of("add", add), named_of("add", add)) == ("n", ["p", "q", "x"])
    sup = {"old": "a", "new": "b"}
    assert (target_of("supersede", sup), named_of("supersede", sup)) == ("a", ["b"])


@pytest.mark.parametrize("action, args, fragment", [
    ("explode", {"id": "a"}, "a proposal's action is one of"),
    ("retract", {}, "retract needs id"),
    ("add", {"id": "n", "text": " "}, "empty text"),
    ("add", {"id": "n", "text": "N.", "justifications": [{"antecedents": ["Bad"]}]},
     "invalid antecedent id"),
    ("add-justification", {"id": "a", "justifications": []}, "needs --sl"),
    ("supersede", {"old": "a", "new": "b", "text": "T."}, "exactly one"),
    ("challenge", {"id": "a", "reason": "x", "justification": 0}, "counts from 1"),
    ("add", {"id": "n", "text": "N.", "justifications": [{"kind": "XX"}]}, "kind takes"),
])
def test_bad_actions_are_refused_before_anything_is_written(action, args, fragment):
    with pytest.raises(InvalidInput, match=fragment):
        check_action(action, args)
