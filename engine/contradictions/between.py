"""`--between NAME [NAME2]`: only the candidate pairs across namespaces, so an imported
agent's memory is checked against ours (one name) or against another agent's (two names),
and never against itself. A belief's side is the namespace its id is in
(engine/agents/namespace.py), or ours ("") for an id in none; a namespace's switch is on no side."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from engine.agents.import_agent import check_namespace, namespaces
from engine.agents.namespace import prefix, switch_id
from engine.agents.records import AgentTx
from engine.errors import InvalidInput
from engine.store import Store

OURS = ""
P = TypeVar("P", bound=tuple)


def side_finder(store: Store[AgentTx], between: Sequence[str]) -> Callable[[str], str | None]:
    """A function from a belief id to its side, after checking the names given exist."""
    if not 1 <= len(between) <= 2 or len(set(between)) != len(between):
        raise InvalidInput("--between takes one namespace (against ours) or two different "
                           "ones", field="between", value=list(between))
    for name in between:
        check_namespace(store, name)
    names = sorted((r.name for r in namespaces(store)), key=len, reverse=True)

    def side(belief_id: str) -> str | None:
        for name in names:
            if belief_id.startswith(prefix(name)):
                return None if belief_id == switch_id(name) else name
        return OURS

    return side


def across(pairs: Sequence[P], between: Sequence[str], side: Callable[[str], str | None]
           ) -> list[P]:
    """The pairs (a, b, ...) with one member on each side `between` names."""
    wanted = {between[0], between[1] if len(between) > 1 else OURS}
    return [p for p in pairs if {side(p[0]), side(p[1])} == wanted]
