"""Helpers for premise review tests: a source file, four premises pinned to it as forge
pins them (and three beliefs resting on them), and the verdicts a scripted reviewer gives."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from engine.model import Belief, Justification
from engine.sources.records import SourcePin, SourceRecord
from engine.tms import add_beliefs_in

DOC = """\
# Auth
The auth service validates a JWT on every request.
Signing keys are fetched from the identity provider at startup and cached for an hour.
A load test showed p99 auth latency of 900 ms under peak load.

# Gateway
The gateway forwards requests after auth succeeds.
"""
PATH = "docs/auth.md"
PINS = {  # premise -> (claim, pinned line)
    "jwt-every-request": ("The auth service validates a JWT on every request.", 2),
    "keys-fetched-per-request": ("Signing keys are fetched synchronously on every request.", 3),
    "auth-latency-900ms": ("Auth latency is 900 ms.", 4),
    "gateway-waits-for-auth": ("The gateway waits for auth before routing.", 7),
}
CONFIRM = {"id": "jwt-every-request", "verdict": "confirmed", "kind": "",
           "quote": "validates a JWT on every request", "narrower": "", "comment": "stated"}
MISREAD = {"id": "keys-fetched-per-request", "verdict": "misread", "kind": "misread",
           "quote": "fetched from the identity provider at startup and cached", "narrower": "",
           "comment": "the keys are fetched at startup, not per request"}
NARROWER = "Under peak load, a load test showed p99 auth latency of 900 ms."
PARTIAL = {"id": "auth-latency-900ms", "verdict": "partial", "kind": "",
           "quote": "A load test showed p99 auth latency of 900 ms under peak load",
           "narrower": NARROWER, "comment": "only p99, only under peak load"}
UNGROUNDED = {"id": "gateway-waits-for-auth", "verdict": "confirmed", "kind": "",
              "quote": "the gateway blocks until auth returns", "narrower": "", "comment": ""}
GROUNDED = dict(UNGROUNDED, quote="forwards requests after auth succeeds")


def reply(*verdicts: dict) -> str:
    return json.dumps({"verdicts": list(verdicts)})


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def write_source(root: Path) -> Path:
    (root / "docs").mkdir(parents=True, exist_ok=True)
    (root / PATH).write_text(DOC, encoding="utf-8")
    return root


def load_pinned(store) -> None:
    """The four premises pinned as forge pins them; `keys-block` rests on the misread one,
    `latency-matters` on the partial one, `auth-sound` on the confirmed and misread ones."""
    beliefs = [Belief(i, claim) for i, (claim, _) in PINS.items()] + [
        Belief("keys-block", "Key fetches block request validation.",
               (Justification(("keys-fetched-per-request",)),)),
        Belief("latency-matters", "Auth latency matters for routing.",
               (Justification(("auth-latency-900ms", "gateway-waits-for-auth")),)),
        Belief("auth-sound", "Auth is sound and slow.",
               (Justification(("jwt-every-request", "keys-fetched-per-request")),)),
    ]
    file_sha = sha(DOC)

    def work(tx):
        add_beliefs_in(tx, beliefs)
        tx.save_sources([SourceRecord(PATH, file_sha, len(DOC), "2026-12-03T08:00:00+00:00")])
        tx.pin_to_sources([SourcePin(i, PATH, file_sha, (n, n),
                                     {"quote": claim, "lines": [n, n]}, "2026-12-03T08:00:00")
                           for i, (claim, n) in PINS.items()])

    store.write(work)
