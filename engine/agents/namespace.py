"""Another agent's memory under a namespace: names, the switch, and what marks its beliefs.

Pure, no I/O. The marks nogood resolution reads (the switch, `namespace_of`,
`is_agent_premise`) are the kernel's, in engine/tms/agent_marks.py; this module builds with
them. engine/agents/namespaced.py turns a file into what we store;
engine/agents/import_agent.py writes it, engine/agents/sync_agent.py compares with it.
For the namespace NAME:
- every id the file gives gets the prefix `NAME:`: beliefs, the ids justifications and
  nogoods name (supersession lives in outlists, so it follows), nogood ids, and the
  id-valued metadata of ID_METADATA_KEYS that name a belief of the file;
- `NAME:active` is a premise we own, the agent's switch: every imported justification
  requires it (it is appended to the antecedents), so `retract NAME:active` takes the whole
  memory OUT and `assert NAME:active` brings it back, through ordinary propagation;
- a premise of the agent (no justification, only a gate, or asserted there) becomes a belief
  derived from the switch alone: justification `NAME:active` (with its gates as outlist).
  engine/tms/semantics.py stays the one definition of truth, so it is derived here (depth 1),
  yet it is still what the agent observed: `is_agent_premise` says so, and nogood
  resolution (engine/tms/nogoods.py) takes it as an assumption, ranked below our own;
- metadata `namespace: NAME` marks every imported belief, `agent_retracted` one the file has
  retracted, and `agent_sha256` is the digest of the definition the file gave it, which is
  how sync-agent finds what changed without reading every belief's justifications;
- `add --namespace NAME` places a belief of ours inside the namespace the same way
  (`placed_in`); it has no `agent_sha256`, so sync-agent never takes it for one gone from
  the file.
"""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from types import MappingProxyType

from engine.errors import InvalidInput
from engine.model import Belief, Justification
from engine.tms.agent_marks import SWITCH_TYPE, switch_id

NAME_RE = re.compile(r"[a-z0-9][a-z0-9._-]{0,39}")
# Prefixes this engine gives its own beliefs (review defeaters, challenges, defences,
# defeats and their scope beliefs).
RESERVED_NAMES = frozenset({"review", "challenge", "defence", "summary", "defeat", "scope"})
ID_METADATA_KEYS = frozenset({"superseded_by", "supersedes", "challenge_target", "defends",
                              "duplicate_of", "summarizes", "summarized_by", "defeats_node",
                              "defeats", "scope_of", "for_defeater", "scopes"})


def check_name(name: object) -> str:
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        raise InvalidInput(f"invalid namespace {name!r}: 1-40 characters of [a-z0-9._-], "
                           "starting with a letter or digit", field="namespace", value=name)
    if name in RESERVED_NAMES:
        raise InvalidInput(f"namespace {name!r} is reserved: this engine names its own "
                           f"'{name}:' beliefs", field="namespace", value=name)
    return name


def prefix(name: str) -> str:
    return f"{name}:"


def is_agents(j: Justification, name: str) -> bool:
    """Whether a justification came from the agent's file (it requires the switch)."""
    return switch_id(name) in j.antecedents


def placed_in(name: str, belief_id: str, justifications: Sequence[Justification]
              ) -> tuple[str, tuple[Justification, ...]]:
    """`add --namespace NAME`: a belief of ours inside the namespace, as its own beliefs
    are: the id under `NAME:` (kept when it has the prefix already), every justification
    requiring the switch, a premise derived from the switch alone. The ids the
    justifications name are kept as given (the agent's are `NAME:x`)."""
    check_name(name)
    ident = belief_id if belief_id.startswith(prefix(name)) else prefix(name) + belief_id
    switch = switch_id(name)
    if not justifications:
        return ident, (Justification((switch,), label=f"premise of {name}"),)
    return ident, tuple(j if switch in j.antecedents else dataclasses.replace(
        j, antecedents=j.antecedents + (switch,)) for j in justifications)


def switch_belief(name: str, at: str) -> Belief:
    return Belief(
        id=switch_id(name),
        text=f"The memory imported from agent {name} holds (retract to take it OUT).",
        metadata=MappingProxyType({"source_type": SWITCH_TYPE, "namespace": name}),
        created_at=at, updated_at=at,
    )
