"""Other agents' memories and who sees what: namespaces, import-agent and sync-agent,
visibility (what a client with access tags sees)."""
