"""Applying a round: ALL / ANY / GATE justifications, then how each cascades on retraction;
provenance; all or nothing when a step fails."""
from __future__ import annotations

import pytest

from engine import tms
from engine.derive.apply import justifications_for
from engine.derive.proposals import Mode, Proposal, ProposalKind
from engine.derive.options import DeriveOptions
from engine.derive.stage import DeriveStage
from engine.derive.validate import ValidationRules
from engine.errors import StoreError
from engine.model import Justification, Kind, Truth
from engine.stages.provenance import RoundRecord, RunRecord
from engine.stages.rounds import apply_round
from tests.derive_fakes import load, premise
from tests.fakes import FakeStore, FakeTx

RUN = RunRecord(id="run-1", model="fake", started_at="2025-01-01T00:00:00+00:00",
                params={"budget": 300})
RECORD = RoundRecord(run_id="run-1", round=1, strategy="alphabetical", cluster=None,
                     prompt_sha256="0" * 64, tokens_in=10, tokens_out=5, seconds=1.5,
                     at="2025-01-01T00:00:01+00:00")

ALL = Proposal(ProposalKind.DERIVE, "all-ab", "Needs both.", ("a", "b"), (), Mode.ALL, "both")
ANY = Proposal(ProposalKind.DERIVE, "any-ab", "Either will do.", ("a", "b"), (), Mode.ANY,
               "either")
GATE = Proposal(ProposalKind.GATE, "gate-ab", "Holds unless the bug.", ("a", "b"), ("bug",),
                Mode.ALL, "gated")
GATE_ANY = Proposal(ProposalKind.GATE, "gate-any", "Either, unless the bug.", ("a", "b"),
                    ("bug",), Mode.ANY, "gated either")


@pytest.fixture
def store():
    s = FakeStore()
    load(s, [premise("a"), premise("b"), premise("bug", "A critical bug is open.")])
    return s


def apply(store, proposals, rules=ValidationRules()):
    stage = DeriveStage(None, DeriveOptions(rules=rules))
    return store.write(lambda tx: apply_round(tx, stage, proposals, None, RUN, RECORD))


def truth(store, bid):
    return store.state.beliefs[bid].truth


def test_justification_shapes():
    assert justifications_for(ALL) == (Justification(("a", "b"), (), Kind.SL, "both"),)
    assert justifications_for(ANY) == (Justification(("a",), (), Kind.SL, "either"),
                                       Justification(("b",), (), Kind.SL, "either"))
    assert justifications_for(GATE) == (Justification(("a", "b"), ("bug",), Kind.SL, "gated"),)
    assert justifications_for(GATE_ANY) == (
        Justification(("a",), ("bug",), Kind.SL, "gated either"),
        Justification(("b",), ("bug",), Kind.SL, "gated either"))


def test_applied_beliefs_and_their_labels(store):
    w = apply(store, [ALL, ANY, GATE, GATE_ANY])
    assert [(e["id"], e["truth_value"]) for e in w.entries] == [
        ("all-ab", Truth.IN), ("any-ab", Truth.IN), ("gate-ab", Truth.OUT), ("gate-any", Truth.OUT)]
    assert sorted(w.change.went_in) == ["all-ab", "any-ab"]
    b = store.state.beliefs["all-ab"]
    assert b.text == "Needs both." and b.depth == 1
    assert b.metadata["source_type"] == "derived"
    assert b.metadata["derive_run"] == "run-1" and b.metadata["derive_round"] == 1
    assert b.created_at == "2025-01-01T00:00:01+00:00"


def test_all_any_gate_cascade_on_retraction(store):
    apply(store, [ALL, ANY, GATE, GATE_ANY])
    tms.retract(store, "a")
    assert truth(store, "all-ab") == Truth.OUT  # ALL needs a
    assert truth(store, "any-ab") == Truth.IN  # ANY still has b
    tms.retract(store, "bug")  # the bug is fixed: the gates open
    assert truth(store, "gate-ab") == Truth.OUT  # still needs a
    assert truth(store, "gate-any") == Truth.IN  # b alone, bug OUT
    tms.assert_belief(store, "a")
    assert truth(store, "all-ab") == Truth.IN and truth(store, "gate-ab") == Truth.IN
    tms.retract(store, "b")
    assert truth(store, "any-ab") == Truth.IN and truth(store, "all-ab") == Truth.OUT
    tms.retract(store, "a")
    assert truth(store, "any-ab") == Truth.OUT and truth(store, "gate-any") == Truth.OUT
    tms.assert_belief(store, "bug")  # the bug again: even with a and b back, gates close
    tms.assert_belief(store, "a")
    tms.assert_belief(store, "b")
    assert truth(store, "gate-ab") == Truth.OUT and truth(store, "gate-any") == Truth.OUT
    assert truth(store, "all-ab") == Truth.IN and truth(store, "any-ab") == Truth.IN


def test_provenance_is_written_in_the_same_transaction(store):
    apply(store, [ALL, GATE])
    assert store.state.runs == {"run-1": RUN}
    (r,) = store.state.rounds
    assert [(run_id, n, tuple(p.values())) for run_id, n, p in store.state.proposed] == [
        ("run-1", 1, ("all-ab", "DERIVE", "ALL", "both")),
        ("run-1", 1, ("gate-ab", "GATE", "ALL", "gated"))]
    (prov,) = store.read(lambda tx: tx.derive_provenance("gate-ab"))
    assert prov.run.model == "fake" and prov.round.round == 1
    assert (prov.kind, prov.mode, prov.label) == ("GATE", "ALL", "gated")


def test_invalid_proposals_are_skipped_not_applied(store):
    bad = Proposal(ProposalKind.DERIVE, "ghostly", "Rests on a ghost.", ("a", "ghost"))
    w = apply(store, [ALL, bad])
    assert [e["id"] for e in w.entries] == ["all-ab"]
    assert [s.id for s in w.checked.skipped] == ["ghostly"]
    assert "ghostly" not in store.state.beliefs


def test_a_dry_round_records_the_round_without_beliefs(store):
    w = apply(store, [])
    assert w.entries == [] and len(store.state.rounds) == 1
    assert store.state.proposed == []


class FailingTx(FakeTx):
    fail_at = ""

    def _maybe_fail(self, step):
        if step == self.fail_at:
            raise StoreError(f"injected failure in {step}")

    def relabel(self, seeds):
        change = super().relabel(seeds)
        self._maybe_fail("relabel")
        return change

    def link_proposed(self, run_id, round_n, proposed):
        self._maybe_fail("link_proposed")
        return super().link_proposed(run_id, round_n, proposed)

    def get_beliefs(self, ids):
        found = super().get_beliefs(ids)
        if any(i in ("all-ab",) for i in ids):
            self._maybe_fail("read_back")
        return found


class FailingStore(FakeStore):
    def __init__(self, fail_at):
        super().__init__()
        self.fail_at = fail_at

    def write(self, work, entry=None):
        draft = self.state.copy()
        tx = FailingTx(draft)
        tx.fail_at = self.fail_at
        result = work(tx)
        self.state = draft
        self.writes += 1
        return result


@pytest.mark.parametrize("step", ["relabel", "link_proposed", "read_back"])
def test_a_failure_in_the_middle_of_apply_leaves_nothing_applied(step):
    s = FailingStore("")
    load(s, [premise("a"), premise("b"), premise("bug")])
    s.fail_at = step
    before = dict(s.state.beliefs)
    with pytest.raises(StoreError, match="injected"):
        apply(s, [ALL, ANY, GATE])
    assert s.state.beliefs == before
    assert s.state.runs == {} and s.state.rounds == []
