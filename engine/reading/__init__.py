"""Reading the memory: search, compact, impact, blockers, the query pack, the
neighbourhood view and the wiki's content."""
