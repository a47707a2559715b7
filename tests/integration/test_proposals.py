"""Proposals against the real Neo4j: propose writes nothing in the network, accept applies
in one write transaction with its drift check, reject / withdraw, superseding of older
pending proposals, two accepts of one proposal at once, and bad input writing nothing."""
from __future__ import annotations

import threading

import pytest

from adapters.neo4j.store import Neo4jStore
from engine import interchange, tms
from engine.change_records import LogQuery
from engine.errors import InvalidInput, NotFound, ProposalDrift
from engine.memory import changelog
from engine.proposals import lifecycle
from engine.proposals.records import Status

pytestmark = pytest.mark.neo4j

J = tms.make_justifications


def exported(store) -> str:
    from adapters.formats import dump_network

    return dump_network(interchange.export_network(store))


def network(store):
    tms.add(store, "p", "A premise about the cache.")
    tms.add(store, "q", "Another premise.")
    tms.add(store, "a", "From p: reads are fast.", J(["p"]))
    tms.add(store, "b", "From a and q.", J(["a", "q"]))


def last_seq(store) -> int:
    entries = changelog.log(store, LogQuery(limit=1))
    return entries[0].seq if entries else 0


def acting(store, driver, neo4j_settings, actor: str) -> Neo4jStore:
    return Neo4jStore(driver, neo4j_settings.database, neo4j_settings.uri, actor=actor)


def applied_change(driver, database: str, proposal_id: str) -> dict | None:
    with driver.session(database=database) as session:
        record = session.run("MATCH (:Proposal {id: $id})-[:APPLIED_AS]->(c:Change) "
                             "RETURN c {.*} AS c", {"id": proposal_id}).single()
    return dict(record["c"]) if record else None


def test_propose_writes_nothing_in_the_network_and_accept_applies_it(store, driver,
                                                                     neo4j_settings):
    network(store)
    alice = acting(store, driver, neo4j_settings, "alice")
    bob = acting(store, driver, neo4j_settings, "bob")
    before = exported(store)
    done = lifecycle.propose(alice, "retract", {"id": "p", "reason": "stale"}, "stale")
    p = done.proposal
    assert exported(store) == before and not tms.verify(store)
    assert (p.status, p.proposer, p.target, p.reason) == (Status.PENDING, "alice", "p", "stale")
    assert (p.snapshot.exists, p.snapshot.truth) == (True, "IN")
    assert (p.impact.went_in, p.impact.went_out) == ((), ("a", "b", "p"))
    [entry] = changelog.log(store, LogQuery(limit=1))
    assert (entry.op, entry.actor, entry.went_out) == ("propose", "alice", ())

    accepted = lifecycle.accept(bob, p.id)
    assert sorted(accepted.change.went_out) == ["a", "b", "p"]
    assert {b.id: b.truth.value for b in tms.list_beliefs(store)} == {
        "p": "OUT", "q": "IN", "a": "OUT", "b": "OUT"}
    shown = lifecycle.show_proposal(store, p.id).proposal
    assert (shown.status, shown.decided_by, shown.forced) == (Status.ACCEPTED, "bob", False)
    assert shown.change_seq == accepted.seq == last_seq(store)
    change = applied_change(driver, neo4j_settings.database, p.id)
    assert change is not None and change["seq"] == accepted.seq
    assert (change["op"], change["actor"], change["reason"]) == ("retract", "bob", "stale")
    assert '"proposal": "' + p.id + '"' in change["args"]
    assert '"proposer": "alice"' in change["args"]
    assert sorted(change["went_out"]) == ["a", "b", "p"]
    assert not tms.verify(store)


def test_a_conflicting_change_refuses_the_accept_naming_it_and_force_applies_it(
        store, driver, neo4j_settings):
    network(store)
    p = lifecycle.propose(store, "challenge", {"id": "a", "reason": "measured cold"},
                          "measured cold").proposal
    tms.retract(store, "p", "someone else's change")  # a goes OUT meanwhile
    before, seq = exported(store), last_seq(store)
    with pytest.raises(ProposalDrift) as refused:
        lifecycle.accept(store, p.id)
    assert "target 'a' was IN, is OUT now" in str(refused.value)
    assert refused.value.exit_code == 1
    assert exported(store) == before and last_seq(store) == seq  # nothing written
    assert lifecycle.show_proposal(store, p.id).proposal.status == Status.PENDING
    assert lifecycle.show_proposal(store, p.id).drift == ("target 'a' was IN, is OUT now",)

    forced = lifecycle.accept(store, p.id, force=True)
    assert "challenge:a" in forced.change.went_in
    stored = lifecycle.show_proposal(store, p.id).proposal
    assert stored.forced and stored.drift == ("target 'a' was IN, is OUT now",)
    change = applied_change(driver, neo4j_settings.database, p.id)
    assert change is not None and '"force": true' in change["args"]
    assert not tms.verify(store)


def test_a_text_edited_by_hand_and_a_named_id_added_since_are_drift(store, driver,
                                                                     neo4j_settings):
    network(store)
    p = lifecycle.propose(store, "add-justification",
                          {"id": "a", "justifications": [{"antecedents": ["q", "later"]}]},
                          "a second reason").proposal
    assert p.snapshot.named == {"later": False, "q": True}
    with driver.session(database=neo4j_settings.database) as session:
        session.run("MATCH (b:Belief {id: 'a'}) SET b.text = 'Edited in Browser.'").consume()
    tms.add(store, "later", "Added after the proposal.")
    with pytest.raises(ProposalDrift) as refused:
        lifecycle.accept(store, p.id)
    assert "target 'a' has a different text now" in str(refused.value)
    assert "'later' exists now (it did not when proposed)" in str(refused.value)


def test_reject_and_withdraw(store, driver, neo4j_settings):
    network(store)
    alice = acting(store, driver, neo4j_settings, "alice")
    bob = acting(store, driver, neo4j_settings, "bob")
    one = lifecycle.propose(alice, "retract", {"id": "p"}, "stale").proposal
    two = lifecycle.propose(alice, "retract", {"id": "q"}, "stale too").proposal
    before = exported(store)
    with pytest.raises(InvalidInput, match="reject needs --reason"):
        lifecycle.reject(bob, one.id, "  ")
    rejected = lifecycle.reject(bob, one.id, "p still holds")
    assert (rejected.status, rejected.decided_by, rejected.decision_reason) == (
        Status.REJECTED, "bob", "p still holds")
    with pytest.raises(InvalidInput, match="only its proposer"):
        lifecycle.withdraw(bob, two.id)
    withdrawn = lifecycle.withdraw(alice, two.id)
    assert (withdrawn.status, withdrawn.decided_by) == (Status.WITHDRAWN, "alice")
    assert exported(store) == before
    assert [p.status for p in lifecycle.list_proposals(store)] == [Status.REJECTED,
                                                                   Status.WITHDRAWN]
    assert lifecycle.list_proposals(store, pending=True) == []
    seq = last_seq(store)
    for call in (lambda: lifecycle.accept(bob, one.id), lambda: lifecycle.accept(bob, two.id),
                 lambda: lifecycle.reject(bob, two.id, "late"),
                 lambda: lifecycle.withdraw(alice, one.id)):
        with pytest.raises(InvalidInput, match="not pending"):
            call()
    assert exported(store) == before and last_seq(store) == seq


def test_a_newer_pending_proposal_on_the_same_target_supersedes_older_ones(store):
    network(store)
    first = lifecycle.propose(store, "retract", {"id": "a"}, "one").proposal
    other = lifecycle.propose(store, "retract", {"id": "q"}, "elsewhere").proposal
    second = lifecycle.propose(store, "challenge", {"id": "a", "reason": "doubt"}, "doubt")
    assert second.superseded == (first.id,)
    third = lifecycle.propose(store, "retract", {"id": "a"}, "again")
    assert third.superseded == (second.proposal.id,)
    by_id = {p.id: p for p in lifecycle.list_proposals(store)}
    assert by_id[first.id].status == Status.SUPERSEDED
    assert by_id[first.id].superseded_by == second.proposal.id
    assert by_id[second.proposal.id].status == Status.SUPERSEDED
    assert by_id[other.id].status == Status.PENDING
    assert [p.id for p in lifecycle.list_proposals(store, pending=True)] == [
        other.id, third.proposal.id]
    with pytest.raises(InvalidInput, match=f"superseded by '{second.proposal.id}'"):
        lifecycle.accept(store, first.id)


def test_two_accepts_of_one_proposal_at_once_apply_it_exactly_once(store, driver,
                                                                   neo4j_settings):
    network(store)
    p = lifecycle.propose(store, "retract", {"id": "q"}, "stale").proposal
    stores = [acting(store, driver, neo4j_settings, name) for name in ("ann", "ben")]
    start = threading.Barrier(2)
    outcomes: dict[str, object] = {}

    def accept(s: Neo4jStore, name: str) -> None:
        start.wait()
        try:
            outcomes[name] = lifecycle.accept(s, p.id)
        except InvalidInput as e:
            outcomes[name] = e

    threads = [threading.Thread(target=accept, args=(s, n)) for s, n in zip(stores, ("ann", "ben"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    won = [n for n, o in outcomes.items() if isinstance(o, lifecycle.Accepted)]
    lost = [o for o in outcomes.values() if isinstance(o, InvalidInput)]
    assert len(won) == 1 and len(lost) == 1, outcomes
    assert "is accepted by " + won[0] in str(lost[0])
    retracts = [e for e in changelog.log(store, LogQuery(op="retract"))
                if e.args.get("proposal") == p.id]
    assert len(retracts) == 1 and retracts[0].actor == won[0]
    assert lifecycle.show_proposal(store, p.id).proposal.decided_by == won[0]
    assert not tms.verify(store)


@pytest.mark.parametrize("action, args, error, fragment", [
    ("retract", {"id": "nope"}, NotFound, "no belief with id 'nope'"),
    ("add", {"id": "p", "text": "again"}, InvalidInput, "'p' already exists"),
    ("add", {"id": "Bad Id", "text": "x"}, InvalidInput, "invalid belief id"),
    ("supersede", {"old": "p"}, InvalidInput, "exactly one"),
    ("challenge", {"id": "a", "reason": " "}, InvalidInput, "give a --reason"),
    ("explode", {"id": "p"}, InvalidInput, "a proposal's action is one of"),
])
def test_a_proposal_the_verb_would_refuse_is_refused_and_nothing_is_written(
        store, action, args, error, fragment):
    network(store)
    before, seq = exported(store), last_seq(store)
    with pytest.raises(error, match=fragment):
        lifecycle.propose(store, action, args, "why")
    assert exported(store) == before and last_seq(store) == seq
    assert lifecycle.list_proposals(store) == []


def test_bad_proposal_ids_and_a_missing_reason(store):
    network(store)
    seq = last_seq(store)
    with pytest.raises(NotFound, match="no proposal with id 'prop-9'"):
        lifecycle.accept(store, "prop-9")
    with pytest.raises(NotFound):
        lifecycle.show_proposal(store, "prop-9")
    with pytest.raises(InvalidInput, match="invalid proposal id"):
        lifecycle.withdraw(store, "Prop 9")
    with pytest.raises(InvalidInput, match="needs --reason"):
        lifecycle.propose(store, "retract", {"id": "p"}, "")
    assert last_seq(store) == seq


def test_show_gives_a_fresh_what_if_beside_the_stored_one(store):
    network(store)
    p = lifecycle.propose(store, "retract", {"id": "a"}, "doubt").proposal
    tms.add_justification(store, "b", J(["q"]))  # b now holds by q alone
    shown = lifecycle.show_proposal(store, p.id)
    assert shown.proposal.impact.went_out == ("a", "b")
    assert shown.fresh is not None and shown.fresh.went_out == ("a",)
    assert shown.drift == ()
    tms.retract(store, "a", "done directly")
    again = lifecycle.show_proposal(store, p.id)
    assert again.drift == ("target 'a' was IN, is OUT now",)
