"""Who may call which agent tool: the three roles of an MCP client, and what a client holds.

One table maps each tool to the least role that may call it. A tool missing from the table
needs `write`: a tool added later stays closed to lesser clients until someone decides
otherwise here (deny by default). Nothing here knows MCP: engine/cli/mcp.py asks `allows`
for each call and for the tool listing.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from engine.errors import InvalidInput

READ, PROPOSE, WRITE = "read", "propose", "write"
ROLES = (READ, PROPOSE, WRITE)
_RANK = {role: rank for rank, role in enumerate(ROLES)}

READ_TOOLS = ("status", "show", "explain", "trace", "list_beliefs", "search", "query",
              "verify", "what_if", "stage_runs", "log", "changes_since", "blockers",
              "context_for", "compact", "ask", "trace_tags")
# Proposals (issue 23): a proposal changes nothing in the network, so a proposer may make,
# read and withdraw them; only a writer accepts or rejects.
PROPOSE_TOOLS = ("propose_add", "propose_add_justification", "propose_retract",
                 "propose_assert", "propose_assert_belief", "propose_supersede",
                 "propose_challenge", "list_proposals", "show_proposal", "withdraw_proposal")
WRITE_TOOLS = ("add", "add_justification", "retract", "assert_belief", "nogood", "supersede",
               "supersede_undo", "challenge", "defend", "defeat", "remove_justification",
               "convert_to_premise", "set_metadata", "accept_proposal", "reject_proposal")

# The reads that filter by a visibility set (engine/agents/visibility.py): the only tools a client
# with one is offered; `query`, export, the change log, what-if and the writes cannot be
# filtered (their answers name beliefs the client may not see).
FILTERED_TOOLS = frozenset({"show", "explain", "trace", "list_beliefs", "search", "blockers",
                            "compact", "context_for", "ask"})

TOOL_ROLES: Mapping[str, str] = {
    **{name: READ for name in READ_TOOLS},
    **{name: PROPOSE for name in PROPOSE_TOOLS},
    **{name: WRITE for name in WRITE_TOOLS},
}


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
