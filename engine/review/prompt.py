"""The review prompt: fixed sections (Background, Task, Reason types, Answer format), then
`## Beliefs to review`, one `### <id> (depth d)` block per belief with its claim and each
justification under `Justification <n>` (1-based, in the belief's order) with its mode and
label, each antecedent as `` `id` `` with its full text (and its label, [OUT] or
[UNDETERMINED], when it is not IN), each Unless id with its label and text; then the round's
counts; RETRY, the one retry's words (and the parser's combine). Pure text building; the
material comes from engine.stages.arguments. Every word of the
fixed part is paid for in every round: scripts/bench/review_tokens.py measures it.
"""
from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from engine.stages.arguments import Named, ShownJustification, UnderReview
from engine.review.parser import combine
from engine.review.verdicts import NO_REASON, REASON_TYPES
from engine.stages.item_reader import ItemsRetry, justification_named
from engine.stages.stage import Prompt

INTRO = ("You are a strict critic of a belief network. Judge each justification of each "
         "derived belief below: does its claim really follow from what it names?")

BACKGROUND = """\
## Background

A reason maintenance system keeps the network. Premises are observed facts. A derived belief
holds while one of its justifications holds; a justification holds while all its antecedents
are IN (believed) and all its Unless ids are OUT. Retract a belief and all that rests on it
goes OUT too, so each justification must state exactly what its claim depends on.
Mode ALL: the claim needs all antecedents together. Mode ANY: each antecedent supports the
claim alone (stored as one justification per antecedent).
Antecedents are IN unless marked [OUT]. A justification you find invalid is switched off;
a belief left with no valid justification goes OUT, and what rests on it follows."""

TASK = """\
## Task

For every justification shown, judge the step from its antecedents to the claim (not
whether the antecedents are true; they are reviewed on their own):
- valid: the claim follows from these antecedents as written;
- sufficient: they are enough for the whole claim;
- necessary: each is load-bearing; list those that are not in unnecessary_antecedents;
- mode: the mode it should have, ALL or ANY;
- when not valid: a reason type from the list below, the missing property (what the claim
  asserts that the antecedents do not give), and per antecedent what it establishes and
  what it does not.
Say valid only when the step holds."""

FORMAT = """\
## Answer format

Only one JSON object, with one verdict per justification shown, none left out, ids and
numbers exactly as shown:
{"verdicts": [{"id": "<belief id>", "justification": <n>, "valid": <bool>,
 "sufficient": <bool>, "necessary": <bool>, "unnecessary_antecedents": ["<id>"],
 "mode": "ALL|ANY", "reason_type": "<type, or none>", "missing_property": "<text or empty>",
 "comment": "<one sentence>", "antecedents": [{"id": "<id>", "establishes": "<text>",
 "does_not_establish": "<text>"}]}]}"""
RETRY = ItemsRetry(without="a verdict", named=justification_named, answer_format=FORMAT,
                   request="Reply again with verdicts on every justification shown, in "
                           "exactly this format:", combine=combine)


@dataclass(frozen=True)
class ReviewPrompt(Prompt):
    """The shared prompt (text, sha256) and what review shows: beliefs, justifications."""

    belief_ids: tuple[str, ...]
    justification_keys: tuple[str, ...]


def reason_types_section() -> str:
    lines = ["## Reason types (for an invalid justification; a valid one has "
             f"`{NO_REASON}`)"]
    lines += [f"- {name}: {meaning}" for name, meaning in REASON_TYPES.items()]
    return "\n".join(lines)


def _named_line(n: Named, *, unless: bool) -> str:
    """An antecedent's label is shown when it is not IN; an Unless id's always."""
    lead = "Unless " if unless else ""
    mark = f" [{n.truth}]" if unless or n.truth != "IN" else ""
    note = " (a review finding)" if n.by_review else ""
    return f"- {lead}`{n.id}`{mark}{note}: {n.text}"


def justification_block(j: ShownJustification) -> str:
    label = f"; label: {' '.join(j.label.split())}" if j.label.strip() else ""
    lines = [f"Justification {j.position} ({j.mode}{label}):"]
    lines += [_named_line(a, unless=False) for a in j.antecedents]
    lines += [_named_line(o, unless=True) for o in j.outlist]
    return "\n".join(lines)


def belief_block(b: UnderReview) -> str:
    depth = b.depth if b.depth is not None else "?"
    lines = [f"### {b.id} (depth {depth})", f"Claim: {b.text}"]
    lines += [justification_block(j) for j in b.justifications]
    return "\n".join(lines)


def round_section(shown: Sequence[UnderReview], due_total: int) -> str:
    count = sum(len(b.justifications) for b in shown)
    return (f"## This round\n\n{len(shown)} of {due_total} beliefs due for review; "
            f"{count} justifications to judge.")


def build_prompt(shown: Sequence[UnderReview], *, due_total: int | None = None,
                 domain: str | None = None) -> ReviewPrompt:
    parts = [INTRO]
    if domain:
        parts.append("The beliefs in this network are about: " + " ".join(domain.split()))
    parts += [BACKGROUND, TASK, reason_types_section(), FORMAT,
              "## Beliefs to review\n\n" + "\n\n".join(belief_block(b) for b in shown),
              round_section(shown, len(shown) if due_total is None else due_total)]
    text = "\n\n".join(parts) + "\n"
    return ReviewPrompt(
        text=text,
        sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        belief_ids=tuple(b.id for b in shown),
        justification_keys=tuple(f"{b.id}#{j.position}" for b in shown for j in b.justifications),
    )
