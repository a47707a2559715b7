"""A whole derive run with a scripted fake model against the real Neo4j store: rounds applied
with their provenance, labels equal to the from-scratch ones, a cascade on retraction, the
report on disk, and a proposals file accepted later."""
from __future__ import annotations

import json

import pytest

from engine import tms
from engine.derive.accept import accept
from engine.stages.calls import CallPolicy
from engine.stages.report import ReportFile
from engine.derive.run import DeriveOptions, derive
from engine.model import Truth
from tests.derive_fakes import (
    RecordingModelForRound,
    ScriptedChatModel,
    alphabetical,
    block,
    intra_cluster,
    load,
    premise,
    reply,
)

pytestmark = pytest.mark.neo4j

PREMISES = [
    premise("auth-jwt-validation", "The auth service validates JWTs synchronously."),
    premise("auth-token-refresh", "Token refresh runs on a single thread."),
    premise("db-pool-default", "The connection pool defaults to 10 connections."),
    premise("db-sync-writes", "Writes are synchronous."),
    premise("bug-auth-timeout", "A timeout bug in auth is open."),
]


def truths(store, ids):
    return {i: b.truth for i, b in store.read(lambda tx: tx.get_beliefs(ids)).items()}


def test_exhaust_run_end_to_end(store, tmp_path):
    load(store, PREMISES)
    round1 = reply(
        block("auth-bottleneck", ["auth-jwt-validation", "auth-token-refresh"],
              text="Auth is a bottleneck."),
        block("db-write-latency", ["db-pool-default", "db-sync-writes"], mode="ANY",
              text="Writes may queue."),
        block("auth-hallucinated", ["auth-jwt-validation", "auth-oauth-flow"]),
    )
    round2 = reply(block("system-latency-risk", ["auth-bottleneck", "db-write-latency"],
                         kind="GATE", unless=["bug-auth-timeout"],
                         text="Latency is the main risk."))
    chat = ScriptedChatModel(script=["I think there are connections.", round1, round2,
                                     "NO PROPOSALS"])
    path = tmp_path / "reports" / "derive-e2e.json"
    result = derive(store, RecordingModelForRound(chat), alphabetical(),
                    DeriveOptions(model="scripted", exhaust=True, auto=True,
                                  calls=CallPolicy(sleep=lambda s: None),
                                  params={"exhaust": True}),
                    report=ReportFile(path))
    assert result.status == "complete"
    assert [r.outcome for r in result.rounds] == ["proposed", "proposed", "dry"]
    assert result.rounds[0].calls == 2  # the format-failure retry
    assert [s.id for s in result.rounds[0].skipped] == ["auth-hallucinated"]
    # round 2 saw round 1's conclusions in its derived section
    assert "#### [IN] depth-1: `auth-bottleneck`" in result.rounds[1].prompt

    ids = ["auth-bottleneck", "db-write-latency", "system-latency-risk"]
    assert truths(store, ids) == {"auth-bottleneck": Truth.IN, "db-write-latency": Truth.IN,
                                  "system-latency-risk": Truth.OUT}  # the bug is IN
    assert tms.verify(store) == []

    (p,) = store.read(lambda tx: tx.derive_provenance("system-latency-risk"))
    assert (p.run.id, p.run.model, p.round.round, p.round.strategy) == (
        result.run_id, "scripted", 2, "alphabetical")
    assert p.round.prompt_sha256 == result.rounds[1].prompt_sha256
    assert (p.kind, p.mode, p.label) == ("GATE", "ALL", "because")

    # the cascade: the bug is fixed, the gate opens; a premise goes, its conclusions follow
    tms.retract(store, "bug-auth-timeout")
    assert truths(store, ["system-latency-risk"]) == {"system-latency-risk": Truth.IN}
    tms.retract(store, "db-pool-default")  # ANY: db-sync-writes still holds it up
    assert truths(store, ids) == {"auth-bottleneck": Truth.IN, "db-write-latency": Truth.IN,
                                  "system-latency-risk": Truth.IN}
    tms.retract(store, "auth-token-refresh")  # ALL: auth-bottleneck goes, and the gate
    assert truths(store, ids) == {"auth-bottleneck": Truth.OUT, "db-write-latency": Truth.IN,
                                  "system-latency-risk": Truth.OUT}
    assert tms.verify(store) == []

    report = json.loads(path.read_text())
    assert report["status"] == "complete" and report["totals"]["applied"] == 3
    assert report["rounds"][0]["responses"] == ["I think there are connections.", round1]
    assert report["rounds"][1]["applied"] == [{"id": "system-latency-risk",
                                               "truth_value": "OUT"}]


def test_intra_cluster_run_rotates_and_waits_for_every_cluster(store):
    load(store, PREMISES)
    sampler = intra_cluster([["auth-jwt-validation", "auth-token-refresh"],
                             ["db-pool-default", "db-sync-writes"], ["bug-auth-timeout"]])
    script = ["NO PROPOSALS", reply(block("db-write-latency",
                                          ["db-pool-default", "db-sync-writes"])),
              "NO PROPOSALS", "NO PROPOSALS", "NO PROPOSALS"]
    result = derive(store, RecordingModelForRound(ScriptedChatModel(script=script)), sampler,
                    DeriveOptions(exhaust=True, intra_cluster=True,
                                  calls=CallPolicy(sleep=lambda s: None)))
    assert [(r.cluster, r.outcome) for r in result.rounds] == [
        (0, "dry"), (1, "proposed"), (2, "dry"), (0, "dry"), (1, "dry")]
    rounds = store.read(lambda tx: tx.derive_provenance("db-write-latency"))
    assert [(p.round.round, p.round.cluster, p.round.strategy) for p in rounds] == [
        (2, 1, "intra-cluster")]


def test_a_failed_round_leaves_the_graph_as_it_was(store):
    load(store, PREMISES)
    script = [reply(block("auth-bottleneck", ["auth-jwt-validation", "auth-token-refresh"])),
              ValueError("400 bad request")]
    result = derive(store, RecordingModelForRound(ScriptedChatModel(script=script)),
                    alphabetical(), DeriveOptions(exhaust=True,
                                                  calls=CallPolicy(sleep=lambda s: None)))
    assert result.status == "error" and "400 bad request" in result.error
    status = tms.status(store)
    assert (status.beliefs, status.derived) == (6, 1)


def test_proposals_file_then_accept(store, tmp_path):
    load(store, PREMISES)
    out = tmp_path / "proposed-derivations.md"
    chat = ScriptedChatModel(script=[reply(
        block("auth-bottleneck", ["auth-jwt-validation", "auth-token-refresh"]))])
    derive(store, RecordingModelForRound(chat), alphabetical(),
           DeriveOptions(model="scripted", output=out))
    assert tms.status(store).derived == 0
    result = accept(store, out)
    assert result.applied.entries == [{"id": "auth-bottleneck", "truth_value": Truth.IN}]
    (p,) = store.read(lambda tx: tx.derive_provenance("auth-bottleneck"))
    assert p.round.strategy == "accept" and p.run.model == "scripted"
