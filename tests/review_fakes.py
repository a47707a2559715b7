"""Helpers for review tests: a small network with known shapes, verdict objects and replies
for scripted chat models (tests.derive_fakes.ScriptedChatModel), and a round driven through
the stage's own parts (read, parse, apply in one write) where the shared machinery is not
the point of the test."""
from __future__ import annotations

import json
from typing import Any

from engine.model import Belief, Justification
from engine.review.stage import ReviewSettings, ReviewStage
from engine.stages.provenance import RoundRecord, RunRecord
from tests.derive_fakes import derived, load, premise

RUN = RunRecord(id="review-run-1", model="fake", started_at="2026-12-03T08:00:00+00:00",
                params={"budget": 20}, stage="review")


def network() -> list[Belief]:
    """p1..p4 premises; `mixed` has a justification over p1, p2 and one over p3; `chain`
    rests on `mixed` and p4; `solo` on p1 and p2 alone; `top` on `solo` and p3;
    `either` is an ANY derivation (two one-antecedent justifications, one label)."""
    return [
        premise("p1", "The auth service validates a JWT on every request."),
        premise("p2", "JWT validation fetches signing keys synchronously."),
        premise("p3", "A load test showed p99 auth latency of 900 ms."),
        premise("p4", "The gateway waits for auth before routing."),
        derived("mixed", ("p1", "p2"), ("p3",), text="Auth is a latency bottleneck."),
        derived("chain", ("mixed", "p4"), text="Every routed request pays the auth latency."),
        derived("solo", ("p1", "p2"), text="Key fetches block request validation."),
        derived("top", ("solo", "p3"), text="Blocking key fetches cause the p99 latency."),
        Belief("either", "Requests are authenticated.", (
            Justification(("p1",), (), label="auth evidence"),
            Justification(("p4",), (), label="auth evidence"))),
    ]


def verdict(bid: str, n: int, valid: Any = True, **fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"id": bid, "justification": n, "valid": valid,
                           "sufficient": True, "necessary": True,
                           "unnecessary_antecedents": [], "mode": "ALL",
                           "reason_type": "none" if valid is True else "missing-bridge",
                           "missing_property": "" if valid is True else "a causal link",
                           "comment": "ok" if valid is True else "does not follow"}
    out.update(fields)
    return {k: v for k, v in out.items() if v is not ...}


def reply(*verdicts: dict[str, Any]) -> str:
    return json.dumps({"verdicts": list(verdicts)})


def record(n: int = 1, run: RunRecord = RUN) -> RoundRecord:
    return RoundRecord(run_id=run.id, round=n, prompt_sha256="0" * 64, strategy="dependency order",
                       stage="review")


def open_round(tx, run: RunRecord, rec: RoundRecord) -> None:
    """What the machinery writes before stage.apply: the Run (once) and the Round."""
    tx.create_run(run)
    tx.record_round(rec)


def review_round(store, stage: ReviewStage, text: str, n: int = 1, run: RunRecord = RUN):
    """One round with a fixed reply: read, parse, and apply in one write transaction."""
    shown = stage.read_round(store, n)
    parsed = stage.parse(text, shown)
    applied = store.write(lambda tx: (open_round(tx, run, record(n, run)),
                                      stage.apply(tx, parsed.items, shown, run, record(n, run)))[1])
    return shown, parsed, applied


def stage(since: str | None = None, **settings: Any) -> ReviewStage:
    return ReviewStage(ReviewSettings(**settings), since=since)


def loaded(store) -> Any:
    load(store, network())
    return store


CARRIERS = ("k1", "k2", "k3")


def carried_network() -> list[Belief]:
    """Three unreviewed beliefs carrying most of the rest: twelve leaves a00..a11 and the
    carriers k1..k3 all rest on premises only (depth 1; the leaves come first by id), and ten
    beliefs rest on each carrier (depth 2): 30 of the other 42 derived beliefs."""
    beliefs = [premise(f"p{i}", f"Premise number {i} holds.") for i in range(4)]
    beliefs += [derived(f"a{i:02}", ("p0", "p1"), text=f"Leaf claim {i}.") for i in range(12)]
    beliefs += [derived(k, ("p2", "p3"), text=f"Carrying claim {k}.") for k in CARRIERS]
    beliefs += [derived(f"c{k}-{j}", (k, "p0"), text=f"Claim {j} resting on {k}.")
                for k in CARRIERS for j in range(10)]
    return beliefs
