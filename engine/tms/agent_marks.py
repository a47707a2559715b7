"""What marks a belief as part of another agent's memory, as nogood resolution reads it
(engine/tms/nogoods.py ranks an agent's premise as an assumption below ours and never takes
a switch). engine/agents/namespace.py builds such memories with these marks; they live in
the kernel so that the kernel stands on nothing above it. Pure, no I/O.

- metadata `namespace: NAME` marks every belief imported under the namespace NAME;
- `NAME:active` (metadata `source_type: namespace`) is the agent's switch, a premise we own;
- an agent's premise is derived here from its switch alone.
"""
from __future__ import annotations

from engine.model import Belief

SWITCH_TYPE = "namespace"  # metadata source_type of NAME:active


def switch_id(name: str) -> str:
    return f"{name}:active"


def namespace_of(b: Belief) -> str | None:
    """The namespace an imported belief (or a switch) belongs to; None for our own."""
    value = b.metadata.get("namespace")
    return value if isinstance(value, str) and value else None


def is_switch(b: Belief) -> bool:
    return b.metadata.get("source_type") == SWITCH_TYPE


def is_agent_premise(b: Belief) -> bool:
    """A premise of another agent's memory: derived here from its switch alone."""
    ns = namespace_of(b)
    return ns is not None and not is_switch(b) and any(
        j.antecedents == (switch_id(ns),) for j in b.justifications)
