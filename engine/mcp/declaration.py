"""How an agent tool declares itself, where it is defined (engine/mcp/tools.py): `@tool`
on the method gives the least role that may call it (read < propose < write), whether it
changes nothing (the read-only hint a client sees), whether it answers a client that sees
only some access tags (filtered: its reads go through the visibility filter), and whether it
needs the server's model (ask). The roles (roles.py), the read-only set and the tools the
MCP server serves (engine/mcp/server.py) are all read from these declarations: there is no
second list of tool names to keep in step.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

READ, PROPOSE, WRITE = "read", "propose", "write"
ROLES = (READ, PROPOSE, WRITE)
DECLARATION = "agent_tool"  # the attribute `@tool` sets on the method

Method = TypeVar("Method", bound=Callable[..., object])


@dataclass(frozen=True)
class ToolSpec:
    name: str
    role: str
    read_only: bool
    filtered: bool
    needs_model: bool


def tool(role: str, *, read_only: bool | None = None, filtered: bool = False,
         needs_model: bool = False) -> Callable[[Method], Method]:
    """Declare the method an agent tool. `read_only` defaults to whether `role` is read."""
    if role not in ROLES:
        raise ValueError(f"role takes {', '.join(ROLES)}, not {role!r}")

    def declare(method: Method) -> Method:
        setattr(method, DECLARATION, ToolSpec(
            method.__name__, role, role == READ if read_only is None else read_only,
            filtered, needs_model))
        return method

    return declare


def declared_tools(cls: type) -> tuple[ToolSpec, ...]:
    """The tools `cls` declares, in the order they are defined."""
    return tuple(getattr(member, DECLARATION) for member in vars(cls).values()
                 if isinstance(getattr(member, DECLARATION, None), ToolSpec))


def bound_tools(instance: object) -> dict[str, Callable[..., dict[str, object]]]:
    """The declared tools of `instance`'s class as its bound methods, by name."""
    return {spec.name: getattr(instance, spec.name) for spec in declared_tools(type(instance))}
