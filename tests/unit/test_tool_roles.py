"""One list of agent tools (engine/mcp/tools.py TOOLS): every tool declares its role where
it is defined, and every table of roles (engine/mcp/roles.py) names only tools that exist."""
from __future__ import annotations

import inspect

import pytest

from engine.mcp import roles
from engine.mcp.declaration import PROPOSE, READ, WRITE, declared_tools, tool
from engine.mcp.tools import TOOLS, AgentTools


def public_methods(cls: type) -> list[str]:
    return [name for name, member in vars(cls).items()
            if inspect.isfunction(member) and not name.startswith("_")
            and not name.endswith("_resource")]  # the resources' text, not tools


def test_every_public_method_of_the_tools_is_a_declared_tool():
    assert [spec.name for spec in declared_tools(AgentTools)] == public_methods(AgentTools)
    names = [spec.name for spec in TOOLS]
    assert len(names) == len(set(names)) > 30


@pytest.mark.parametrize("table", ["TOOL_ROLES", "FILTERED_TOOLS"])
def test_every_role_table_names_only_tools_that_exist(table):
    exist = set(public_methods(AgentTools))
    named = set(getattr(roles, table))
    assert named, table
    assert named <= exist, f"{table} names tools that do not exist: {sorted(named - exist)}"


def test_each_tool_has_one_role_of_the_three():
    assert set(roles.TOOL_ROLES) == {spec.name for spec in TOOLS}
    assert set(roles.TOOL_ROLES.values()) == {READ, PROPOSE, WRITE}


def test_the_declarations_say_who_may_call_and_what_only_reads():
    spec = {s.name: s for s in TOOLS}
    assert roles.role_of("show") == READ and spec["show"].read_only and spec["show"].filtered
    assert roles.role_of("retract") == WRITE and not spec["retract"].read_only
    assert roles.role_of("propose_retract") == "propose" and not spec["propose_retract"].read_only
    assert spec["list_proposals"].read_only and spec["show_proposal"].read_only
    assert spec["ask"].needs_model and not spec["ask"].read_only  # it records its run
    assert not spec["query"].filtered and not spec["log"].filtered
    assert roles.role_of("a_tool_added_tomorrow") == WRITE  # deny by default


def test_a_declaration_with_an_unknown_role_is_refused():
    with pytest.raises(ValueError, match="role takes read, propose, write, not 'admin'"):
        tool("admin")
