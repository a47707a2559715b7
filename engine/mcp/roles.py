"""Who may call which agent tool: the three roles of an MCP client, and what a client holds.

Each tool declares the least role that may call it where it is defined (`@tool`,
engine/mcp/tools.py); the tables here are read from those declarations. A name no tool
declares needs `write` (deny by default). Nothing here knows MCP: engine/mcp/server.py asks
`allows` for each call and for the tool listing.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from engine.mcp.declaration import PROPOSE, READ, ROLES, WRITE
from engine.mcp.tools import TOOLS
from engine.errors import InvalidInput

__all__ = ["FILTERED_TOOLS", "PROPOSE", "READ", "ROLES", "TOOL_ROLES", "WRITE", "Access", "allows",
           "check_role", "role_of"]

_RANK = {role: rank for rank, role in enumerate(ROLES)}

TOOL_ROLES: Mapping[str, str] = {spec.name: spec.role for spec in TOOLS}
# The reads that filter by a visibility set (engine/visibility.py): the only tools a
# client with one is offered; `query`, export, the change log, what-if and the writes cannot
# be filtered (their answers name beliefs the client may not see).
FILTERED_TOOLS = frozenset(spec.name for spec in TOOLS if spec.filtered)


def role_of(tool: str) -> str:
    """The least role that may call `tool`; `write` for a tool the table does not name."""
    return TOOL_ROLES.get(tool, WRITE)


def allows(role: str, tool: str) -> bool:
    return _RANK.get(role, -1) >= _RANK[role_of(tool)]


def check_role(role: str) -> str:
    if role not in _RANK:
        raise InvalidInput(f"role takes {', '.join(ROLES)}, not {role!r}", field="role",
                           value=role)
    return role


@dataclass(frozen=True)
class Access:
    """What one client holds: its name (the change log's actor label; "" for the server's
    default client), its role, and the access tags it may see (None: every belief)."""

    name: str
    role: str
    visible_to: frozenset[str] | None = None

    def may_call(self, tool: str) -> bool:
        return allows(self.role, tool) and (self.visible_to is None or tool in FILTERED_TOOLS)

    def refusal(self, tool: str) -> str:
        who = f"token {self.name!r}" if self.name else "this server"
        if not allows(self.role, tool):
            return (f"tool {tool!r} needs the {role_of(tool)} role; {who} has the "
                    f"{self.role} role")
        seen = ", ".join(sorted(self.visible_to or ())) or "untagged beliefs only"
        return (f"tool {tool!r} cannot be filtered by access tags; {who} sees {seen} and "
                "is offered only " + ", ".join(sorted(FILTERED_TOOLS)))
