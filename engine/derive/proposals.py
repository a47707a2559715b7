"""A proposal (one new derived belief a model put forward) and the markdown format it is
written in: the format the prompt asks for, the parser reads, and the proposals file holds.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

NO_PROPOSALS = "NO PROPOSALS"
EXAMPLE_ID = "auth-jwt-is-bottleneck"  # the format's example of a new id

# The "Output Format" section of the prompt, also quoted by the format-failure retry.
FORMAT = f"""\
For each proposed conclusion write exactly this block, one field per line:

### DERIVE <new-belief-id>
<one-sentence conclusion>
- Antecedents: <existing-id>, <existing-id>
- Mode: ALL
- Label: <short label saying why the antecedents support it>

For a conclusion that holds unless some belief is IN, write a GATE block:

### GATE <new-belief-id>
<one-sentence conclusion>
- Antecedents: <existing-id>, <existing-id>
- Unless: <existing-id>
- Mode: ALL
- Label: <short label>

Mode is ALL (every antecedent is needed) or ANY (each antecedent supports the conclusion on
its own). A new id is lower case: letters, digits and . _ : - (for example
`{EXAMPLE_ID}`). If there is nothing genuine to add, reply with one line:

NO PROPOSALS"""


class ProposalKind(StrEnum):
    DERIVE = "DERIVE"
    GATE = "GATE"


class Mode(StrEnum):
    ALL = "ALL"  # one justification over every antecedent
    ANY = "ANY"  # one justification per antecedent


@dataclass(frozen=True)
class Proposal:
    """One proposed belief. `line` is the 1-based line of its header in the text it was
    parsed from (0 when built in code)."""

    kind: ProposalKind
    id: str
    text: str
    antecedents: tuple[str, ...]
    unless: tuple[str, ...] = ()
    mode: Mode = Mode.ALL
    label: str = ""
    line: int = 0

    @property
    def key(self) -> str:
        return self.id

    def as_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind.value,
            "id": self.id,
            "text": self.text,
            "antecedents": list(self.antecedents),
            "unless": list(self.unless),
            "mode": self.mode.value,
            "label": self.label,
            "line": self.line,
        }


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def render_proposal(p: Proposal) -> str:
    """The block for one proposal, in the format the parser reads."""
    lines = [f"### {p.kind.value} {p.id}", _one_line(p.text),
             f"- Antecedents: {', '.join(p.antecedents)}"]
    if p.unless:
        lines.append(f"- Unless: {', '.join(p.unless)}")
    lines.append(f"- Mode: {p.mode.value}")
    lines.append(f"- Label: {_one_line(p.label)}")
    return "\n".join(lines)


def render_proposals(proposals: Sequence[Proposal]) -> str:
    """Blocks separated by blank lines; the NO PROPOSALS line when there are none."""
    if not proposals:
        return NO_PROPOSALS + "\n"
    return "\n\n".join(render_proposal(p) for p in proposals) + "\n"
