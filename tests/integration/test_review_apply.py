"""Review on the real Neo4j: verdicts applied in the round's write transaction with the
propagation they cause, checked against the from-scratch labelling (tms.verify) each time;
the review queries of the pack on what review left."""
from __future__ import annotations

import pytest

from adapters.query_pack import load_pack
from engine import tms
from engine.reading import queries
from engine.review.verdicts import defeater_id
from tests.review_fakes import (
    RUN,
    loaded,
    record,
    reply,
    review_round,
    stage,
    verdict,
)

pytestmark = pytest.mark.neo4j

GOOD_REST = [verdict("mixed", 2), verdict("solo", 1), verdict("either", 1), verdict("either", 2)]
SOLO_BAD = [verdict("solo", 1, False), verdict("mixed", 1), verdict("mixed", 2),
            verdict("either", 1), verdict("either", 2)]


def truth(store, bid):
    return tms.show(store, bid)[0].truth.value


def rows(store, name, **params):
    query = queries.find_query(load_pack(), name)
    return queries.json_rows(queries.run_query(store, query, params))


@pytest.fixture
def net(store):
    return loaded(store)


def test_candidates_match_the_network(net):
    cands = {c.id: c for c in net.read(lambda tx: tx.review_candidates())}
    assert sorted(cands) == ["chain", "either", "mixed", "solo", "top"]
    assert cands["chain"].rests_on == ("mixed",) and cands["top"].rests_on == ("solo",)
    assert (cands["top"].depth, cands["top"].review_sha256) == (2, "")


def test_one_bad_and_one_good_justification_stays_in_with_the_bad_one_defeated(net):
    review_round(net, stage(), reply(verdict("mixed", 1, False), *GOOD_REST))
    mixed, _ = tms.show(net, "mixed")
    d = defeater_id("mixed", 1)
    assert mixed.justifications[0].outlist == (d,) and mixed.justifications[1].outlist == ()
    assert truth(net, "mixed") == "IN" and truth(net, d) == "IN"
    assert tms.show(net, d)[0].metadata["source_type"] == "review"
    assert tms.verify(net) == []
    # a finding about the network is not a fact of the domain: derive never samples it
    assert d not in dict(net.read(lambda tx: tx.premise_pool()))
    (row,) = rows(net, "defeated")
    assert (row["belief"], row["justification"], row["defeater"], row["defeating"],
            row["reason"], row["reason_type"]) == ("mixed", 1, d, True, "invalid",
                                                   "missing-bridge")


def test_dependents_of_a_defeated_belief_go_out_and_are_not_sent_next_round(net):
    s = stage()
    _, _, applied = review_round(net, s, reply(*SOLO_BAD))
    assert applied.change.went_out == ["solo", "top"]
    assert tms.verify(net) == []
    nxt = s.read_round(net, 2)
    assert nxt.shown == ("chain",) and "### top" not in nxt.prompt.text


def test_retracting_a_defeater_restores(net):
    review_round(net, stage(), reply(*SOLO_BAD))
    change = tms.retract(net, defeater_id("solo", 1), "the review was wrong")
    assert sorted(change.went_in) == ["solo", "top"]
    assert tms.verify(net) == []
    (row,) = rows(net, "defeated")
    assert row["defeating"] is False and row["truth"] == "IN"
    # the retraction is a person's decision, not a change of the argument: solo stays reviewed
    assert [r["belief"] for r in rows(net, "review_due")] == ["chain", "top"]


def test_a_stale_review_comes_due_again_after_an_antecedent_text_changes(net, driver,
                                                                         neo4j_settings):
    s = stage()
    review_round(net, s, reply(*SOLO_BAD[1:], verdict("solo", 1)))
    review_round(net, s, reply(verdict("chain", 1), verdict("top", 1)), n=2)
    assert s.read_round(net, 3).empty
    assert rows(net, "review_due") == []
    # an edit made outside the engine (no command edits a text): the text, not updated_at
    with driver.session(database=neo4j_settings.database) as session:
        session.run("MATCH (b:Belief {id: $id}) SET b.text = $text",
                    {"id": "p3", "text": "The load test was misread."}).consume()
    assert s.read_round(net, 3).shown == ("mixed", "top")


def test_verdicts_stamps_and_review_of(net):
    review_round(net, stage(), reply(verdict("mixed", 1, False), *GOOD_REST))
    got = rows(net, "review_of", id="mixed")
    assert [(r["justification"], r["valid"], r["action"], r["defeater"], r["defeater_truth"])
            for r in got] == [(1, False, "defeated", defeater_id("mixed", 1), "IN"),
                              (2, True, "valid", None, None)]
    assert got[0]["run"] == RUN.id and got[0]["round"] == 1
    assert rows(net, "review_of", id="p1") == []
    due = rows(net, "review_due")
    assert [(r["belief"], r["why"]) for r in due] == [("chain", "never reviewed"),
                                                      ("top", "never reviewed")]


def test_suggestions_applied_and_reverted(net):
    s = stage(apply_suggestions=True)
    review_round(net, s, reply(verdict("solo", 1, necessary=False,
                                       unnecessary_antecedents=["p2"])))
    d = defeater_id("solo", 1)
    solo, _ = tms.show(net, "solo")
    assert [j.antecedents for j in solo.justifications] == [("p1", "p2"), ("p1", d)]
    assert tms.verify(net) == []
    assert "solo" not in tms.what_if(net, "retract", "p2").went_out
    tms.retract(net, d, "keep the original")
    assert truth(net, "solo") == "IN" and tms.verify(net) == []
    assert "solo" in tms.what_if(net, "retract", "p2").went_out
    (row,) = rows(net, "defeated")
    assert (row["reason"], row["defeating"]) == ("superseded by review", False)


def test_apply_is_all_or_nothing(net):
    from engine.errors import StoreError
    s = stage()
    shown = s.read_round(net, 1)
    parsed = s.parse(reply(verdict("solo", 1, False)), shown)
    with pytest.raises(StoreError):  # no Round 9: recording the verdicts fails
        net.write(lambda tx: s.apply(tx, parsed.items, shown, RUN, record(9)))
    assert not net.read(lambda tx: tx.existing_ids([defeater_id("solo", 1)]))
    assert truth(net, "solo") == "IN"
