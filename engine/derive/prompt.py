"""The derive prompt: four fixed sections (Background, Task, Rules, Output Format), then the
network as the round sees it: `## Existing Beliefs` (the sample, grouped by id prefix),
`## Existing Derived Conclusions` (filtered to the sample, deepest first, every justification),
`## Known Problems` (when the negatives stage found some near the sample: Unless ids for a
GATE) and `## Statistics`. Pure text building; the round's material comes from view.read_view.
"""
from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass

from engine.derive.proposals import FORMAT, NO_PROPOSALS
from engine.derive.view import RoundView, id_prefix
from engine.model import Belief, Truth
from engine.stages.stage import Prompt as StagePrompt

BELIEF_TEXT_LIMIT = 120
DERIVED_TEXT_LIMIT = 200

INTRO = ("You are a reasoning architect working on a belief network. Find genuine connections "
         "between the beliefs below and propose new derived conclusions.")

BACKGROUND = """\
## Background

A reason maintenance system (RMS) keeps beliefs together with their justifications and keeps
their labels consistent as beliefs change: IN (currently believed) or OUT. It has three kinds
of node:

1. Base premises (depth 0): observed facts with no justification. They are IN until retracted.
2. Derived conclusions (depth 1 and up): justified by antecedents. A justification holds when
   every one of its antecedents is IN, and a conclusion is IN while one of its justifications
   holds. Its depth is one more than the depth of the antecedents it needs.
3. Outlist-gated conclusions (GATE): justified by antecedents unless some node is IN. While an
   Unless node is IN the conclusion is OUT; when that node goes OUT (say the bug it records is
   fixed and the belief retracted), the conclusion comes IN by itself.

Retraction cascades: when a belief is retracted, every conclusion that needs it goes OUT
automatically, then everything that needs those, and so on. That cascade is what makes the
network worth keeping, and it works only when each justification states exactly what its
conclusion depends on. So every proposal declares a Mode:

- ALL: the conclusion needs every antecedent together (a chain of reasoning: A and B, hence C).
  It becomes one justification: retracting any single antecedent retracts the conclusion.
- ANY: each antecedent supports the conclusion on its own (independent evidence pointing the
  same way). It becomes one justification per antecedent: the conclusion stays IN while any
  one of them is IN.

Getting the Mode wrong breaks the cascade: ANY where ALL is meant keeps a conclusion IN after
a belief it needed was retracted; ALL where ANY is meant drops a conclusion that still has
evidence. In the derived conclusions below, a conclusion with several `- Antecedents:` lines
has one justification per line, and any one of them is enough."""

TASK = """\
## Task

Propose NEW derived conclusions of three kinds:

1. Combine existing derived conclusions into a higher-level claim: depth N+1 from depth N.
2. Group related base beliefs into a new depth-1 conclusion that none of them states alone.
3. Connect a positive chain with a negative one through a GATE: a positive claim that holds
   unless a negative belief (a bug, gap, risk or open issue) is IN."""

RULES = """\
## Rules

- Every conclusion has at least {min_antecedents} antecedents.
- List only load-bearing antecedents: a belief you read but the conclusion does not need is
  not an antecedent.
- Prefer combining derived conclusions (deeper chains) over grouping base beliefs.
- No forced connections: the antecedents must genuinely bear on each other, and a conclusion
  must say more than any single antecedent.
- Antecedent and Unless ids must be existing ids listed below, copied exactly; the new id must
  not exist yet.
- When there is nothing genuine to add, reply `{no_proposals}` on a line of its own."""


@dataclass(frozen=True)
class PromptOptions:
    domain: str | None = None
    topic: str | None = None
    min_antecedents: int = 2


@dataclass(frozen=True)
class Prompt(StagePrompt):
    """The shared prompt (text, sha256) and the ids derive shows: the sample, the derived."""

    sample_ids: tuple[str, ...]
    derived_ids: tuple[str, ...]
    problem_ids: tuple[str, ...] = ()

    @property
    def allowed_ids(self) -> tuple[str, ...]:
        return self.sample_ids + self.derived_ids + self.problem_ids


def one_line(text: str) -> str:
    return " ".join(text.split())


def cut(text: str, limit: int) -> str:
    text = one_line(text)
    return text if len(text) <= limit else text[:limit] + "..."


def build_prompt(view: RoundView, options: PromptOptions = PromptOptions()) -> Prompt:
    parts = [INTRO]
    context = []
    if options.domain:
        context.append(f"The beliefs in this network are about: {one_line(options.domain)}")
    if options.topic:
        context.append(
            f"Only beliefs whose id or text contains one of these words are shown: "
            f"{one_line(options.topic)}")
    if context:
        parts.append("\n".join(context))
    parts += [
        BACKGROUND,
        TASK,
        RULES.format(min_antecedents=options.min_antecedents, no_proposals=NO_PROPOSALS),
        "## Output Format\n\n" + FORMAT,
        "## Existing Beliefs\n\n" + beliefs_section(view),
        "## Existing Derived Conclusions\n\n" + derived_section(view.derived),
        *(["## Known Problems\n\n" + problems_section(view)] if view.problems else []),
        "## Statistics\n\n" + statistics_section(view),
    ]
    text = "\n\n".join(parts) + "\n"
    return Prompt(
        text=text,
        sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        sample_ids=view.sample_ids,
        derived_ids=tuple(b.id for b in view.derived),
        problem_ids=tuple(i for i, _, _ in view.problems),
    )


def beliefs_section(view: RoundView) -> str:
    """The sample grouped by id prefix, the largest groups (in the pool) first."""
    if not view.sample_ids:
        return "(No beliefs to show)"
    groups: dict[str, list[str]] = defaultdict(list)
    for i in view.sample_ids:
        groups[id_prefix(i)].append(i)
    order = sorted(groups, key=lambda g: (-view.group_totals.get(g, len(groups[g])), g))
    blocks = []
    for g in order:
        total = view.group_totals.get(g, len(groups[g]))
        lines = [f"### {g} ({total} beliefs, showing {len(groups[g])})"]
        lines += [f"- `{i}`: {cut(view.texts[i], BELIEF_TEXT_LIMIT)}" for i in sorted(groups[g])]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _truth_tag(b: Belief) -> str:
    return (b.truth or Truth.OUT).value


def derived_section(derived: tuple[Belief, ...]) -> str:
    if not derived:
        return "(No derived conclusions rest on the beliefs shown)"
    blocks = []
    for b in derived:
        depth = b.depth if b.depth is not None else "?"
        lines = [f"#### [{_truth_tag(b)}] depth-{depth}: `{b.id}`", cut(b.text, DERIVED_TEXT_LIMIT)]
        for j in b.justifications:
            lines.append(f"- Antecedents: {', '.join(j.antecedents)}")
            if j.outlist:
                lines.append(f"- Unless: {', '.join(j.outlist)}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def problems_section(view: RoundView) -> str:
    """The known problems near the sample (engine/negatives/): a GATE may name them."""
    lines = ["Beliefs that state a problem, near the beliefs above; a GATE's Unless may name "
             "them (the conclusion then holds only while the problem is OUT):"]
    lines += [f"- `{i}` ({kind}): {cut(text, BELIEF_TEXT_LIMIT)}"
              for i, kind, text in view.problems]
    return "\n".join(lines)


def statistics_section(view: RoundView) -> str:
    s = view.sample
    cluster = f", cluster {s.cluster}" if s.cluster is not None else ""
    lines = [
        f"- IN beliefs: {view.status.in_}",
        f"- Derived beliefs: {view.status.derived}",
        f"- Max depth: {view.status.max_depth}",
        f"- Sample: {len(view.sample_ids)} of {view.pool_size} IN premises "
        f"(strategy {s.strategy}{cluster})",
    ]
    if s.description:
        lines.append(f"- How they were chosen: {one_line(s.description)}")
    lines.append(f"- Derived conclusions shown: {len(view.derived)} of {view.derived_related} "
                 "that rest on the sample")
    return "\n".join(lines)
