"""The MCP face: `eem mcp` (`python -m engine.mcp`) serves the memory's verbs to agents as
MCP tools (server.py), each one call of the service layer with the calling client's
Context; tokens.py keeps the HTTP server's named tokens."""
