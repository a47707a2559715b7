"""The verbs users of ftl-reasons and reasonsforge miss here (issue 38), against the real Neo4j:
what each writes, what it reports, and its change-log entry."""
from __future__ import annotations

import pytest

from engine import tms
from engine.change_records import LogQuery
from engine.memory import changelog
from engine.memory.summaries import summarize
from engine.model import Truth

pytestmark = pytest.mark.neo4j

J = tms.make_justifications


def last_entry(store):
    return changelog.log(store, LogQuery(limit=1))[0]


def truth(store, *ids):
    found = tms.show_many(store, ids)
    return tuple(found[i].truth if i in found else None for i in ids)


# --- summarize's change-log entry (the defect) ---------------------------------------------
def test_summarize_logs_its_op_and_what_it_summarized(store):
    tms.add(store, "a", "A premise.")
    tms.add(store, "b", "Another premise.")
    summarize(store, "ab", "A and B together.", ["b", "a"])
    entry = last_entry(store)
    assert (entry.op, dict(entry.args)) == ("summarize", {"id": "ab", "over": ["b", "a"]})
    assert entry.created == ("ab",)


# --- default nogood ids ------------------------------------------------------------------
def test_a_nogood_is_named_by_its_sorted_members_and_a_repeat_gets_a_number(store):
    for bid in ("zeta", "alpha", "mid"):
        tms.add(store, bid, f"The {bid} premise.")
    tms.add_nogood(store, ["zeta", "alpha"])
    tms.assert_belief(store, "alpha")
    tms.assert_belief(store, "zeta")
    tms.add_nogood(store, ["alpha", "zeta"])
    tms.add_nogood(store, ["mid", "alpha", "zeta"])
    ids = sorted(n.id for n in store.read(lambda tx: tx.nogoods()))
    assert ids == ["nogood-alpha-mid-zeta", "nogood-alpha-zeta", "nogood-alpha-zeta-2"]
    assert dict(last_entry(store).args) == {"id": "nogood-alpha-mid-zeta",
                                            "members": ["mid", "alpha", "zeta"]}


def test_a_long_default_nogood_id_is_cut_to_fit_an_id(store):
    long_ids = [f"{c * 60}" for c in "abcd"]
    for bid in long_ids:
        tms.add(store, bid, "A premise with a long id.")
    tms.add_nogood(store, long_ids)
    tms.add_nogood(store, long_ids)
    ids = sorted(n.id for n in store.read(lambda tx: tx.nogoods()))
    assert len(ids[0]) <= 190 and ids[1] == ids[0] + "-2"
    assert ids[0].startswith("nogood-" + "a" * 60 + "-" + "b" * 60)
    assert truth(store, *long_ids).count(Truth.OUT) >= 1
