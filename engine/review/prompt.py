"""The review prompt: fixed sections (Background, Task, Reason types, Answer format), then
`## Beliefs to review`, one `### <id>` block per belief with its claim and depth and each
justification under `Justification <n>` (1-based, in the belief's order): its mode and label,
each antecedent as `` `id` `` with its label and full text, each Unless id with its text.
Pure text building; the material comes from engine.review.material.
"""
from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from engine.review.material import Named, ShownJustification, UnderReview
from engine.review.verdicts import NO_REASON, REASON_TYPES

INTRO = ("You are a careful critic of a belief network. Each derived belief below is held "
         "up by one or more justifications. Judge every justification on its own: does the "
         "claim really follow from what it names?")

BACKGROUND = """\
## Background

The network is kept by a reason maintenance system. A premise is an observed fact. A derived
belief holds while at least one of its justifications holds, and a justification holds while
every antecedent it names is IN (believed) and every id in its Unless list is OUT. When a
belief is retracted, whatever rests on it goes OUT with it, all the way down the chain. That
cascade is only right when each justification says exactly what its claim depends on.

A justification's mode says how its antecedents support the claim:
- ALL: the claim needs all of the antecedents together (A and B, hence C); one
  justification names them all, so losing any one of them loses the claim.
- ANY: each antecedent supports the claim on its own (independent evidence); it is stored
  as one justification per antecedent, so the claim survives while any one of them holds.

Your verdicts act on the network: a justification you find unsound is switched off (a
finding is added to its Unless list), and a belief left with no sound justification goes OUT
together with what rests on it. A sound justification is left as it is."""

TASK = """\
## Task

For every justification shown (each `Justification <n>` of each belief), decide:
1. valid: does the claim follow from these antecedents, read as they are written?
2. sufficient: are the antecedents enough for the whole claim, with nothing assumed?
3. necessary: is every antecedent load-bearing? List those that are not in
   unnecessary_antecedents.
4. mode: the mode the justification should have (ALL or ANY, as in the Background).
5. When it is not valid: the reason type (one of the list below), the missing property (what
   the claim asserts that the antecedents do not give), and for each antecedent what it
   establishes and what it does not.
Judge the step from the antecedents to the claim, not whether the antecedents are true:
they are reviewed on their own. Say valid only when the step holds; when in doubt, say why
in the comment."""

FORMAT = """\
## Answer format

Answer with one JSON object and nothing else:

{"verdicts": [
  {"id": "<belief id>", "justification": <n>, "valid": true or false,
   "sufficient": true or false, "necessary": true or false,
   "unnecessary_antecedents": ["<antecedent id>", ...], "mode": "ALL" or "ANY",
   "reason_type": "<one of the reason types, or none when valid>",
   "missing_property": "<what is missing, or empty>",
   "comment": "<one sentence>",
   "antecedents": [{"id": "<antecedent id>", "establishes": "...",
                    "does_not_establish": "..."}]}
]}

One verdict per justification shown, none left out, each naming a belief id and a
justification number exactly as shown above it."""


@dataclass(frozen=True)
class ReviewPrompt:
    text: str
    sha256: str
    belief_ids: tuple[str, ...]
    justification_keys: tuple[str, ...]


def reason_types_section() -> str:
    lines = ["## Reason types", "", "When a justification is not valid, name the first that fits:"]
    lines += [f"- {name}: {meaning}" for name, meaning in REASON_TYPES.items()]
    lines.append(f"A valid justification has reason type `{NO_REASON}`.")
    return "\n".join(lines)


def _named_line(n: Named, *, unless: bool) -> str:
    lead = "Unless " if unless else ""
    note = " (a review finding)" if n.by_review else ""
    return f"- {lead}`{n.id}` [{n.truth}]{note}: {n.text}"


def justification_block(j: ShownJustification) -> str:
    label = j.label.strip() or "(no label)"
    lines = [f"Justification {j.position} ({j.mode}; label: {label})"]
    lines += [_named_line(a, unless=False) for a in j.antecedents]
    lines += [_named_line(o, unless=True) for o in j.outlist]
    return "\n".join(lines)


def belief_block(b: UnderReview) -> str:
    depth = b.depth if b.depth is not None else "?"
    head = [f"### {b.id}", f"Claim: {b.text}", f"Depth: {depth} ({b.truth})"]
    return "\n\n".join(["\n".join(head)] + [justification_block(j) for j in b.justifications])


def round_section(shown: Sequence[UnderReview], due_total: int) -> str:
    count = sum(len(b.justifications) for b in shown)
    return (f"## This round\n\n- Beliefs shown: {len(shown)} of {due_total} due for review\n"
            f"- Justifications to judge: {count}")


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
