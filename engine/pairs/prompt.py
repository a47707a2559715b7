"""The prompt dedup and contradictions share: their instructions, the domain when given, each
group of beliefs under its heading (a member per line, `` `id` `` with its label, depth,
number of dependents and full text), then the answer format."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.model import Belief


def member_line(b: Belief, dependents: int) -> str:
    truth = b.truth.value if b.truth is not None else "?"
    depth = "-" if b.depth is None else str(b.depth)
    text = " ".join(b.text.split())
    return f"- `{b.id}` ({truth}, depth {depth}, {dependents} dependents): {text}"


def groups_prompt(instructions: str, groups: Sequence[tuple[str, Sequence[str]]],
                  beliefs: Mapping[str, Belief], dependents: Mapping[str, int],
                  answer_format: str, *, domain: str = "") -> str:
    """`groups`: (heading, member ids) in the order shown."""
    parts = [instructions]
    if domain:
        parts.append(f"Domain: {domain}\n")
    for heading, members in groups:
        lines = [heading] + [member_line(beliefs[i], dependents.get(i, 0)) for i in members]
        parts.append("\n".join(lines) + "\n")
    parts.append(answer_format)
    return "\n".join(parts)
