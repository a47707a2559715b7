"""An item that repeats its prompt's placeholders or worked example is refused by every
stage's validation with one reason, and the report counts such items."""
from __future__ import annotations

import dataclasses

import pytest

from engine.contradictions.pairs import PairAnswer
from engine.contradictions.stage import (
    ContradictionOptions,
    ContradictionsStage,
    PairSource,
)
from engine.embedding.cache import text_sha256
from engine.derive.proposals import EXAMPLE_ID as DERIVE_EXAMPLE_ID
from engine.derive.proposals import Mode, Proposal, ProposalKind
from engine.derive.validate import read_facts, validate_proposals
from engine.forge.items import ProposedPremise
from engine.forge.prompt import EXAMPLE_ID as FORGE_EXAMPLE_ID
from engine.forge.validate import Ground, check_premises
from engine.review.validate import check_verdicts
from engine.review.verdicts import Verdict
from engine.stages.echo import ECHO_REASON, PromptEcho
from engine.stages.report import RoundResult, Totals
from engine.stages.stage import Skip
from tests.dedup_fakes import dedup_stage, verdict
from tests.derive_fakes import derived, load, premise
from tests.fakes import FakeStore

FORMAT = 'Reply: {"claim": "<one testable statement>", "comment": "<one sentence>"}'


@pytest.mark.parametrize("text", [
    "<one testable statement>",
    "  <One Testable   Statement>. ",
    "`<one sentence>`",
    "<sentence you can check against the file, in your own words>",  # a marker of its own
    "Auth is slow <one sentence>",
    "auth-example-id",
])
def test_placeholders_and_the_example_are_echoes(text):
    assert PromptEcho.of(FORMAT, examples=("auth-example-id",)).echoed("fine", text)


@pytest.mark.parametrize("text", [
    "The auth service validates the JWT on every request.",
    "A List<String> is returned when a < b and c > d.",
    "auth-example-id-is-cached",
    "",
])
def test_real_text_is_not_an_echo(text):
    assert not PromptEcho.of(FORMAT, examples=("auth-example-id",)).echoed(text)


# --- forge ------------------------------------------------------------------------------
TEXT = "The auth service validates the JWT signature on every request."
GROUND = Ground("docs/auth.md", TEXT, 1, "hash-1", "chunk-1")


@pytest.mark.parametrize("pid, claim", [
    ("a-new-testable-statement", "<one testable statement>"),
    ("another-testable-statement",
     "<sentence you can check against the file, in your own words>"),
    (FORGE_EXAMPLE_ID, "Auth tokens expire after 15 minutes."),
    ("auth-claim-rule",
     "One sentence a reader could check against the file, in your own words."),
])
def test_forge_refuses_a_premise_that_echoes_its_prompt(pid, claim):
    items = [ProposedPremise(pid, claim, "validates the JWT signature", 1),
             ProposedPremise("auth-validates-jwt", "Auth validates JWTs.", "validates the JWT", 2)]
    got = check_premises(items, lambda p: GROUND, set())
    assert [p.id for p in got.valid] == ["auth-validates-jwt"]
    assert got.skipped == [Skip(pid, ECHO_REASON, 1)]


# --- derive -----------------------------------------------------------------------------
def proposal(pid: str, text: str = "Both together hold.", label: str = "because") -> Proposal:
    return Proposal(ProposalKind.DERIVE, pid, text, ("a", "b"), (), Mode.ALL, label, 1)


@pytest.mark.parametrize("item", [
    proposal("<new-belief-id>"),
    proposal(DERIVE_EXAMPLE_ID),
    proposal("ab-together", text="<one-sentence conclusion>"),
    proposal("ab-together", label="<short label saying why the antecedents support it>"),
])
def test_derive_refuses_a_proposal_that_echoes_its_prompt(item):
    store = FakeStore()
    load(store, [premise("a"), premise("b")])
    items = [item, proposal("ab-joined")]
    facts = store.read(lambda tx: read_facts(tx, items))
    got = validate_proposals(items, facts)
    assert [p.id for p in got.valid] == ["ab-joined"]
    assert [(s.id, s.reason) for s in got.skipped] == [(item.id, ECHO_REASON)]


# --- review -----------------------------------------------------------------------------
@pytest.mark.parametrize("fields", [
    {"comment": "<one sentence>"},
    {"missing_property": "<text or empty>"},
    {"reason_type": "<type, or none>"},
])
def test_review_refuses_a_verdict_that_echoes_its_prompt(fields):
    v = Verdict("mixed", 1, valid=False, line=3, **fields)
    got = check_verdicts([v], {}, {})
    assert got.skipped == [Skip("mixed#1", ECHO_REASON, 3)] and not got.valid


# --- dedup and contradictions -------------------------------------------------------------
def shop() -> FakeStore:
    store = FakeStore()
    load(store, [premise("a", "Reads are stale."), premise("b", "Reads can be stale."),
                 derived("fast", ["a"], text="Failover is instant."),
                 derived("slow", ["a"], text="Failover takes an hour.")])
    return store


def test_dedup_refuses_a_verdict_that_echoes_its_prompt():
    store = shop()
    good = dataclasses.replace(verdict(store, 1, "DIFFERENT", ["a", "b"]), comment="Distinct.")
    echo = dataclasses.replace(good, cluster=2, comment="<one sentence>")
    got = store.read(lambda tx: dedup_stage().check(tx, [echo, good], None))
    assert got.valid == [good]
    assert [(s.id, s.reason) for s in got.skipped] == [("cluster 2", ECHO_REASON)]


def test_contradictions_refuses_an_answer_that_echoes_its_prompt():
    store = shop()
    shas = (text_sha256("Failover is instant."), text_sha256("Failover takes an hour."))
    good = PairAnswer(1, "COMPATIBLE", "fast", "slow", *shas, comment="Both can hold.")
    echo = dataclasses.replace(good, pair=2, comment="<one sentence>")
    options = ContradictionOptions()
    stage = ContradictionsStage(options, PairSource(None, options))
    got = store.read(lambda tx: stage.check(tx, [echo, good], None))
    assert got.valid == [good]
    assert [(s.id, s.reason) for s in got.skipped] == [("pair 2", ECHO_REASON)]


def test_the_report_counts_echoes():
    first = RoundResult(n=1, skipped=[Skip("x", ECHO_REASON), Skip("y", "already exists")])
    second = RoundResult(n=2, skipped=[Skip("z", ECHO_REASON)])
    totals = Totals.of([first, second], None)
    assert (totals.echoes, totals.skipped) == (2, 3)
    assert totals.to_json()["echoes"] == 2
