"""engine/reading/blockers.py on the in-memory store: what holds conclusions OUT, grouped."""
from __future__ import annotations

import pytest

from engine import tms
from engine.clock import now_iso
from engine.errors import InvalidInput
from engine.reading.blockers import find_blockers
from tests.fakes import FakeStore


@pytest.fixture
def store() -> FakeStore:
    return build()


def build() -> FakeStore:
    s = FakeStore()
    for bid in ("p", "q", "bug-412", "bug-7", "flag"):
        tms.add(s, bid, f"premise {bid}", ())
    for bid in ("a", "b", "c"):
        tms.add(s, bid, f"gated {bid}", tms.make_justifications(["p"], unless=["bug-412"]))
    tms.add(s, "d", "two bugs", tms.make_justifications(["q"], unless=["bug-412", "bug-7"]))
    tms.add(s, "e", "rests on a", tms.make_justifications(["a"], unless=["bug-7"]))  # a is OUT
    tms.add(s, "f1", "from the flag", tms.make_justifications(["flag"]))
    tms.add(s, "f2", "from f1", tms.make_justifications(["f1"]))
    tms.retract(s, "flag", "removed in 2.0")
    tms.retract(s, "c", "not wanted")  # retracted: the user holds it OUT, not the gate
    return s


def test_groups_by_closers_biggest_first():
    before = now_iso()
    store = build()
    after = now_iso()
    found = find_blockers(store).as_dict()
    assert [(g["closers"], [c["id"] for c in g["comes_back"]]) for g in found["blockers"]] == [
        (["bug-412"], ["a", "b"]), (["bug-412", "bug-7"], ["d"])]
    (premise,) = found["retracted_premises"]
    at = premise.pop("retracted_at")
    assert before <= at <= after  # the time of the retraction, as the clock writes it
    assert premise == {"id": "flag", "text": "premise flag", "reason": "removed in 2.0",
                       "resting": 2}


def test_limit_cuts_groups_and_refuses_nonsense(store):
    assert len(find_blockers(store, limit=1).groups) == 1
    with pytest.raises(InvalidInput):
        find_blockers(store, limit=0)
