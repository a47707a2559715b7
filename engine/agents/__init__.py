"""Agents and other agents' memories: the MCP tools and their roles, visibility,
namespaces, import-agent and sync-agent."""
