"""What the negatives stage judges next, and which beliefs are negative now.

A belief is due when it is IN and its text has no verdict yet (a verdict on an older text is
stale: the sha256 differs), or, redoing, one not given by this run. Unless `every`,
only a belief whose text or id has a word that often marks a problem is sent (PROBLEM_WORDS):
a cheap cue that keeps a large network from being read whole; nothing is decided for the
others, which stay without a verdict (no default verdict is written, for any belief). Due
beliefs are taken by id.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from engine.negatives.records import NegativeTx
from engine.stages.problems import is_current
from engine.stages.records import NegativeCandidate
# `list --negative` (engine/service/reading.py) reads them here
from engine.stages.problems import negative_kinds as negative_kinds

PROBLEM_WORDS = frozenset({
    "bug", "bugs", "defect", "defects", "fail", "fails", "failed", "failing", "failure",
    "failures", "error", "errors", "broken", "break", "breaks", "wrong", "incorrect",
    "risk", "risks", "risky", "gap", "gaps", "lack", "lacks", "lacking", "missing",
    "vulnerable", "vulnerability", "insecure", "unsafe", "leak", "leaks", "stale", "outdated",
    "deprecated", "fragile", "brittle", "flaky", "hack", "workaround", "debt", "unimplemented",
    "incomplete", "inconsistent", "unclear", "confusing", "problem", "problems", "issue",
    "issues", "concern", "concerns", "warning", "danger", "dangerous", "threat", "weakness",
    "weak", "limitation", "limitations", "limited", "limit", "constraint", "bottleneck",
    "blocker", "blocked", "blocking", "obstacle", "slow", "slower", "regression",
    "untested", "unmaintained", "legacy", "hardcoded", "hard-coded", "coupled", "unresolved",
    "stalled", "deferred", "cannot", "can't", "unable", "lost", "loses", "corrupt",
    "corrupted", "race", "deadlock", "crash", "crashes", "timeout", "timeouts", "overflow",
})
_WORD = re.compile(r"[a-z][a-z'-]*")


def has_cue(text: str) -> bool:
    """Whether a text (or id) has one of the words that often mark a problem."""
    words = set(_WORD.findall(text.lower()))
    return bool(words & PROBLEM_WORDS) or any(
        part in PROBLEM_WORDS for w in words if "-" in w for part in w.split("-"))


@dataclass(frozen=True)
class Due:
    due: tuple[NegativeCandidate, ...]
    in_beliefs: int  # the IN beliefs looked at
    current: int  # with a verdict on their text as it is
    no_cue: int  # not sent: no problem word (with `every`, 0)


def read_due(tx: NegativeTx, *, ids: Sequence[str] = (), every: bool = False, redo: bool = False,
             this_run: str = "") -> Due:
    """`redo`: a verdict is judged again unless `this_run` gave it (so a run that redoes
    everything judges each belief once)."""
    candidates = tx.negative_candidates(list(ids) or None)
    due: list[NegativeCandidate] = []
    current = no_cue = 0
    for c in candidates:
        if is_current(c) and not (redo and c.run != this_run):
            current += 1
        elif not every and not has_cue(f"{c.id} {c.text}"):
            no_cue += 1
        else:
            due.append(c)
    return Due(tuple(due), len(candidates), current, no_cue)

