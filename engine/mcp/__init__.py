"""`python -m engine.mcp`: the MCP server; its code is in engine/cli/mcp.py (the entry-point
room)."""
