"""The prompt and reply dedup and contradictions share: their instructions, the domain when
given, each group of beliefs under its heading (a member per line, `` `id` `` with its label,
depth, number of dependents and full text), then the answer format; and `GroupReply`, the
prompt, schema, parser, retry text and combine of one kind of group (dedup's clusters in
engine/dedup/prompt.py, contradictions' pairs in engine/contradictions/pairs.py)."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from engine.model import Belief
from engine.stages.echo import PromptEcho
from engine.stages.replies import Diagnostic
from engine.stages.stage import Parsed


class ShownGroup(Protocol):
    """A group as a round shows it, numbered."""

    @property
    def members(self) -> tuple[str, ...]: ...


class GroupAnswer(Protocol):
    """A verdict on one group, as a reply or a proposals file gives it."""

    @property
    def key(self) -> str: ...  # `pair 3`, `cluster 2`

    @property
    def comment(self) -> str: ...

    def as_dict(self) -> dict[str, object]: ...


ShownT = TypeVar("ShownT", bound=ShownGroup)
ItemT = TypeVar("ItemT", bound=GroupAnswer)


@dataclass(frozen=True)
class GroupReply(Generic[ShownT, ItemT]):
    """How one kind of group is asked and answered: `build_prompt(groups, beliefs,
    dependents, *, domain)`, `reply_schema(groups, *, bounded)`, `parse(reply, groups or
    None)`, `retry_text(diagnostics)`, `combine(first, second)`; `echo`, the answer format a
    comment must not repeat."""

    build_prompt: Callable[..., str]
    reply_schema: Callable[..., dict[str, object]]
    parse: Callable[[str, Sequence[ShownT] | None], Parsed[ItemT]]
    retry_text: Callable[[Sequence[Diagnostic]], str]
    combine: Callable[[Parsed[ItemT], Parsed[ItemT]], Parsed[ItemT]]
    echo: PromptEcho


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
